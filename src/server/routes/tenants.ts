import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging, schemaList } from '../paging.js';
import { attributeFilters } from '../repo/attribute-filter.js';
import { ATTRIBUTES, KEY, NAME, TEXT, SEARCH_QUERY, strictObject } from '../schemas.js';
import { findKeyed } from '../repo/common.js';
import { createTenant, deleteTenant, listTenants, tenantRead, updateTenant, type TenantRow } from '../repo/tenants.js';
import { pathParams, typed } from './typed.js';

const FIELDS = { name: NAME, description: TEXT, attributes: ATTRIBUTES } as const;
const CREATE = strictObject({ key: KEY, ...FIELDS }, ['key', 'name']);
const UPDATE = strictObject(FIELDS);
const KEY_PARAM = pathParams('key');

/** Tenants: `/v2/facts/{p}/{e}/tenants[/{key}]`. Deleting one cascades to its instances, groups and assignments. */
export default async function tenantRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/tenants', { schema: { querystring: SEARCH_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listTenants(db, req.env.envId, req.query.search, paging, attributeFilters(req.query));
    return schemaList(
      rows.map((r) => tenantRead(r, req.env)),
      total,
      paging,
      req.query,
    );
  });

  app.post('/tenants', { schema: { body: CREATE } }, async (req) =>
    tenantRead(await createTenant(db, req.env.envId, req.body, now().toISOString()), req.env),
  );

  app.get('/tenants/:key', { schema: { params: KEY_PARAM } }, async (req) =>
    tenantRead(await findKeyed<TenantRow>(db, 'tenants', req.env.envId, req.params.key, 'tenant'), req.env),
  );

  app.patch('/tenants/:key', { schema: { body: UPDATE, params: KEY_PARAM } }, async (req) =>
    tenantRead(await updateTenant(db, req.env.envId, req.params.key, req.body, now().toISOString()), req.env),
  );

  app.delete('/tenants/:key', { schema: { params: KEY_PARAM } }, async (req, reply) => {
    await deleteTenant(db, req.env.envId, req.params.key);
    return reply.status(204).send();
  });
}
