import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { duplicate, httpError } from '../errors.js';
import { findKeyed, findKeyedOrNull } from './common.js';
import { insertUsers, upsertUser, userIdsByKey } from './users.js';
import { assignRole, findInstanceOrNull } from './assignments.js';
import type { UserInput } from './user-writes.js';

/**
 * The public bulk writes (`/bulk/users`, `/bulk/tenants`, `/bulk/resource_instances`), each inside the
 * caller's one transaction: whole or nothing. Creating something that exists fails (409); deleting
 * something missing skips it, so a repeated delete converges.
 */

/**
 * Creates the users (`replace`: or replaces them), many rows per statement; replacements update one user
 * each. Then their role assignments (existing ones skipped). A replace naming a user twice: the last wins.
 */
export async function writeUsers(tx: Queryable, envId: string, given: UserInput[], at: string, replace: boolean) {
  const ops = [...new Map(given.map((u) => [u.key, u])).values()];
  const existing = await userIdsByKey(
    tx,
    envId,
    ops.map((u) => u.key),
  );
  if (!replace) {
    const taken = ops.find((u) => existing.has(u.key));
    if (taken) throw duplicate('user', taken.key);
  }
  const lost = await insertUsers(
    tx,
    envId,
    ops.filter((u) => !existing.has(u.key)),
    at,
  );
  if (!replace && lost.length > 0) throw duplicate('user', lost[0]);
  const replaced = new Set([...existing.keys(), ...lost]);
  for (const u of ops) if (replaced.has(u.key)) await upsertUser(tx, envId, u, at, true);
  for (const u of ops)
    for (const ra of u.role_assignments ?? [])
      await assignRole(tx, envId, { ...ra, user: u.key }, at, { ignoreDuplicate: true });
}

/** Deletes each user or tenant named (key or id) that exists: what hangs on it goes too (cascade). */
export async function deleteKeyed(tx: Queryable, envId: string, table: 'users' | 'tenants', idents: string[]) {
  for (const ident of idents) {
    const row = await findKeyedOrNull<{ id: string }>(tx, table, envId, ident);
    if (row) await tx.run(`DELETE FROM ${table} WHERE id = ?`, [row.id]);
  }
}

type TenantInput = { key: string; name: string; description?: string | null; attributes?: Record<string, unknown> };

/** Creates the tenants; one that exists fails the call (409). */
export async function createTenants(tx: Queryable, envId: string, ops: TenantInput[], at: string) {
  for (const t of ops) {
    if (await tx.get(`SELECT 1 AS x FROM tenants WHERE env_id = ? AND key = ?`, [envId, t.key]))
      throw duplicate('tenant', t.key);
    await tx.run(
      `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [newId(), envId, t.key, t.name, t.description ?? null, JSON.stringify(t.attributes ?? {}), at, at],
    );
  }
}

/** Deletes each instance named (`type:key` or id) that exists: its assignments, tuples, grants and group go too. */
export async function deleteInstances(tx: Queryable, envId: string, refs: string[]) {
  for (const ref of refs) {
    const inst = await findInstanceOrNull(tx, envId, ref);
    if (inst) await tx.run(`DELETE FROM resource_instances WHERE id = ?`, [inst.id]);
  }
}

type InstanceInput = { key: string; tenant: string; resource: string; attributes?: Record<string, unknown> };

/** Creates the instance, or replaces its attributes. Its tenant never changes (its grants live in it). */
export async function upsertInstance(tx: Queryable, envId: string, i: InstanceInput, at: string): Promise<void> {
  const res = await findKeyed<{ id: string }>(tx, 'resources', envId, i.resource, 'resource');
  const tenant = await findKeyed<{ id: string }>(tx, 'tenants', envId, i.tenant, 'tenant');
  const existing = await findInstanceOrNull(tx, envId, `${i.resource}:${i.key}`);
  if (existing) {
    if (existing.tenant_id !== tenant.id) {
      throw httpError(
        'MISMATCH_RESOURCE_INSTANCES_TENANTS',
        `resource instance '${i.resource}:${i.key}' is in tenant '${existing.tenant_key}', not '${i.tenant}'`,
      );
    }
    await tx.run(`UPDATE resource_instances SET attributes = ?, updated_at = ? WHERE id = ?`, [
      JSON.stringify(i.attributes ?? {}),
      at,
      existing.id,
    ]);
    return;
  }
  await tx.run(
    `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [newId(), envId, res.id, i.key, tenant.id, JSON.stringify(i.attributes ?? {}), at, at],
  );
}
