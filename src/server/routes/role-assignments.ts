import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging, schemaList } from '../paging.js';
import { INSTANCE_REF, KEY, PAGING_QUERY, USER_KEY, strictObject } from '../schemas.js';
import { pageOf, whereOf, splitRef } from '../repo/common.js';
import {
  ASSIGNMENT_FROM, ASSIGNMENT_SELECT, assignRole, assignmentRead, unassignRole, type AssignmentInput, type AssignmentRow,
} from '../repo/assignments.js';
import { invalid } from '../errors.js';

const ASSIGNMENT = strictObject({ user: USER_KEY, role: KEY, tenant: KEY, resource_instance: INSTANCE_REF }, ['user', 'role']);
/** Bulk calls take up to this many assignments; each call is applied whole or not at all. */
export const BULK_MAX = 1000;
const BULK = { type: 'array', items: ASSIGNMENT, maxItems: BULK_MAX } as const;
const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    user: { type: 'string' }, role: { type: 'string' }, tenant: { type: 'string' },
    resource: { type: 'string' }, resource_instance: { type: 'string' },
  },
};

/** Role assignments: `/v2/facts/{p}/{e}/role_assignments` (list up to 1000 a page, create, delete, bulk). */
export default async function roleAssignmentRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/role_assignments', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const query = req.query as Record<string, string | undefined>;
    const paging = parsePaging(query, 1000);
    const instance = query.resource_instance !== undefined ? splitRef(query.resource_instance) : undefined;
    if (query.resource_instance !== undefined && !instance) throw invalid(['query', 'resource_instance'], 'expected <resource>:<instance key>');
    const { where, params } = whereOf(
      [
        ['u.key = ?', query.user],
        ['r.key = ?', query.role],
        ['t.key = ?', query.tenant],
        ['res.key = ?', instance ? instance[0] : query.resource],
        ['ri.key = ?', instance?.[1]],
      ],
      ['ra.env_id = ?'],
      [req.env.envId],
    );
    const { rows, total } = await pageOf<AssignmentRow>(db, ASSIGNMENT_FROM, where, params, paging, ASSIGNMENT_SELECT, 'ra.created_at, ra.id');
    return schemaList(rows.map((r) => assignmentRead(r, req.env)), total, paging, query);
  });

  app.post('/role_assignments', { schema: { body: ASSIGNMENT } }, async (req) => {
    const at = now().toISOString();
    const { id } = await db.transaction((tx) => assignRole(tx, req.env.envId, req.body as AssignmentInput, at));
    const row = await db.get<AssignmentRow>(`SELECT ${ASSIGNMENT_SELECT} FROM ${ASSIGNMENT_FROM} WHERE ra.id = ?`, [id]);
    return assignmentRead(row!, req.env);
  });

  app.delete('/role_assignments', { schema: { body: ASSIGNMENT } }, async (req, reply) => {
    await db.transaction((tx) => unassignRole(tx, req.env.envId, req.body as AssignmentInput));
    return reply.status(204).send();
  });

  // Bulk: whole or nothing. Existing assignments are skipped (and missing ones on delete), so a
  // retried or repeated bulk call converges instead of failing.
  app.post('/role_assignments/bulk', { schema: { body: BULK } }, async (req) => {
    const at = now().toISOString();
    const items = req.body as AssignmentInput[];
    const created = await db.transaction(async (tx) => {
      let n = 0;
      for (const a of items) if ((await assignRole(tx, req.env.envId, a, at, { ignoreDuplicate: true })).created) n++;
      return n;
    });
    return { assignments_created: created, assignments_existing: items.length - created };
  });

  app.delete('/role_assignments/bulk', { schema: { body: BULK } }, async (req) => {
    const items = req.body as AssignmentInput[];
    const removed = await db.transaction(async (tx) => {
      let n = 0;
      for (const a of items) if (await unassignRole(tx, req.env.envId, a, { ignoreMissing: true })) n++;
      return n;
    });
    return { assignments_removed: removed };
  });
}
