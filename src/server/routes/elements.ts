import type { FastifyInstance } from 'fastify';
import type { EnvContext, ServerDeps } from '../context.js';
import { parsePaging, schemaList } from '../paging.js';
import { KEY, NAME, PAGING_QUERY, strictObject } from '../schemas.js';
import { elementsConfigReads, findElementsConfig } from '../repo/elements.js';
import {
  createElementsConfig,
  deleteElementsConfig,
  listElementsConfigs,
  readElementsConfig,
  updateElementsConfig,
} from '../repo/elements-writes.js';
import { pathParams, typed } from './typed.js';

// Roles by key or id (an id is 36 characters; keys are checked for existing roles).
const ROLE_REF = { type: 'string', minLength: 1, maxLength: 256 } as const;
// The public `roles_to_levels` is a map (level → roles): its entries are no optional fields, so `null`
// for one is refused as the public schema refuses it (validation.ts, `x-map`).
const ROLE_REFS = { type: 'array', items: ROLE_REF, maxItems: 1000 } as const;
const LEVELS = {
  ...strictObject({ LEVEL_1: ROLE_REFS, LEVEL_2: ROLE_REFS, LEVEL_3: ROLE_REFS, LEVEL_4: ROLE_REFS }),
  'x-map': true,
} as const;
const TYPE = {
  type: 'string',
  enum: ['user_management', 'audit_log', 'approval_flow', 'operation_approval', 'approval_management'],
} as const;
/** The public settings: a flat map of numbers, strings and booleans. */
const SETTINGS = {
  type: 'object',
  maxProperties: 1000,
  additionalProperties: { anyOf: [{ type: 'integer' }, { type: 'string', maxLength: 10_000 }, { type: 'boolean' }] },
} as const;
// `email_notifications` is accepted as the public API does, and has no effect: this server sends no email.
const FIELDS = {
  name: NAME,
  elements_type: TYPE,
  roles_to_levels: LEVELS,
  settings: SETTINGS,
  email_notifications: { type: 'boolean' },
} as const;

const CREATE = strictObject({ key: KEY, ...FIELDS }, ['key', 'name', 'elements_type', 'settings', 'roles_to_levels']);
const UPDATE = strictObject(FIELDS, ['roles_to_levels']);
const KEY_PARAM = pathParams('key');

/**
 * User-management element configurations: they name who reviews access requests.
 * `/v2/elements/{p}/{e}/config[/{key}]` (list, create, read, update) and, as on the public service,
 * `DELETE /v2/elements/{p}/{e}/{key}`.
 */
export default async function elementsRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  const read = async (env: EnvContext, id: string) =>
    (await elementsConfigReads(db, env, [await readElementsConfig(db, id)]))[0];

  app.get('/config', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listElementsConfigs(db, req.env.envId, paging);
    return schemaList(await elementsConfigReads(db, req.env, rows), total, paging, req.query);
  });

  // Required as on the public service (`ElementsConfigCreate`, `ElementsConfigUpdate`).
  app.post('/config', { schema: { body: CREATE } }, async (req) => {
    const at = now().toISOString();
    const id = await db.transaction((tx) => createElementsConfig(tx, req.env.envId, req.body, at));
    return read(req.env, id);
  });

  app.get(
    '/config/:key',
    { schema: { params: KEY_PARAM } },
    async (req) =>
      (await elementsConfigReads(db, req.env, [await findElementsConfig(db, req.env.envId, req.params.key)]))[0],
  );

  app.patch('/config/:key', { schema: { body: UPDATE, params: KEY_PARAM } }, async (req) => {
    const at = now().toISOString();
    const id = await db.transaction((tx) => updateElementsConfig(tx, req.env.envId, req.params.key, req.body, at));
    return read(req.env, id);
  });

  // The public delete sits beside `config`, not under it. Deleting a configuration deletes its access
  // requests (cascade).
  app.delete('/:key', { schema: { params: KEY_PARAM } }, async (req, reply) => {
    await deleteElementsConfig(db, req.env.envId, req.params.key);
    return reply.status(204).send();
  });
}
