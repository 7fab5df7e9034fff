import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { duplicate } from '../errors.js';
import { isUniqueViolation } from '../store/db.js';
import { parseJson } from './common.js';
import { checkResourceExtends, resourceRolePermissions } from './role-scope.js';
import type { RoleRow } from './roles.js';

/** The public `RoleBlockEditable` / `ResourceRoleCreate` fields a resource role keeps. */
export interface ResourceRoleBody {
  key?: string;
  name?: string;
  description?: string | null;
  permissions?: string[];
  extends?: string[];
}

export interface OwningResource {
  id: string;
  key: string;
  env_id?: string;
  actions: string;
}

/**
 * Creates or updates several roles of one resource in one go (a resource create or replace with
 * `roles`, or one role's create or patch): permissions checked against the resource's actions, `extends`
 * among the resource's roles (those written here included, in any order) without cycles. A field left
 * out keeps its value on an update (`replace`: is reset). `create`: the role must not exist yet (409).
 */
export async function writeResourceRoles(
  tx: Queryable,
  envId: string,
  resource: OwningResource,
  roles: Record<string, ResourceRoleBody>,
  { at, create = false, replace = false }: { at: string; create?: boolean; replace?: boolean },
): Promise<void> {
  const existing = new Map(
    (await tx.all<RoleRow>(`SELECT * FROM roles WHERE resource_id = ?`, [resource.id])).map((r) => [r.key, r]),
  );
  const extendsChanges = new Map<string, string[]>();
  for (const [key, b] of Object.entries(roles)) {
    const before = existing.get(key);
    if (b.extends !== undefined || !before)
      extendsChanges.set(key, b.extends ?? (before ? parseJson<string[]>(before.extends, []) : []));
    else if (replace) extendsChanges.set(key, []);
  }
  // New roles first (with no extends yet), so that the extends check finds every key written here.
  const checkedExtends = await checkResourceExtends(tx, resource, extendsChanges);
  for (const [key, b] of Object.entries(roles)) {
    const before = existing.get(key);
    if (before && create) throw duplicate('resource role', `${resource.key}#${key}`);
    const permissions =
      b.permissions !== undefined
        ? resourceRolePermissions(resource, b.permissions)
        : before && !replace
          ? parseJson<string[]>(before.permissions, [])
          : [];
    const ext = checkedExtends.get(key) ?? parseJson<string[]>(before?.extends, []);
    if (before) {
      await tx.run(
        `UPDATE roles SET name = ?, description = ?, permissions = ?, extends = ?, updated_at = ? WHERE id = ?`,
        [
          b.name ?? before.name,
          b.description !== undefined ? b.description : replace ? null : before.description,
          JSON.stringify(permissions),
          JSON.stringify(ext),
          at,
          before.id,
        ],
      );
      continue;
    }
    try {
      await tx.run(
        `INSERT INTO roles (id, env_id, resource_id, key, name, description, permissions, extends, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          newId(),
          envId,
          resource.id,
          key,
          b.name ?? key,
          b.description ?? null,
          JSON.stringify(permissions),
          JSON.stringify(ext),
          at,
          at,
        ],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate('resource role', `${resource.key}#${key}`);
      throw err;
    }
  }
}

/**
 * Deletes roles of a resource (their assignments, group grants and derivations go by cascade) and
 * takes their keys out of the other roles' `extends`, so that nothing dangles.
 */
export async function deleteResourceRoles(
  tx: Queryable,
  resourceId: string,
  keys: string[],
  at: string,
): Promise<void> {
  if (keys.length === 0) return;
  for (const key of keys) await tx.run(`DELETE FROM roles WHERE resource_id = ? AND key = ?`, [resourceId, key]);
  const gone = new Set(keys);
  for (const o of await tx.all<{ id: string; extends: string }>(`SELECT id, extends FROM roles WHERE resource_id = ?`, [
    resourceId,
  ])) {
    const ext = parseJson<string[]>(o.extends, []);
    if (ext.some((k) => gone.has(k))) {
      await tx.run(`UPDATE roles SET extends = ?, updated_at = ? WHERE id = ?`, [
        JSON.stringify(ext.filter((k) => !gone.has(k))),
        at,
        o.id,
      ]);
    }
  }
}

/** A resource replaced with `roles`: its roles become exactly those (the others are deleted). */
export async function replaceResourceRoles(
  tx: Queryable,
  envId: string,
  resource: OwningResource,
  roles: Record<string, ResourceRoleBody>,
  at: string,
) {
  const keys = (await tx.all<{ key: string }>(`SELECT key FROM roles WHERE resource_id = ?`, [resource.id])).map(
    (r) => r.key,
  );
  await deleteResourceRoles(
    tx,
    resource.id,
    keys.filter((k) => !Object.hasOwn(roles, k)),
    at,
  );
  await writeResourceRoles(tx, envId, resource, roles, { at, replace: true });
}

/** One page of a resource's roles, in creation order. */
export function listResourceRoles(q: Queryable, resourceId: string, paging: { perPage: number; offset: number }) {
  return q.all<RoleRow>(`SELECT * FROM roles WHERE resource_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`, [
    resourceId,
    paging.perPage,
    paging.offset,
  ]);
}

/**
 * Adds (`add`) or removes some permissions of a resource role without restating the others: an action
 * key, `{resource}:{action}` or an action's id. Adding one the role has, or removing one it lacks, is
 * skipped. Removing: what does not name an action of the resource names nothing the role has.
 */
export async function changeResourceRolePermissions(
  tx: Queryable,
  res: OwningResource,
  role: RoleRow,
  permissions: string[],
  add: boolean,
  at: string,
): Promise<void> {
  const had = parseJson<string[]>(role.permissions, []);
  let next: string[];
  if (add) next = resourceRolePermissions(res, [...had, ...permissions], { byId: true });
  else {
    const names = new Set(
      permissions.flatMap((p) => {
        try {
          return resourceRolePermissions(res, [p], { byId: true });
        } catch {
          return [];
        }
      }),
    );
    next = had.filter((p) => !names.has(p));
  }
  if (next.length !== had.length || next.some((p, i) => p !== had[i]))
    await tx.run(`UPDATE roles SET permissions = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(next), at, role.id]);
}
