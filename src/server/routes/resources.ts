import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging, schemaList } from '../paging.js';
import { KEY, NAME, SEARCH_QUERY, TEXT, strictObject } from '../schemas.js';
import { ROLE_BLOCK } from './resource-roles.js';
import { findKeyed } from '../repo/common.js';
import { resourceReads } from '../repo/resource-roles.js';
import type { ResourceRow } from '../repo/resources.js';
import { createResource, deleteResource, listResources, updateResource } from '../repo/resource-writes.js';
import { pathParams, typed } from './typed.js';

const ACTIONS = {
  type: 'object',
  maxProperties: 1000,
  propertyNames: KEY,
  additionalProperties: strictObject({
    name: { type: 'string', maxLength: 1024 },
    description: TEXT,
    attributes: { type: 'object' },
  }),
} as const;
/** The public `AttributeBlockEditable`: each attribute a resource's instances may carry, with its type. */
export const ATTRIBUTE_TYPES = ['bool', 'number', 'string', 'time', 'array', 'json', 'object', 'object_array'] as const;
const ATTRIBUTES = {
  type: 'object',
  maxProperties: 1000,
  propertyNames: KEY,
  additionalProperties: strictObject({ type: { type: 'string', enum: ATTRIBUTE_TYPES }, description: TEXT }, ['type']),
} as const;

/** `roles`: the resource's own roles by key (the public `RoleBlockEditable`, routes/resource-roles.ts). */
const ROLES = { type: 'object', maxProperties: 1000, propertyNames: KEY, additionalProperties: ROLE_BLOCK } as const;
/** `relations`: relation key -> subject resource key (the public `ResourceCreate.relations`; repo/relations.ts). */
const RELATIONS = { type: 'object', maxProperties: 1000, propertyNames: KEY, additionalProperties: KEY } as const;
const FIELDS = {
  name: NAME,
  urn: { type: 'string', maxLength: 2048 },
  description: TEXT,
  actions: ACTIONS,
  type_attributes: { type: 'object', maxProperties: 1000 },
  attributes: ATTRIBUTES,
  roles: ROLES,
  relations: RELATIONS,
} as const;
const CREATE = strictObject({ key: KEY, ...FIELDS }, ['key', 'name', 'actions']);
const REPLACE = strictObject(FIELDS, ['name', 'actions']);
const UPDATE = strictObject(FIELDS);

const KEY_PARAM = pathParams('key');
const LIST_QUERY = {
  type: 'object',
  properties: { ...SEARCH_QUERY.properties, include_built_in: { type: 'boolean' } },
} as const;

/** Resources: `/v2/schema/{p}/{e}/resources[/{key}]`. Deleting one cascades to its instances and strips its permissions from roles. */
export default async function resourceRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/resources', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listResources(db, req.env.envId, req.query.search, paging);
    return schemaList(await resourceReads(db, rows, req.env), total, paging, req.query);
  });

  // With `roles`, the resource and its roles are written in one transaction: all or nothing.
  app.post('/resources', { schema: { body: CREATE } }, async (req) => {
    const at = now().toISOString();
    const row = await db.transaction((tx) => createResource(tx, req.env.envId, req.body, at));
    return (await resourceReads(db, [row], req.env))[0];
  });

  app.get('/resources/:key', { schema: { params: KEY_PARAM } }, async (req) => {
    const row = await findKeyed<ResourceRow>(db, 'resources', req.env.envId, req.params.key, 'resource');
    return (await resourceReads(db, [row], req.env))[0];
  });

  for (const replace of [false, true]) {
    app.route({
      method: replace ? 'PUT' : 'PATCH',
      url: '/resources/:key',
      schema: { body: replace ? REPLACE : UPDATE, params: KEY_PARAM },
      handler: async (req) => {
        const at = now().toISOString();
        const row = await db.transaction((tx) =>
          updateResource(tx, req.env.envId, req.params.key, req.body, at, replace),
        );
        return (await resourceReads(db, [row], req.env))[0];
      },
    });
  }

  app.delete('/resources/:key', { schema: { params: KEY_PARAM } }, async (req, reply) => {
    await db.transaction((tx) => deleteResource(tx, req.env.envId, req.params.key, now().toISOString()));
    return reply.status(204).send();
  });
}
