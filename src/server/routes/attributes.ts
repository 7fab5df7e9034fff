import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
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

const TYPE = { type: 'string', enum: ATTRIBUTE_TYPES } as const;
/** The public `ResourceAttributeCreate` / `ResourceAttributeUpdate`. */
const CREATE = strictObject({ key: KEY, type: TYPE, description: TEXT }, ['key', 'type']);
const UPDATE = strictObject({ type: TYPE, description: TEXT });
const SEGMENT = { type: 'string', minLength: 1, maxLength: 256 } as const;
const USER_QUERY = { type: 'object', properties: { ...PAGING_QUERY.properties, resource_id: SEGMENT } } as const;

/**
 * Attribute definitions: a resource's at `/resources/{r}/attributes[/{key}]`, the users' at
 * `/users/attributes[/{key}]` (the built-in resource `__user`; query `resource_id` names another), the
 * tenants' at `/resources/__tenant/attributes` (repo/abac-attributes.ts). Lists are bare arrays.
 */
export default async function attributeRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const ownerKeyOf = (req: FastifyRequest) =>
    (req.params as { key?: string }).key ?? (req.query as { resource_id?: string }).resource_id ?? '__user';
  const ownerOf = (req: FastifyRequest) => attributeOwner(db, req.env.envId, ownerKeyOf(req));
  const list = async (req: FastifyRequest) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    return (await listAttributes(db, req.env, await ownerOf(req))).slice(paging.offset, paging.offset + paging.perPage);
  };
  const create = async (req: FastifyRequest) =>
    db.transaction(async (tx) =>
      createAttribute(
        tx,
        req.env,
        await attributeOwner(tx, req.env.envId, ownerKeyOf(req)),
        req.body as AttributeBody,
        now().toISOString(),
      ),
    );
  const get = async (req: FastifyRequest) =>
    getAttribute(db, req.env, await ownerOf(req), (req.params as { attr: string }).attr);
  const update = async (req: FastifyRequest) =>
    db.transaction(async (tx) =>
      updateAttribute(
        tx,
        req.env,
        await attributeOwner(tx, req.env.envId, ownerKeyOf(req)),
        (req.params as { attr: string }).attr,
        req.body as AttributeBody,
        now().toISOString(),
      ),
    );
  const remove = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    await db.transaction(async (tx) =>
      deleteAttribute(
        tx,
        req.env,
        await attributeOwner(tx, req.env.envId, ownerKeyOf(req)),
        (req.params as { attr: string }).attr,
        now().toISOString(),
      ),
    );
    return reply.status(204).send();
  };

  app.get('/users/attributes', { schema: { querystring: USER_QUERY } }, list);
  app.post('/users/attributes', { schema: { body: CREATE, querystring: USER_QUERY } }, create);
  app.get('/users/attributes/:attr', { schema: { querystring: USER_QUERY } }, get);
  app.patch('/users/attributes/:attr', { schema: { body: UPDATE, querystring: USER_QUERY } }, update);
  app.delete('/users/attributes/:attr', { schema: { querystring: USER_QUERY } }, remove);

  app.get('/resources/:key/attributes', { schema: { querystring: PAGING_QUERY } }, list);
  app.post('/resources/:key/attributes', { schema: { body: CREATE } }, create);
  app.get('/resources/:key/attributes/:attr', get);
  app.patch('/resources/:key/attributes/:attr', { schema: { body: UPDATE } }, update);
  app.delete('/resources/:key/attributes/:attr', { schema: { querystring: PAGING_QUERY } }, remove);
}
