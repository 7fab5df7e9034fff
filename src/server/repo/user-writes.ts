import type { Queryable } from '../store/db.js';
import { duplicate, notFound } from '../errors.js';
import type { Paging } from '../paging.js';
import { containsPattern, findKeyed, pageOf, whereOf } from './common.js';
import { upsertUser, type UserFields, type UserRow } from './users.js';
import { assignRole, deleteAssignmentsInTenant, type AssignmentInput } from './assignments.js';

/**
 * The users' list and writes (`/users`, `/tenants/{tenant}/users`), each inside the caller's transaction
 * where it writes. Role assignments go through the one assignment path (repo/assignments.ts).
 */

/** A user's fields with the roles to assign it (the public `UserCreate`). */
export type UserInput = UserFields & { role_assignments?: Omit<AssignmentInput, 'user'>[] };

/** The list's filters: `search` in key or email, users in `tenant` (added or assigned there), holding `role`. */
export function listUsers(
  q: Queryable,
  envId: string,
  f: { search?: string; tenant?: string; role?: string },
  paging: Paging,
) {
  const { where, params } = whereOf(
    [
      [
        `(key LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\')`,
        f.search !== undefined ? containsPattern(f.search) : undefined,
      ],
      [
        `id IN (SELECT ra.user_id FROM role_assignments ra JOIN tenants t ON t.id = ra.tenant_id WHERE t.key = ? UNION SELECT tu.user_id FROM tenant_users tu JOIN tenants t ON t.id = tu.tenant_id WHERE t.key = ?)`,
        f.tenant,
      ],
      [`id IN (SELECT ra.user_id FROM role_assignments ra JOIN roles r ON r.id = ra.role_id WHERE r.key = ?)`, f.role],
    ],
    ['env_id = ?'],
    [envId],
  );
  return pageOf<UserRow>(q, 'users', where, params, paging, '*', 'created_at, id', { byCursor: true });
}

/** The users of a tenant: added to it, or holding a role in it. */
export function listTenantUsers(q: Queryable, tenantId: string, paging: Paging) {
  return pageOf<UserRow>(
    q,
    'users',
    `id IN (SELECT user_id FROM tenant_users WHERE tenant_id = ? UNION SELECT user_id FROM role_assignments WHERE tenant_id = ?)`,
    [tenantId, tenantId],
    paging,
  );
}

/** A user by id (one the caller just wrote). */
export async function readUser(q: Queryable, id: string): Promise<UserRow> {
  return (await q.get<UserRow>(`SELECT * FROM users WHERE id = ?`, [id]))!;
}

/**
 * Creates the user (409 when it exists) or, `replace`, creates or replaces it, then assigns its
 * `role_assignments` (existing ones skipped). Returns its id and whether it was created.
 */
export async function writeUser(
  tx: Queryable,
  envId: string,
  b: UserInput,
  at: string,
  replace: boolean,
): Promise<{ id: string; created: boolean; row?: UserRow }> {
  const written = await upsertUser(tx, envId, b, at, replace);
  if (!written.created && !replace) throw duplicate('user', b.key);
  for (const ra of b.role_assignments ?? [])
    await assignRole(tx, envId, { ...ra, user: b.key }, at, { ignoreDuplicate: true });
  return written;
}

/** The user `key` with the fields given replaced (the others stay). */
export async function updateUser(
  q: Queryable,
  envId: string,
  key: string,
  b: Omit<UserFields, 'key'>,
  at: string,
): Promise<UserRow> {
  const row = await findKeyed<UserRow>(q, 'users', envId, key, 'user');
  await q.run(
    `UPDATE users SET email = ?, first_name = ?, last_name = ?, attributes = ?, updated_at = ? WHERE id = ?`,
    [
      b.email !== undefined ? b.email : row.email,
      b.first_name !== undefined ? b.first_name : row.first_name,
      b.last_name !== undefined ? b.last_name : row.last_name,
      b.attributes !== undefined ? JSON.stringify(b.attributes) : row.attributes,
      at,
      row.id,
    ],
  );
  return readUser(q, row.id);
}

/** Deletes the user `key`: their memberships and role assignments go with them (cascade). */
export async function deleteUser(q: Queryable, envId: string, key: string): Promise<void> {
  const row = await findKeyed<UserRow>(q, 'users', envId, key, 'user');
  await q.run(`DELETE FROM users WHERE id = ?`, [row.id]);
}

/**
 * "Create and add": the user (created when missing) joins the tenant, and is assigned its
 * `role_assignments` there (a tenant left out is this one). Returns the user.
 */
export async function addUserToTenant(
  tx: Queryable,
  envId: string,
  tenant: string,
  b: UserInput,
  at: string,
): Promise<UserRow> {
  const t = await findKeyed<{ id: string }>(tx, 'tenants', envId, tenant, 'tenant');
  const { id, row } = await upsertUser(tx, envId, b, at, false);
  await tx.run(
    `INSERT INTO tenant_users (tenant_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT (tenant_id, user_id) DO NOTHING`,
    [t.id, id, at],
  );
  for (const ra of b.role_assignments ?? [])
    await assignRole(tx, envId, { tenant, ...ra, user: b.key }, at, { ignoreDuplicate: true });
  return row ?? readUser(tx, id);
}

/** Removes the user from the tenant, with their roles (and so group memberships) in it; 404 when not in it. */
export async function removeUserFromTenant(tx: Queryable, envId: string, tenant: string, user: string): Promise<void> {
  const t = await findKeyed<{ id: string }>(tx, 'tenants', envId, tenant, 'tenant');
  const u = await findKeyed<{ id: string }>(tx, 'users', envId, user, 'user');
  const a = await tx.run(`DELETE FROM tenant_users WHERE tenant_id = ? AND user_id = ?`, [t.id, u.id]);
  const removed = await deleteAssignmentsInTenant(tx, t.id, u.id);
  if (a.changes + removed === 0) throw notFound('user in tenant', `${user}@${tenant}`);
}
