import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { envelope, parsePaging, schemaList } from '../paging.js';
import { ATTRIBUTES, KEY, PAGING_QUERY, strictObject } from '../schemas.js';
import { findInstance } from '../repo/assignments.js';
import {
  createInstance,
  deleteInstance,
  detailedInstanceReads,
  instanceRead,
  listInstances,
  listInstancesDetailed,
  readInstance,
  updateInstance,
} from '../repo/instances.js';
import { pathParams, typed } from './typed.js';

const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: { ...PAGING_QUERY.properties, tenant: { type: 'string' }, resource: { type: 'string' } },
} as const;
const DETAILED_QUERY = {
  ...LIST_QUERY,
  properties: {
    ...LIST_QUERY.properties,
    search: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }] },
  },
} as const;
const CREATE = strictObject({ key: KEY, tenant: KEY, resource: KEY, attributes: ATTRIBUTES }, [
  'key',
  'tenant',
  'resource',
]);
const UPDATE = strictObject({ attributes: ATTRIBUTES });
const INSTANCE = pathParams('instance');

/**
 * Resource instances, served under both `/v2/facts/...` (the public API) and `/v2/schema/...` (the
 * specification) with the same behaviour. The path names an instance as `type:key` or by id. Deleting
 * one removes its role assignments, tuples and group grants, and the group if it is one (cascade).
 */
export default async function resourceInstanceRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/resource_instances', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listInstances(db, req.env.envId, req.query, paging);
    return schemaList(
      rows.map((r) => instanceRead(r, req.env)),
      total,
      paging,
      req.query,
    );
  });

  // The public detailed list: always the envelope; `tenant` and `resource` by key or id, `search` one or
  // more instance keys or ids (`?search=a&search=b`).
  app.get('/resource_instances/detailed', { schema: { querystring: DETAILED_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listInstancesDetailed(db, req.env.envId, req.query, paging);
    return envelope(await detailedInstanceReads(db, req.env, rows), total, paging);
  });

  app.post('/resource_instances', { schema: { body: CREATE } }, async (req) => {
    const at = now().toISOString();
    const row = await db.transaction((tx) => createInstance(tx, req.env.envId, req.body, at));
    return instanceRead(row, req.env);
  });

  app.get('/resource_instances/:instance', { schema: { params: INSTANCE } }, async (req) => {
    const inst = await findInstance(db, req.env.envId, req.params.instance);
    return instanceRead(await readInstance(db, inst.id), req.env);
  });

  app.patch('/resource_instances/:instance', { schema: { body: UPDATE, params: INSTANCE } }, async (req) => {
    const row = await updateInstance(db, req.env.envId, req.params.instance, req.body.attributes, now().toISOString());
    return instanceRead(row, req.env);
  });

  app.delete('/resource_instances/:instance', { schema: { params: INSTANCE } }, async (req, reply) => {
    await deleteInstance(db, req.env.envId, req.params.instance);
    return reply.status(204).send();
  });
}
