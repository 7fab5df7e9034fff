import type { FastifyInstance } from 'fastify';
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
  type ActionBody,
} from '../repo/resource-actions.js';

const FIELDS = { name: { type: 'string', maxLength: 1024 }, description: TEXT, attributes: { type: 'object' } };
const CREATE = strictObject({ key: KEY, ...FIELDS }, ['key', 'name']);
const UPDATE = strictObject(FIELDS);

type Params = { resource: string; action: string };

/**
 * A resource's actions one by one: `/v2/schema/{p}/{e}/resources/{resource_id}/actions[/{action_id}]`.
 * The list is in the order the resource holds them and takes the `attr_<name>` filter
 * (repo/attribute-filter.ts).
 */
export default async function resourceActionRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/resources/:resource/actions', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const query = req.query as Record<string, unknown>;
    const paging = parsePaging(query);
    const { row, actions } = await readActions(db, req.env.envId, (req.params as Params).resource);
    const filters = attributeFilters(query);
    return Object.entries(actions)
      .filter(([, a]) => matchesAttributes(a.attributes ?? {}, filters))
      .slice(paging.offset, paging.offset + paging.perPage)
      .map(([k, a]) => actionRead(row, k, a, req.env));
  });

  app.get('/resources/:resource/actions/:action', async (req) => {
    const { resource, action } = req.params as Params;
    const { row, actions } = await readActions(db, req.env.envId, resource);
    const key = actionKeyOf(row, actions, action);
    return actionRead(row, key, actions[key], req.env);
  });

  app.post('/resources/:resource/actions', { schema: { body: CREATE } }, async (req) => {
    const at = now().toISOString();
    const made = await db.transaction((tx) =>
      createAction(tx, req.env.envId, (req.params as Params).resource, req.body as ActionBody, at),
    );
    return actionRead(made.row, made.key, made.action, req.env);
  });

  app.patch('/resources/:resource/actions/:action', { schema: { body: UPDATE } }, async (req) => {
    const { resource, action } = req.params as Params;
    const at = now().toISOString();
    const made = await db.transaction((tx) =>
      updateAction(tx, req.env.envId, resource, action, req.body as ActionBody, at),
    );
    return actionRead(made.row, made.key, made.action, req.env);
  });

  app.delete('/resources/:resource/actions/:action', async (req, reply) => {
    const { resource, action } = req.params as Params;
    const at = now().toISOString();
    await db.transaction((tx) => deleteAction(tx, req.env.envId, resource, action, at));
    return reply.status(204).send();
  });
}
