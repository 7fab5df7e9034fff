import type { FastifyInstance } from 'fastify';
import type { EnvContext, ServerDeps } from '../context.js';
import { parsePaging } from '../paging.js';
import { KEY, PAGING_QUERY, TEXT, strictObject } from '../schemas.js';
import { ATTRIBUTE_TYPES } from './resources.js';
import {
  attributeOwner,
  createAttribute,
  deleteAttribute,
  getAttribute,
  listAttributes,
  updateAttribute,
  type AttributeBody,
} from '../repo/abac-attributes.js';
import { pathParams, typed } from './typed.js';

const TYPE = { type: 'string', enum: ATTRIBUTE_TYPES } as const;
/** The public `ResourceAttributeCreate` / `ResourceAttributeUpdate`. */
const CREATE = strictObject({ key: KEY, type: TYPE, description: TEXT }, ['key', 'type']);
const UPDATE = strictObject({ type: TYPE, description: TEXT });
const SEGMENT = { type: 'string', minLength: 1, maxLength: 256 } as const;
const USER_QUERY = { type: 'object', properties: { ...PAGING_QUERY.properties, resource_id: SEGMENT } } as const;
const ATTR = pathParams('attr');
const KEY_PARAM = pathParams('key');
const KEY_ATTR = pathParams('key', 'attr');

/**
 * Attribute definitions: a resource's at `/resources/{r}/attributes[/{key}]`, the users' at
 * `/users/attributes[/{key}]` (the built-in resource `__user`; query `resource_id` names another), the
 * tenants' at `/resources/__tenant/attributes` (repo/abac-attributes.ts). Lists are bare arrays.
 */
export default async function attributeRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  const list = async (env: EnvContext, ownerKey: string, query: unknown) => {
    const paging = parsePaging(query);
    const owner = await attributeOwner(db, env.envId, ownerKey);
    return (await listAttributes(db, env, owner)).slice(paging.offset, paging.offset + paging.perPage);
  };
  const create = (env: EnvContext, ownerKey: string, body: AttributeBody) =>
    db.transaction(async (tx) =>
      createAttribute(tx, env, await attributeOwner(tx, env.envId, ownerKey), body, now().toISOString()),
    );
  const get = async (env: EnvContext, ownerKey: string, attr: string) =>
    getAttribute(db, env, await attributeOwner(db, env.envId, ownerKey), attr);
  const update = (env: EnvContext, ownerKey: string, attr: string, body: AttributeBody) =>
    db.transaction(async (tx) =>
      updateAttribute(tx, env, await attributeOwner(tx, env.envId, ownerKey), attr, body, now().toISOString()),
    );
  const remove = (env: EnvContext, ownerKey: string, attr: string) =>
    db.transaction(async (tx) =>
      deleteAttribute(tx, env, await attributeOwner(tx, env.envId, ownerKey), attr, now().toISOString()),
    );

  // The users' attributes: the built-in resource `__user`, or the one the query's `resource_id` names.
  const userOwner = (query: { resource_id?: string }) => query.resource_id ?? '__user';
  app.get('/users/attributes', { schema: { querystring: USER_QUERY } }, (req) =>
    list(req.env, userOwner(req.query), req.query),
  );
  app.post('/users/attributes', { schema: { body: CREATE, querystring: USER_QUERY } }, (req) =>
    create(req.env, userOwner(req.query), req.body),
  );
  app.get('/users/attributes/:attr', { schema: { querystring: USER_QUERY, params: ATTR } }, (req) =>
    get(req.env, userOwner(req.query), req.params.attr),
  );
  app.patch('/users/attributes/:attr', { schema: { body: UPDATE, querystring: USER_QUERY, params: ATTR } }, (req) =>
    update(req.env, userOwner(req.query), req.params.attr, req.body),
  );
  app.delete('/users/attributes/:attr', { schema: { querystring: USER_QUERY, params: ATTR } }, async (req, reply) => {
    await remove(req.env, userOwner(req.query), req.params.attr);
    return reply.status(204).send();
  });

  app.get('/resources/:key/attributes', { schema: { querystring: PAGING_QUERY, params: KEY_PARAM } }, (req) =>
    list(req.env, req.params.key, req.query),
  );
  app.post('/resources/:key/attributes', { schema: { body: CREATE, params: KEY_PARAM } }, (req) =>
    create(req.env, req.params.key, req.body),
  );
  app.get('/resources/:key/attributes/:attr', { schema: { params: KEY_ATTR } }, (req) =>
    get(req.env, req.params.key, req.params.attr),
  );
  app.patch('/resources/:key/attributes/:attr', { schema: { body: UPDATE, params: KEY_ATTR } }, (req) =>
    update(req.env, req.params.key, req.params.attr, req.body),
  );
  app.delete(
    '/resources/:key/attributes/:attr',
    { schema: { querystring: PAGING_QUERY, params: KEY_ATTR } },
    async (req, reply) => {
      await remove(req.env, req.params.key, req.params.attr);
      return reply.status(204).send();
    },
  );
}
