import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { envelope, parsePaging } from '../paging.js';
import { PAGING_QUERY } from '../schemas.js';
import { containsPattern, pageOf, whereOf } from '../repo/common.js';
import {
  findGroup,
  groupDirectRead,
  groupReads,
  memberRoleOf,
  GROUP_FROM,
  GROUP_SELECT,
  IS_MEMBER_ROLE,
  type GroupRow,
} from '../repo/groups.js';

const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    tenant: { type: 'string' },
    resource: { type: 'string' },
    search: { type: 'string' },
    nested: { type: 'boolean' },
  },
};

/**
 * Group reads under `/v2/schema/{p}/{e}`: the recommended ones (`groups/direct`, `children`, `parents`,
 * `users`, `roles`; all paged, all the envelope) and the deprecated `GET /groups` and `GET /groups/{key}`.
 */
export default async function groupReadRoutes(app: FastifyInstance, { db }: ServerDeps) {
  const listGroups = async (
    env: import('../context.js').EnvContext,
    query: Record<string, string | undefined>,
    extra: [string, string][] = [],
  ) => {
    const paging = parsePaging(query);
    const { where, params } = whereOf(
      [
        ['t.key = ?', query.tenant],
        ['res.key = ?', query.resource],
        [
          `(res.key || ':' || ri.key) LIKE ? ESCAPE '\\'`,
          query.search !== undefined ? containsPattern(query.search) : undefined,
        ],
        ...extra,
      ],
      ['g.env_id = ?'],
      [env.envId],
    );
    const { rows, total } = await pageOf<GroupRow>(
      db,
      GROUP_FROM,
      where,
      params,
      paging,
      GROUP_SELECT,
      'g.created_at, g.id',
      { byCursor: true },
    );
    return { paging, rows, total };
  };

  app.get('/groups/direct', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const { paging, rows, total } = await listGroups(req.env, req.query as Record<string, string | undefined>);
    return envelope(rows.map(groupDirectRead), total, paging);
  });

  app.get('/groups/direct/:group', async (req) => {
    const { group } = req.params as { group: string };
    return groupDirectRead(await findGroup(db, req.env.envId, group));
  });

  app.get('/groups/:group/children', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const g = await findGroup(db, req.env.envId, (req.params as { group: string }).group);
    const { paging, rows, total } = await listGroups(req.env, req.query as Record<string, string | undefined>, [
      ['g.id IN (SELECT child_id FROM group_links WHERE parent_id = ?)', g.id],
    ]);
    return envelope(rows.map(groupDirectRead), total, paging);
  });

  app.get('/groups/:group/parents', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const g = await findGroup(db, req.env.envId, (req.params as { group: string }).group);
    const { paging, rows, total } = await listGroups(req.env, req.query as Record<string, string | undefined>, [
      ['g.id IN (SELECT parent_id FROM group_links WHERE child_id = ?)', g.id],
    ]);
    return envelope(rows.map(groupDirectRead), total, paging);
  });

  // Members: direct by default; `nested=true` adds the members of every descendant group (membership is
  // transitive), each marked `direct` or `inherited`.
  app.get('/groups/:group/users', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const query = req.query as Record<string, unknown>;
    const paging = parsePaging(query);
    const g = await findGroup(db, req.env.envId, (req.params as { group: string }).group);
    const nested = query.nested === true;
    // Membership is the group type's resource role `member` on the group's instance (repo/groups.ts).
    // Directly: filtering on its id lets (resource_instance_id, role_id, user_id) answer from the index
    // alone, with no DISTINCT (a user holds a role on an instance at most once).
    const member = await memberRoleOf(db, g.type_resource_id);
    if (!member) return envelope([], 0, paging);
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
    const { rows, total } = await pageOf<{ id: string; key: string }>(
      db,
      from,
      where,
      params,
      paging,
      'u.id, u.key',
      'u.key, u.id',
    );
    return envelope(rows, total, paging);
  });

  app.get('/groups/:group/roles', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const g = await findGroup(db, req.env.envId, (req.params as { group: string }).group);
    const { rows, total } = await pageOf<{
      id: string;
      role: string;
      res_id: string;
      res_key: string;
      inst_id: string;
      inst_key: string;
      tenant: string;
      created_at: string;
    }>(
      db,
      `group_grants gg JOIN roles r ON r.id = gg.role_id JOIN resource_instances ri ON ri.id = gg.resource_instance_id
       JOIN resources res ON res.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id`,
      'gg.group_id = ?',
      [g.id],
      paging,
      'gg.id, r.key AS role, res.id AS res_id, res.key AS res_key, ri.id AS inst_id, ri.key AS inst_key, t.key AS tenant, gg.created_at',
      'gg.created_at, gg.id',
    );
    // The public `GroupRoleReadSchema`: the role's key, and the resource and instance it is on.
    return envelope(
      rows.map((r) => ({
        key: r.role,
        resource: { id: r.res_id, key: r.res_key },
        resource_instance: { id: r.inst_id, key: r.inst_key },
      })),
      total,
      paging,
    );
  });

  // Deprecated reads: still answered, as on the public service (bare array, and the full group read).
  app.get('/groups', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const { rows } = await listGroups(req.env, req.query as Record<string, string | undefined>);
    return groupReads(db, rows);
  });

  app.get('/groups/:group', async (req) => {
    const { group } = req.params as { group: string };
    return (await groupReads(db, [await findGroup(db, req.env.envId, group)]))[0];
  });
}
