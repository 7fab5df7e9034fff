import type { Queryable } from '../store/db.js';
import { httpError, notFound } from '../errors.js';
import { parseGroupRef } from '../domain/groups.js';

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
  const row = await q.get<GroupRow>(`SELECT ${GROUP_SELECT} FROM ${GROUP_FROM} WHERE g.env_id = ? AND res.key = ? AND ri.key = ?`, [envId, type, key]);
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
  for (const g of grants) (byGroup.get(g.group_id) ?? byGroup.set(g.group_id, []).get(g.group_id)!).push(`${g.resource}:${g.instance}#${g.role}`);
  const users = new Map<string, string[]>();
  for (const r of rows) {
    const members = await q.all<{ id: string }>(
      `SELECT u.id FROM role_assignments ra JOIN roles ro ON ro.id = ra.role_id AND ro.key = 'member' AND ro.resource_id IS NULL JOIN users u ON u.id = ra.user_id
       WHERE ra.resource_instance_id = ? ORDER BY u.key LIMIT ${USERS_IN_READ}`,
      [r.instance_id],
    );
    users.set(r.id, members.map((m) => m.id));
  }
  return rows.map((r) => ({
    group_instance_key: r.key,
    group_tenant: r.tenant_key,
    group_resource_type_key: r.type,
    assigned_roles: byGroup.get(r.id) ?? [],
    users: users.get(r.id)!,
  }));
}

/** Members are users holding the role `member` on the group's resource instance. */
export async function memberRoleId(q: Queryable, envId: string): Promise<string> {
  const row = await q.get<{ id: string }>(`SELECT id FROM roles WHERE env_id = ? AND key = 'member' AND resource_id IS NULL`, [envId]);
  if (!row) throw httpError('NOT_FOUND', `role 'member' not found (it is created with the first group)`);
  return row.id;
}
