import { newId } from '../new-id.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate } from '../errors.js';
import { parsePaging, schemaList } from '../paging.js';
import { KEY, NAME, PAGING_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation } from '../store/db.js';
import { pageOf } from '../repo/common.js';
import {
  elementsConfigReads,
  findElementsConfig,
  resolveLevels,
  type ElementsConfigRow,
  type Levels,
} from '../repo/elements.js';

// Roles by key or id (an id is 36 characters; keys are checked for existing roles).
const ROLE_REF = { type: 'string', minLength: 1, maxLength: 256 } as const;
// The public `roles_to_levels` is a map (level → roles): its entries are no optional fields, so `null`
// for one is refused as the public schema refuses it (validation.ts, `x-map`).
const LEVELS = {
  ...strictObject(
    Object.fromEntries(
      ['LEVEL_1', 'LEVEL_2', 'LEVEL_3', 'LEVEL_4'].map((l) => [l, { type: 'array', items: ROLE_REF, maxItems: 1000 }]),
    ),
  ),
  'x-map': true,
};
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
};

type Body = { key?: string; name?: string; elements_type?: string; roles_to_levels?: Levels; settings?: object };

/**
 * User-management element configurations: they name who reviews access requests.
 * `/v2/elements/{p}/{e}/config[/{key}]` (list, create, read, update) and, as on the public service,
 * `DELETE /v2/elements/{p}/{e}/{key}`.
 */
export default async function elementsRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const read = async (req: FastifyRequest, id: string) =>
    (
      await elementsConfigReads(db, req.env, [
        (await db.get<ElementsConfigRow>(`SELECT * FROM elements_configs WHERE id = ?`, [id]))!,
      ])
    )[0];

  app.get('/config', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const { rows, total } = await pageOf<ElementsConfigRow>(
      db,
      'elements_configs',
      'env_id = ?',
      [req.env.envId],
      paging,
    );
    return schemaList(
      await elementsConfigReads(db, req.env, rows),
      total,
      paging,
      req.query as Record<string, unknown>,
    );
  });

  // Required as on the public service (`ElementsConfigCreate`, `ElementsConfigUpdate`).
  app.post(
    '/config',
    {
      schema: {
        body: strictObject({ key: KEY, ...FIELDS }, ['key', 'name', 'elements_type', 'settings', 'roles_to_levels']),
      },
    },
    async (req) => {
      const b = req.body as Body;
      const at = now().toISOString();
      const id = newId();
      await db.transaction(async (tx) => {
        const levels = await resolveLevels(tx, req.env.envId, b.roles_to_levels ?? {});
        try {
          await tx.run(
            `INSERT INTO elements_configs (id, env_id, key, name, elements_type, roles_to_levels, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [
              id,
              req.env.envId,
              b.key!,
              b.name!,
              b.elements_type ?? 'user_management',
              JSON.stringify(levels),
              JSON.stringify(b.settings ?? {}),
              at,
              at,
            ],
          );
        } catch (err) {
          if (isUniqueViolation(err)) throw duplicate('element configuration', b.key!);
          throw err;
        }
      });
      return read(req, id);
    },
  );

  app.get(
    '/config/:key',
    async (req) =>
      (
        await elementsConfigReads(db, req.env, [
          await findElementsConfig(db, req.env.envId, (req.params as { key: string }).key),
        ])
      )[0],
  );

  app.patch('/config/:key', { schema: { body: strictObject(FIELDS, ['roles_to_levels']) } }, async (req) => {
    const b = req.body as Body;
    const id = await db.transaction(async (tx) => {
      const row = await findElementsConfig(tx, req.env.envId, (req.params as { key: string }).key);
      const levels = b.roles_to_levels
        ? JSON.stringify(await resolveLevels(tx, req.env.envId, b.roles_to_levels))
        : row.roles_to_levels;
      await tx.run(
        `UPDATE elements_configs SET name = ?, elements_type = ?, roles_to_levels = ?, settings = ?, updated_at = ? WHERE id = ?`,
        [
          b.name ?? row.name,
          b.elements_type ?? row.elements_type,
          levels,
          b.settings ? JSON.stringify(b.settings) : row.settings,
          now().toISOString(),
          row.id,
        ],
      );
      return row.id;
    });
    return read(req, id);
  });

  // The public delete sits beside `config`, not under it. Deleting a configuration deletes its access
  // requests (cascade).
  app.delete('/:key', async (req, reply) => {
    const row = await findElementsConfig(db, req.env.envId, (req.params as { key: string }).key);
    await db.run(`DELETE FROM elements_configs WHERE id = ?`, [row.id]);
    return reply.status(204).send();
  });
}
