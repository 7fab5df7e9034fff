import type { FastifyInstance } from 'fastify';
import { pathParams, typed } from './typed.js';
import type { ServerDeps } from '../context.js';
import { parsePaging } from '../paging.js';
import { KEY, PAGING_QUERY, TEXT, strictObject } from '../schemas.js';
import { attributeFilters, matchesAttributes } from '../repo/attribute-filter.js';
import {
  actionKeyOf,
  actionRead,
  createAction,
  deleteAction,
  readActions,
  updateAction,
} from '../repo/resource-actions.js';

const FIELDS = {
  name: { type: 'string', maxLength: 1024 },
  description: TEXT,
  attributes: { type: 'object' },
} as const;
const CREATE = strictObject({ key: KEY, ...FIELDS }, ['key', 'name']);
const UPDATE = strictObject(FIELDS);

const RESOURCE = pathParams('resource');
const ACTION = pathParams('resource', 'action');

/**
 * A resource's actions one by one: `/v2/schema/{p}/{e}/resources/{resource_id}/actions[/{action_id}]`.
 * The list is in the order the resource holds them and takes the `attr_<name>` filter
 * (repo/attribute-filter.ts).
 */
export default async function resourceActionRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/resources/:resource/actions', { schema: { querystring: PAGING_QUERY, params: RESOURCE } }, async (req) => {
    const paging = parsePaging(req.query);
    const { row, actions } = await readActions(db, req.env.envId, req.params.resource);
    const filters = attributeFilters(req.query);
    return Object.entries(actions)
      .filter(([, a]) => matchesAttributes(a.attributes ?? {}, filters))
      .slice(paging.offset, paging.offset + paging.perPage)
      .map(([k, a]) => actionRead(row, k, a, req.env));
  });

  app.get('/resources/:resource/actions/:action', { schema: { params: ACTION } }, async (req) => {
    const { resource, action } = req.params;
    const { row, actions } = await readActions(db, req.env.envId, resource);
    const key = actionKeyOf(row, actions, action);
    return actionRead(row, key, actions[key], req.env);
  });

  app.post('/resources/:resource/actions', { schema: { body: CREATE, params: RESOURCE } }, async (req) => {
    const at = now().toISOString();
    const made = await db.transaction((tx) => createAction(tx, req.env.envId, req.params.resource, req.body, at));
    return actionRead(made.row, made.key, made.action, req.env);
  });

  app.patch('/resources/:resource/actions/:action', { schema: { body: UPDATE, params: ACTION } }, async (req) => {
    const { resource, action } = req.params;
    const at = now().toISOString();
    const made = await db.transaction((tx) => updateAction(tx, req.env.envId, resource, action, req.body, at));
    return actionRead(made.row, made.key, made.action, req.env);
  });

  app.delete('/resources/:resource/actions/:action', { schema: { params: ACTION } }, async (req, reply) => {
    const { resource, action } = req.params;
    const at = now().toISOString();
    await db.transaction((tx) => deleteAction(tx, req.env.envId, resource, action, at));
    return reply.status(204).send();
  });
}
