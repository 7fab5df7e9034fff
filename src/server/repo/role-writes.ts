import { newId } from '../new-id.js';
import { attributeClause } from './attribute-filter.js';
import type { Queryable } from '../store/db.js';
import { isUniqueViolation } from '../store/db.js';
import { duplicate, notFound } from '../errors.js';
import type { Paging } from '../paging.js';
import { findKeyed, pageOf, parseJson, searchClause } from './common.js';
import { checkExtends, checkExtendsAll, checkPermissions, type RoleRow } from './roles.js';
import { pruneRoleFromConfigs } from './elements.js';
import { replaceGrantedTo, type GrantedToInput } from './derivation-writes.js';
import type { Actions } from './resources.js';

/**
 * The writes of top-level roles (`/roles`, `/roles/{key}/permissions`, `/bulk/roles`), each inside the
 * caller's transaction, and their list. A role's `extends` and permissions are checked here
 * (repo/roles.ts), its derivations written by replaceGrantedTo (repo/derivation-writes.ts).
 */

export interface RoleInput {
  name?: string;
  description?: string | null;
  permissions?: string[];
  extends?: string[];
  attributes?: Record<string, unknown>;
  granted_to?: GrantedToInput;
}

/** One page of the environment's top-level roles, `search` matching key or name. */
export async function listRoles(
  q: Queryable,
  envId: string,
  search: unknown,
  paging: Paging,
  filters: [string, string][] = [],
) {
  const s = searchClause(search);
  const scope = `env_id = ? AND resource_id IS NULL`;
  const a = await attributeClause(q, 'roles', scope, [envId], filters);
  return pageOf<RoleRow>(q, 'roles', `${scope}${s.where}${a.where}`, [envId, ...s.params, ...a.params], paging);
}

/** A role by id (one the caller just wrote). */
export async function readRole(q: Queryable, id: string): Promise<RoleRow> {
  return (await q.get<RoleRow>(`SELECT * FROM roles WHERE id = ?`, [id]))!;
}

/** A new top-level role (409 when the key is taken); returns it. */
export async function createRole(
  tx: Queryable,
  envId: string,
  b: RoleInput & { key: string; name: string },
  at: string,
): Promise<RoleRow> {
  const id = newId();
  const permissions = await checkPermissions(tx, envId, b.permissions ?? []);
  const ext = await checkExtends(tx, envId, b.key, b.extends ?? []);
  try {
    await tx.run(
      `INSERT INTO roles (id, env_id, key, name, description, permissions, extends, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        envId,
        b.key,
        b.name,
        b.description ?? null,
        JSON.stringify(permissions),
        JSON.stringify(ext),
        b.attributes ? JSON.stringify(b.attributes) : null,
        at,
        at,
      ],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('role', b.key);
    throw err;
  }
  if (b.granted_to) await replaceGrantedTo(tx, envId, { id }, undefined, b.granted_to, at);
  return readRole(tx, id);
}

/** Updates the role `key` with the fields given (the others stay); returns it. */
export async function updateRole(
  tx: Queryable,
  envId: string,
  key: string,
  b: RoleInput,
  at: string,
): Promise<RoleRow> {
  const row = await findKeyed<RoleRow>(tx, 'roles', envId, key, 'role');
  const permissions = b.permissions
    ? await checkPermissions(tx, envId, b.permissions)
    : parseJson<string[]>(row.permissions, []);
  const ext = b.extends ? await checkExtends(tx, envId, row.key, b.extends) : parseJson<string[]>(row.extends, []);
  // `attributes` (seen by conditions as role.<attribute>): replaced when given.
  await tx.run(
    `UPDATE roles SET name = ?, description = ?, permissions = ?, extends = ?, attributes = ?, updated_at = ? WHERE id = ?`,
    [
      b.name ?? row.name,
      b.description !== undefined ? b.description : row.description,
      JSON.stringify(permissions),
      JSON.stringify(ext),
      b.attributes !== undefined ? JSON.stringify(b.attributes) : (row.attributes ?? null),
      at,
      row.id,
    ],
  );
  // Given, it replaces the role's derivations (replaceGrantedTo); left out, they stay.
  if (b.granted_to) await replaceGrantedTo(tx, envId, row, undefined, b.granted_to, at);
  return readRole(tx, row.id);
}

/**
 * Deletes the role `key`: its assignments and group grants go with it (cascade), and its name leaves
 * other roles' `extends` and element configurations' reviewer levels.
 */
export async function deleteRole(tx: Queryable, envId: string, key: string, at: string): Promise<void> {
  const row = await findKeyed<RoleRow>(tx, 'roles', envId, key, 'role');
  await tx.run(`DELETE FROM roles WHERE id = ?`, [row.id]);
  await pruneRoleFromConfigs(tx, envId, row.key, at);
  const others = await tx.all<{ id: string; extends: string }>(
    `SELECT id, extends FROM roles WHERE env_id = ? AND resource_id IS NULL`,
    [envId],
  );
  for (const o of others) {
    const ext = parseJson<string[]>(o.extends, []);
    if (ext.includes(row.key)) {
      await tx.run(`UPDATE roles SET extends = ?, updated_at = ? WHERE id = ?`, [
        JSON.stringify(ext.filter((k) => k !== row.key)),
        at,
        o.id,
      ]);
    }
  }
}

/**
 * Adds (`add`) or removes some permissions of the role `key` without restating the others. Adding one
 * the role has, or removing one it lacks, is skipped; returns the role.
 */
export async function changeRolePermissions(
  tx: Queryable,
  envId: string,
  key: string,
  permissions: string[],
  add: boolean,
  at: string,
): Promise<RoleRow> {
  const role = await findKeyed<RoleRow>(tx, 'roles', envId, key, 'role');
  const names = await permissionNames(tx, envId, permissions, add);
  const had = parseJson<string[]>(role.permissions, []);
  // Added permissions must exist (404 naming the missing one, as a role create does); removed ones need not.
  const next = add ? await checkPermissions(tx, envId, [...had, ...names]) : had.filter((p) => !names.includes(p));
  if (next.length !== had.length || next.some((p, i) => p !== had[i]))
    await tx.run(`UPDATE roles SET permissions = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(next), at, role.id]);
  return readRole(tx, role.id);
}

/**
 * Each permission as `resource:action`: an action id becomes its name. An unknown id is 404 when adding
 * and skipped when removing (there is nothing to remove).
 */
async function permissionNames(q: Queryable, envId: string, given: string[], strict: boolean): Promise<string[]> {
  const ids = given.filter((p) => !p.includes(':'));
  const byId = new Map<string, string>();
  if (ids.length > 0) {
    const rows = await q.all<{ key: string; actions: string }>(`SELECT key, actions FROM resources WHERE env_id = ?`, [
      envId,
    ]);
    for (const r of rows)
      for (const [action, a] of Object.entries(parseJson<Actions>(r.actions, {})))
        if (a.id) byId.set(a.id, `${r.key}:${action}`);
  }
  return given.flatMap((p) => {
    if (p.includes(':')) return [p];
    const name = byId.get(p);
    if (name) return [name];
    if (strict) throw notFound('permission', p);
    return [];
  });
}

/**
 * Creates or replaces each role (a field left out is reset, as a replace does). Roles in one call may
 * extend each other, in any order: first every role exists with its own fields, then the `extends`
 * lists, checked together. Returns the keys created and the keys replaced.
 */
export async function putRoles(
  tx: Queryable,
  envId: string,
  operations: (RoleInput & { key: string; name: string })[],
  at: string,
): Promise<{ created: string[]; updated: string[] }> {
  const created: string[] = [];
  const updated: string[] = [];
  for (const o of operations) {
    const permissions = JSON.stringify(await checkPermissions(tx, envId, o.permissions ?? []));
    const existing = await tx.get<{ id: string }>(
      `SELECT id FROM roles WHERE env_id = ? AND key = ? AND resource_id IS NULL`,
      [envId, o.key],
    );
    if (existing) {
      await tx.run(`UPDATE roles SET name = ?, description = ?, permissions = ?, updated_at = ? WHERE id = ?`, [
        o.name,
        o.description ?? null,
        permissions,
        at,
        existing.id,
      ]);
      updated.push(o.key);
    } else {
      await tx.run(
        `INSERT INTO roles (id, env_id, key, name, description, permissions, extends, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?)`,
        [newId(), envId, o.key, o.name, o.description ?? null, permissions, at, at],
      );
      created.push(o.key);
    }
  }
  const ext = await checkExtendsAll(tx, envId, new Map(operations.map((o) => [o.key, o.extends ?? []])));
  for (const [key, list] of ext)
    await tx.run(`UPDATE roles SET extends = ? WHERE env_id = ? AND key = ? AND resource_id IS NULL`, [
      JSON.stringify(list),
      envId,
      key,
    ]);
  return { created, updated };
}
