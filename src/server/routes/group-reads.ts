import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { envelope, parsePaging } from '../paging.js';
import { PAGING_QUERY } from '../schemas.js';
import { findGroup, groupDirectRead, groupReads } from '../repo/groups.js';
import { listGroupGrants, listGroupMembers, listGroups } from '../repo/group-lists.js';
import { pathParams, typed } from './typed.js';

const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    tenant: { type: 'string' },
    resource: { type: 'string' },
    search: { type: 'string' },
    nested: { type: 'boolean' },
  },
} as const;
const GROUP = pathParams('group');

/**
 * Group reads under `/v2/schema/{p}/{e}`: the recommended ones (`groups/direct`, `children`, `parents`,
 * `users`, `roles`; all paged, all the envelope) and the deprecated `GET /groups` and `GET /groups/{key}`.
 */
export default async function groupReadRoutes(base: FastifyInstance, { db }: ServerDeps) {
  const app = typed(base);
  app.get('/groups/direct', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listGroups(db, req.env.envId, req.query, paging);
    return envelope(rows.map(groupDirectRead), total, paging);
  });

  app.get('/groups/direct/:group', { schema: { params: GROUP } }, async (req) =>
    groupDirectRead(await findGroup(db, req.env.envId, req.params.group)),
  );

  for (const as of ['children', 'parents'] as const) {
    app.get(`/groups/:group/${as}`, { schema: { querystring: LIST_QUERY, params: GROUP } }, async (req) => {
      const g = await findGroup(db, req.env.envId, req.params.group);
      const paging = parsePaging(req.query);
      const { rows, total } = await listGroups(db, req.env.envId, req.query, paging, { of: g.id, as });
      return envelope(rows.map(groupDirectRead), total, paging);
    });
  }

  // Members: direct by default; `nested=true` adds the members of every descendant group (membership is
  // transitive), each marked `direct` or `inherited`.
  app.get('/groups/:group/users', { schema: { querystring: LIST_QUERY, params: GROUP } }, async (req) => {
    const paging = parsePaging(req.query);
    const g = await findGroup(db, req.env.envId, req.params.group);
    const page = await listGroupMembers(db, g, req.query.nested === true, paging);
    return page ? envelope(page.rows, page.total, paging) : envelope([], 0, paging);
  });

  app.get('/groups/:group/roles', { schema: { querystring: PAGING_QUERY, params: GROUP } }, async (req) => {
    const paging = parsePaging(req.query);
    const g = await findGroup(db, req.env.envId, req.params.group);
    const { rows, total } = await listGroupGrants(db, g.id, paging);
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
    const { rows } = await listGroups(db, req.env.envId, req.query, parsePaging(req.query));
    return groupReads(db, rows);
  });

  app.get(
    '/groups/:group',
    { schema: { params: GROUP } },
    async (req) => (await groupReads(db, [await findGroup(db, req.env.envId, req.params.group)]))[0],
  );
}
