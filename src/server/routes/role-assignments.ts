import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { envelope, parsePaging, schemaList } from '../paging.js';
import { INSTANCE_REF, KEY, PAGING_QUERY, USER_KEY, strictObject } from '../schemas.js';
import { detailedAssignmentReads, listAssignments } from '../repo/assignment-lists.js';
import { AssignmentLookups, assignRole, assignmentRead, readAssignment, unassignRole } from '../repo/assignments.js';
import { typed } from './typed.js';

const FIELDS = { user: USER_KEY, role: KEY, tenant: KEY, resource_instance: INSTANCE_REF } as const;
const ASSIGNMENT = strictObject(FIELDS, ['user', 'role']);
/** Removing names the tenant, as the public `RoleAssignmentRemove` requires: no guessing at `default`. */
const REMOVAL = strictObject(FIELDS, ['user', 'role', 'tenant']);
/** Bulk calls take up to this many assignments (the public service's limit); each is applied whole or not at all. */
export const BULK_MAX = 2000;
const BULK = { type: 'array', items: ASSIGNMENT, maxItems: BULK_MAX } as const;
const BULK_REMOVAL = { type: 'array', items: REMOVAL, maxItems: BULK_MAX } as const;
/** The public `user`, `role` and `tenant` filters are arrays: `?role=a&role=b` (one value arrives as a string). */
const KEYS = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }] } as const;
const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    user: KEYS,
    role: KEYS,
    tenant: KEYS,
    resource: { type: 'string' },
    resource_instance: { type: 'string' },
    detailed: { type: 'boolean' },
  },
} as const;

/** Role assignments: `/v2/facts/{p}/{e}/role_assignments` (list and detailed list up to 1000 a page, create, delete, bulk). */
export default async function roleAssignmentRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  // `detailed=true` answers the detailed read model, as `/role_assignments/detailed` does.
  app.get('/role_assignments', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const query = req.query;
    const paging = parsePaging(query, 1000);
    const { rows, total } = await listAssignments(db, req.env.envId, query, paging);
    const items =
      query.detailed === true
        ? await detailedAssignmentReads(db, req.env, rows)
        : rows.map((r) => assignmentRead(r, req.env));
    return schemaList<unknown>(items, total, paging, query);
  });

  app.get('/role_assignments/detailed', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const query = req.query;
    const paging = parsePaging(query, 1000);
    const { rows, total } = await listAssignments(db, req.env.envId, query, paging);
    return envelope(await detailedAssignmentReads(db, req.env, rows), total, paging);
  });

  app.post('/role_assignments', { schema: { body: ASSIGNMENT } }, async (req) => {
    const at = now().toISOString();
    const { id } = await db.transaction((tx) => assignRole(tx, req.env.envId, req.body, at, { createInstance: true }));
    return assignmentRead((await readAssignment(db, id))!, req.env);
  });

  app.delete('/role_assignments', { schema: { body: REMOVAL } }, async (req, reply) => {
    await db.transaction((tx) => unassignRole(tx, req.env.envId, req.body));
    return reply.status(204).send();
  });

  // Bulk: whole or nothing. Existing assignments are skipped (and missing ones on delete), so a
  // retried or repeated bulk call converges instead of failing.
  app.post('/role_assignments/bulk', { schema: { body: BULK } }, async (req) => {
    const at = now().toISOString();
    const items = req.body;
    const created = await db.transaction(async (tx) => {
      let n = 0;
      const memo = await AssignmentLookups.of(tx, req.env.envId, items);
      for (const a of items)
        if ((await assignRole(tx, req.env.envId, a, at, { ignoreDuplicate: true, createInstance: true, memo })).created)
          n++;
      return n;
    });
    return { assignments_created: created };
  });

  app.delete('/role_assignments/bulk', { schema: { body: BULK_REMOVAL } }, async (req) => {
    const items = req.body;
    const removed = await db.transaction(async (tx) => {
      let n = 0;
      const memo = await AssignmentLookups.of(tx, req.env.envId, items);
      for (const a of items) if (await unassignRole(tx, req.env.envId, a, { ignoreMissing: true, memo })) n++;
      return n;
    });
    return { assignments_removed: removed };
  });
}
