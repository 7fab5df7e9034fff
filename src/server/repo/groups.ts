import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
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

export const USERS_IN_READ = 100;

/** Direct-read items: the recommended reads' shape, plus the group's grants (one query per page). */
export async function groupReads(q: Queryable, env: EnvContext, rows: GroupRow[], withUsers = false) {
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
  // Full reads list members too, at most USERS_IN_READ of them (sorted by key) with the total beside:
  // a group of 10,000 members is read in pages through /groups/{key}/users, never in one answer.
  const users = new Map<string, { keys: string[]; total: number }>();
  if (withUsers) {
    for (const r of rows) {
      const keys = await q.all<{ key: string }>(
        `SELECT u.key FROM role_assignments ra JOIN roles ro ON ro.id = ra.role_id AND ro.key = 'member' JOIN users u ON u.id = ra.user_id
         WHERE ra.resource_instance_id = ? ORDER BY u.key LIMIT ${USERS_IN_READ}`,
        [r.instance_id],
      );
      const total = keys.length < USERS_IN_READ ? keys.length : Number((await q.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM role_assignments ra JOIN roles ro ON ro.id = ra.role_id AND ro.key = 'member' WHERE ra.resource_instance_id = ?`,
        [r.instance_id],
      ))!.n);
      users.set(r.id, { keys: keys.map((k) => k.key), total });
    }
  }
  return rows.map((r) => ({
    id: r.id,
    group_instance_key: r.key,
    group_tenant: r.tenant_key,
    group_resource_type_key: r.type,
    key: `${r.type}:${r.key}`,
    assigned_roles: byGroup.get(r.id) ?? [],
    ...(withUsers ? { users: users.get(r.id)!.keys, users_total: users.get(r.id)!.total } : {}),
    organization_id: env.orgId,
    project_id: env.projectId,
    environment_id: env.envId,
    created_at: r.created_at,
  }));
}

/** Members are users holding the role `member` on the group's resource instance. */
export async function memberRoleId(q: Queryable, envId: string): Promise<string> {
  const row = await q.get<{ id: string }>(`SELECT id FROM roles WHERE env_id = ? AND key = 'member'`, [envId]);
  if (!row) throw httpError('NOT_FOUND', `role 'member' not found (it is created with the first group)`);
  return row.id;
}
