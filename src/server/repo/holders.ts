import { MEMBER_ROLE, sqlText } from '../../rules/names.js';
import { IS_MEMBER_ROLE } from './groups.js';

// The reverse of held-roles.ts: who holds which role on some instances, read for every user at once
// (repo/authorized-users.ts), where held-roles.ts reads one user's roles. The same facts, counted the
// same way: a role assignment naming the instance (direct), a group's grant there reaching every member
// of the group and of every group below it, and a group's own instance giving its type's `member` to
// each of those members.

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * "Below" is held-roles.ts' "above" walked down: a group linked into G (assign_group), or given a
 * membership role on G's instance, has its members counted as G's. One recursive reference, the edges
 * of both kinds read once as a union (the shape held-roles.ts gives PostgreSQL).
 */
const GROUPS_BELOW = `
WITH RECURSIVE member_roles(id) AS (SELECT mr.id FROM roles mr WHERE mr.env_id = ? AND ${IS_MEMBER_ROLE('mr')}),
edges(child, parent) AS (
  SELECT child_id, parent_id FROM group_links
  UNION ALL
  SELECT gg.group_id, ag.id FROM group_grants gg JOIN access_groups ag ON ag.instance_id = gg.resource_instance_id
  WHERE gg.role_id IN (SELECT id FROM member_roles)
),`;

/**
 * Every (user, instance, role, direct) on the `n` instances without derivations, with the user's key.
 * Parameters: env, the n ids, the n ids, the n ids.
 */
export function holdersOnInstancesSql(n: number): string {
  return `${GROUPS_BELOW}
granted(group_id, instance_id, role_id) AS (
  SELECT gg.group_id, gg.resource_instance_id, gg.role_id FROM group_grants gg WHERE gg.resource_instance_id IN (${marks(n)})
  UNION
  SELECT ag.id, ag.instance_id, mr.id FROM access_groups ag JOIN resource_instances gi ON gi.id = ag.instance_id
    JOIN roles mr ON mr.resource_id = gi.resource_id AND mr.key = ${sqlText(MEMBER_ROLE)}
  WHERE ag.instance_id IN (${marks(n)})
),
below(top_id, id) AS (
  SELECT DISTINCT group_id, group_id FROM granted
  UNION
  SELECT b.top_id, e.child FROM below b JOIN edges e ON e.parent = b.id
)
SELECT h.user_id, u.key AS user_key, h.instance_id, h.role_id, h.direct FROM (
  SELECT ra.user_id, g.instance_id, g.role_id, 0 AS direct FROM granted g JOIN below b ON b.top_id = g.group_id
    JOIN access_groups ag ON ag.id = b.id
    JOIN role_assignments ra ON ra.resource_instance_id = ag.instance_id AND ra.role_id IN (SELECT id FROM member_roles)
  UNION
  SELECT user_id, resource_instance_id, role_id, 1 FROM role_assignments WHERE resource_instance_id IN (${marks(n)})
) h JOIN users u ON u.id = h.user_id`;
}
