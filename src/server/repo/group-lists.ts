import type { Queryable } from '../store/db.js';
import type { Paging } from '../paging.js';
import { containsPattern, pageOf, whereOf } from './common.js';
import { GROUP_FROM, GROUP_SELECT, IS_MEMBER_ROLE, memberRoleOf, type GroupRow } from './groups.js';

/** The group lists (`/groups/direct`, `children`, `parents`, `users`, `roles`): each one page, by cursor where it can. */

/** The list's filters: `tenant` and type (`resource`) keys, `search` within `type:key`. */
export interface GroupFilters {
  tenant?: string;
  resource?: string;
  search?: string;
}

/** Groups of the environment by the filters; `related`: only the children or the parents of that group. */
export function listGroups(
  q: Queryable,
  envId: string,
  f: GroupFilters,
  paging: Paging,
  related?: { of: string; as: 'children' | 'parents' },
) {
  const link =
    related?.as === 'children'
      ? 'g.id IN (SELECT child_id FROM group_links WHERE parent_id = ?)'
      : 'g.id IN (SELECT parent_id FROM group_links WHERE child_id = ?)';
  const { where, params } = whereOf(
    [
      ['t.key = ?', f.tenant],
      ['res.key = ?', f.resource],
      [`(res.key || ':' || ri.key) LIKE ? ESCAPE '\\'`, f.search !== undefined ? containsPattern(f.search) : undefined],
      ...(related ? [[link, related.of] as [string, string]] : []),
    ],
    ['g.env_id = ?'],
    [envId],
  );
  return pageOf<GroupRow>(q, GROUP_FROM, where, params, paging, GROUP_SELECT, 'g.created_at, g.id', { byCursor: true });
}

/**
 * The group's members, by key: direct, or (`nested`) with the members of every descendant group
 * (membership is transitive). None when the type's `member` role is gone.
 */
export async function listGroupMembers(q: Queryable, g: GroupRow, nested: boolean, paging: Paging) {
  // Membership is the group type's resource role `member` on the group's instance (repo/groups.ts).
  // Directly: filtering on its id lets (resource_instance_id, role_id, user_id) answer from the index
  // alone, with no DISTINCT (a user holds a role on an instance at most once).
  const member = await memberRoleOf(q, g.type_resource_id);
  if (!member) return undefined;
  const from = nested
    ? // Descendants are what /allowed climbs, downwards: linked child groups, and groups given a
      // membership role (`<type>#member`) on a descendant's instance (both make their members members
      // here); each descendant's members hold its own type's `member`.
      `users u JOIN (SELECT DISTINCT ra.user_id FROM role_assignments ra JOIN roles mr ON mr.id = ra.role_id WHERE ${IS_MEMBER_ROLE('mr')} AND ra.resource_instance_id IN (
           WITH RECURSIVE sub(id) AS (
             SELECT ? AS id
             UNION
             SELECT e.child FROM sub JOIN (
               SELECT l.child_id AS child, l.parent_id AS parent FROM group_links l
               UNION ALL
               SELECT gg.group_id AS child, ag.id AS parent FROM group_grants gg JOIN roles gr ON gr.id = gg.role_id
                 JOIN access_groups ag ON ag.instance_id = gg.resource_instance_id
               WHERE ${IS_MEMBER_ROLE('gr')}
             ) e ON e.parent = sub.id)
           SELECT ag.instance_id FROM access_groups ag JOIN sub ON sub.id = ag.id)) m ON m.user_id = u.id`
    : `role_assignments ra JOIN users u ON u.id = ra.user_id`;
  const [where, params] = nested
    ? ['1 = 1', [g.id]]
    : ['ra.resource_instance_id = ? AND ra.role_id = ?', [g.instance_id, member]];
  return pageOf<{ id: string; key: string }>(q, from, where, params, paging, 'u.id, u.key', 'u.key, u.id');
}

/** The group's grants: the role, and the resource and instance it is on. */
export function listGroupGrants(q: Queryable, groupId: string, paging: Paging) {
  return pageOf<{
    id: string;
    role: string;
    res_id: string;
    res_key: string;
    inst_id: string;
    inst_key: string;
    tenant: string;
    created_at: string;
  }>(
    q,
    `group_grants gg JOIN roles r ON r.id = gg.role_id JOIN resource_instances ri ON ri.id = gg.resource_instance_id
     JOIN resources res ON res.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id`,
    'gg.group_id = ?',
    [groupId],
    paging,
    'gg.id, r.key AS role, res.id AS res_id, res.key AS res_key, ri.id AS inst_id, ri.key AS inst_key, t.key AS tenant, gg.created_at',
    'gg.created_at, gg.id',
  );
}
