import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate } from '../errors.js';
import { parsePaging, schemaList } from '../paging.js';
import { KEY, NAME, PAGING_QUERY, TEXT, strictObject } from '../schemas.js';
import { isUniqueViolation } from '../store/db.js';
import { findKeyed, pageOf, parseJson } from '../repo/common.js';
import { resourceReads } from '../repo/resource-roles.js';
import { pruneRolePermissions, withIds, type Actions, type Attributes, type ResourceRow } from '../repo/resources.js';

const ACTIONS = {
  type: 'object',
  maxProperties: 1000,
  propertyNames: KEY,
  additionalProperties: strictObject({ name: { type: 'string', maxLength: 1024 }, description: TEXT, attributes: { type: 'object' } }),
} as const;
/** The public `AttributeBlockEditable`: each attribute a resource's instances may carry, with its type. */
const ATTRIBUTE_TYPES = ['bool', 'number', 'string', 'time', 'array', 'json', 'object', 'object_array'];
const ATTRIBUTES = {
  type: 'object',
  maxProperties: 1000,
  propertyNames: KEY,
  additionalProperties: strictObject({ type: { type: 'string', enum: ATTRIBUTE_TYPES }, description: TEXT }, ['type']),
} as const;

const CREATE = strictObject({ key: KEY, name: NAME, description: TEXT, actions: ACTIONS, attributes: ATTRIBUTES }, ['key', 'name', 'actions']);
const REPLACE = strictObject({ name: NAME, description: TEXT, actions: ACTIONS, attributes: ATTRIBUTES }, ['name', 'actions']);
const UPDATE = strictObject({ name: NAME, description: TEXT, actions: ACTIONS, attributes: ATTRIBUTES });

type Body = { key?: string; name?: string; description?: string | null; actions?: Actions; attributes?: Attributes };

/** Resources: `/v2/schema/{p}/{e}/resources[/{key}]`. Deleting one cascades to its instances and strips its permissions from roles. */
export default async function resourceRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/resources', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const { rows, total } = await pageOf<ResourceRow>(db, 'resources', 'env_id = ?', [req.env.envId], paging);
    return schemaList(await resourceReads(db, rows, req.env), total, paging, req.query as Record<string, unknown>);
  });

  app.post('/resources', { schema: { body: CREATE } }, async (req) => {
    const b = req.body as Body;
    const at = now().toISOString();
    const id = crypto.randomUUID();
    try {
      await db.run(
        `INSERT INTO resources (id, env_id, key, name, description, actions, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, req.env.envId, b.key!, b.name!, b.description ?? null, JSON.stringify(withIds(b.actions ?? {})), JSON.stringify(withIds(b.attributes ?? {})), at, at],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate('resource', b.key!);
      throw err;
    }
    return (await resourceReads(db, [(await db.get<ResourceRow>(`SELECT * FROM resources WHERE id = ?`, [id]))!], req.env))[0];
  });

  app.get('/resources/:key', async (req) => {
    const { key } = req.params as { key: string };
    return (await resourceReads(db, [await findKeyed<ResourceRow>(db, 'resources', req.env.envId, key, 'resource')], req.env))[0];
  });

  const update = (replace: boolean) => async (req: import('fastify').FastifyRequest) => {
    const { key } = req.params as { key: string };
    const b = req.body as Body;
    const at = now().toISOString();
    const row = await db.transaction(async (tx) => {
      const row = await findKeyed<ResourceRow>(tx, 'resources', req.env.envId, key, 'resource');
      const before = { actions: parseJson<Actions>(row.actions, {}), attributes: parseJson<Attributes>(row.attributes, {}) };
      const actions = b.actions ? withIds(b.actions, before.actions) : replace ? {} : before.actions;
      const attributes = b.attributes ? withIds(b.attributes, before.attributes) : replace ? {} : before.attributes;
      await tx.run(`UPDATE resources SET name = ?, description = ?, actions = ?, attributes = ?, updated_at = ? WHERE id = ?`, [
        b.name ?? row.name,
        b.description !== undefined ? b.description : replace ? null : row.description,
        JSON.stringify(actions),
        JSON.stringify(attributes),
        at,
        row.id,
      ]);
      await pruneRolePermissions(tx, req.env.envId, row.key, (a) => Object.hasOwn(actions, a), at);
      return (await tx.get<ResourceRow>(`SELECT * FROM resources WHERE id = ?`, [row.id]))!;
    });
    return (await resourceReads(db, [row], req.env))[0];
  };
  app.patch('/resources/:key', { schema: { body: UPDATE } }, update(false));
  app.put('/resources/:key', { schema: { body: REPLACE } }, update(true));

  app.delete('/resources/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    await db.transaction(async (tx) => {
      const row = await findKeyed<ResourceRow>(tx, 'resources', req.env.envId, key, 'resource');
      await tx.run(`DELETE FROM resources WHERE id = ?`, [row.id]);
      await pruneRolePermissions(tx, req.env.envId, row.key, () => false, now().toISOString());
    });
    return reply.status(204).send();
  });
}
