import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate, notFound } from '../errors.js';
import { parsePaging, schemaList } from '../paging.js';
import { KEY, NAME, PAGING_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation, type Queryable } from '../store/db.js';
import { pageOf } from '../repo/common.js';
import { elementsConfigRead, findElementsConfig, type ElementsConfigRow } from '../repo/elements.js';

const LEVELS = strictObject(Object.fromEntries(['LEVEL_1', 'LEVEL_2', 'LEVEL_3', 'LEVEL_4'].map((l) => [l, { type: 'array', items: KEY, maxItems: 1000 }])));
const TYPE = { type: 'string', enum: ['user_management', 'approval_flow', 'approval_management', 'audit_log'] } as const;
const FIELDS = { name: NAME, elements_type: TYPE, roles_to_levels: LEVELS, settings: { type: 'object' }, email_notifications: { type: 'boolean' } };

/** Every role named in `roles_to_levels` exists (404 naming the first missing one). */
async function checkRoles(q: Queryable, envId: string, levels: Record<string, string[]>): Promise<void> {
  for (const key of new Set(Object.values(levels).flat())) {
    if (!(await q.get(`SELECT 1 AS x FROM roles WHERE env_id = ? AND key = ?`, [envId, key]))) throw notFound('role', key);
  }
}

type Body = { key?: string; name?: string; elements_type?: string; roles_to_levels?: Record<string, string[]>; settings?: object };

/** User-management element configurations, `/v2/elements/{p}/{e}/config[/{key}]`: they name who reviews. */
export default async function elementsRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/config', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const { rows, total } = await pageOf<ElementsConfigRow>(db, 'elements_configs', 'env_id = ?', [req.env.envId], paging);
    return schemaList(rows.map((r) => elementsConfigRead(r, req.env)), total, paging, req.query as Record<string, unknown>);
  });

  app.post('/config', { schema: { body: strictObject({ key: KEY, ...FIELDS }, ['key', 'name']) } }, async (req) => {
    const b = req.body as Body;
    const at = now().toISOString();
    const id = crypto.randomUUID();
    await db.transaction(async (tx) => {
      await checkRoles(tx, req.env.envId, b.roles_to_levels ?? {});
      try {
        await tx.run(
          `INSERT INTO elements_configs (id, env_id, key, name, elements_type, roles_to_levels, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, req.env.envId, b.key!, b.name!, b.elements_type ?? 'user_management', JSON.stringify(b.roles_to_levels ?? {}), JSON.stringify(b.settings ?? {}), at, at],
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicate('element configuration', b.key!);
        throw err;
      }
    });
    return elementsConfigRead((await db.get<ElementsConfigRow>(`SELECT * FROM elements_configs WHERE id = ?`, [id]))!, req.env);
  });

  app.get('/config/:key', async (req) => elementsConfigRead(await findElementsConfig(db, req.env.envId, (req.params as { key: string }).key), req.env));

  const update = async (req: FastifyRequest) => {
    const b = req.body as Body;
    const row = await db.transaction(async (tx) => {
      const row = await findElementsConfig(tx, req.env.envId, (req.params as { key: string }).key);
      if (b.roles_to_levels) await checkRoles(tx, req.env.envId, b.roles_to_levels);
      await tx.run(`UPDATE elements_configs SET name = ?, elements_type = ?, roles_to_levels = ?, settings = ?, updated_at = ? WHERE id = ?`, [
        b.name ?? row.name,
        b.elements_type ?? row.elements_type,
        b.roles_to_levels ? JSON.stringify(b.roles_to_levels) : row.roles_to_levels,
        b.settings ? JSON.stringify(b.settings) : row.settings,
        now().toISOString(),
        row.id,
      ]);
      return (await tx.get<ElementsConfigRow>(`SELECT * FROM elements_configs WHERE id = ?`, [row.id]))!;
    });
    return elementsConfigRead(row, req.env);
  };
  app.patch('/config/:key', { schema: { body: strictObject(FIELDS) } }, update);
  app.put('/config/:key', { schema: { body: strictObject(FIELDS) } }, update);

  app.delete('/config/:key', async (req, reply) => {
    const row = await findElementsConfig(db, req.env.envId, (req.params as { key: string }).key);
    await db.run(`DELETE FROM elements_configs WHERE id = ?`, [row.id]);
    return reply.status(204).send();
  });
}
