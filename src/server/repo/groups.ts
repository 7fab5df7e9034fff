import { MEMBER_ROLE, sqlText } from '../../rules/names.js';
import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { httpError, notFound } from '../errors.js';
import { parseGroupRef } from '../../rules/groups.js';

/** The membership role's key as an SQL literal (rules/groups.ts: membership is the type's resource role `member`). */
const MEMBER = sqlText(MEMBER_ROLE);

export interface GroupRow {
  id: string;
  instance_id: string;
  key: string;
  type: string;
  type_resource_id: string;
  tenant_id: string;
  tenant_key: string;
  created_at: string;
}

export const GROUP_SELECT = `g.id, g.instance_id, ri.key, res.key AS type, res.id AS type_resource_id, ri.tenant_id, t.key AS tenant_key, g.created_at`;
export const GROUP_FROM = `access_groups g JOIN resource_instances ri ON ri.id = g.instance_id JOIN resources res ON res.id = ri.resource_id
  JOIN tenants t ON t.id = ri.tenant_id`;

export async function findGroup(q: Queryable, envId: string, ref: string): Promise<GroupRow> {
  const { type, key } = parseGroupRef(ref);
  const row = await q.get<GroupRow>(
    `SELECT ${GROUP_SELECT} FROM ${GROUP_FROM} WHERE g.env_id = ? AND res.key = ? AND ri.key = ?`,
    [envId, type, key],
  );
  if (!row) throw notFound('group', `${type}:${key}`);
  return row;
}

/** The public `GroupReadSchema` of the recommended reads: who the group is, nothing more. */
export function groupDirectRead(r: GroupRow) {
  return { id: r.id, group_instance_key: r.key, group_tenant: r.tenant_key, group_resource_type_key: r.type };
}

/** Member ids a full read lists at most (see groupReads). */
export const USERS_IN_READ = 100;

/**
 * The public `GroupRead` of the group writes and the deprecated reads: the group, its grants as
 * `<resource>:<instance>#<role>`, and its members' ids. One query for the page's grants; members are
 * listed up to USERS_IN_READ per group (the first by key): a group of 10,000 members is read in pages
 * through /groups/{key}/users, never in one answer, and a membership write answers in constant size.
 */
export async function groupReads(q: Queryable, rows: GroupRow[]) {
  if (rows.length === 0) return [];
  const marks = rows.map(() => '?').join(', ');
  const ids = rows.map((r) => r.id);
  const grants = await q.all<{ group_id: string; role: string; resource: string; instance: string }>(
    `SELECT gg.group_id, r.key AS role, res.key AS resource, ri.key AS instance FROM group_grants gg JOIN roles r ON r.id = gg.role_id
     JOIN resource_instances ri ON ri.id = gg.resource_instance_id JOIN resources res ON res.id = ri.resource_id
     WHERE gg.group_id IN (${marks}) ORDER BY res.key, ri.key, r.key`,
    ids,
  );
  const byGroup = new Map<string, string[]>();
  for (const g of grants)
    (byGroup.get(g.group_id) ?? byGroup.set(g.group_id, []).get(g.group_id)!).push(
      `${g.resource}:${g.instance}#${g.role}`,
    );
  const users = new Map<string, string[]>();
  for (const r of rows) {
    const members = await q.all<{ id: string }>(
      `SELECT u.id FROM role_assignments ra JOIN roles ro ON ro.id = ra.role_id AND ro.resource_id = ? AND ro.key = ${MEMBER} JOIN users u ON u.id = ra.user_id
       WHERE ra.resource_instance_id = ? ORDER BY u.key LIMIT ${USERS_IN_READ}`,
      [r.type_resource_id, r.instance_id],
    );
    users.set(
      r.id,
      members.map((m) => m.id),
    );
  }
  return rows.map((r) => ({
    group_instance_key: r.key,
    group_tenant: r.tenant_key,
    group_resource_type_key: r.type,
    assigned_roles: byGroup.get(r.id) ?? [],
    users: users.get(r.id)!,
  }));
}

/**
 * Membership, as on the public service: a group type is a resource, and its members hold that type's
 * **resource role** `member` (`team#member`) on the group's instance. Every group write creates the role
 * when it is missing; a client assigning the role key `member` on a group's instance names it too (a role
 * named on an instance is the resource role of the instance's type: repo/role-scope.ts).
 *
 * In SQL, a role row `alias` is a membership role when it is a resource role keyed `member`: on a group's
 * instance a resource role is always of the instance's type (role-scope.ts), so no join to the instance
 * is needed to know it is that type's.
 */
export const IS_MEMBER_ROLE = (alias: string) => `${alias}.key = ${MEMBER} AND ${alias}.resource_id IS NOT NULL`;

/** The membership role of groups of the type `typeResourceId` (`<type>#member`), or undefined. */
export async function memberRoleOf(q: Queryable, typeResourceId: string): Promise<string | undefined> {
  return (
    await q.get<{ id: string }>(`SELECT id FROM roles WHERE resource_id = ? AND key = ${MEMBER}`, [typeResourceId])
  )?.id;
}

/** The same, or 404 (removing a membership needs it). */
export async function findMemberRole(q: Queryable, group: GroupRow): Promise<string> {
  const id = await memberRoleOf(q, group.type_resource_id);
  if (!id)
    throw httpError(
      'NOT_FOUND',
      `role '${group.type}#member' not found (it is created with the first group of type '${group.type}')`,
    );
  return id;
}

/** The membership role of a group type, created when missing (a group write, or a member added after it was deleted). */
export async function ensureMemberRole(
  q: Queryable,
  envId: string,
  typeResourceId: string,
  at: string,
): Promise<string> {
  const there = await memberRoleOf(q, typeResourceId);
  if (there) return there;
  await q.run(
    `INSERT INTO roles (id, env_id, resource_id, key, name, description, permissions, extends, created_at, updated_at)
     VALUES (?, ?, ?, ${MEMBER}, 'Member', 'Membership of a group', '[]', '[]', ?, ?) ON CONFLICT (resource_id, key) WHERE resource_id IS NOT NULL DO NOTHING`,
    [newId(), envId, typeResourceId, at, at],
  );
  return (await memberRoleOf(q, typeResourceId))!;
}
