import { newId } from '../new-id.js';
import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate } from '../errors.js';
import { writeResourceRelations } from '../repo/relations.js';
import { parsePaging, schemaList } from '../paging.js';
import { KEY, NAME, SEARCH_QUERY, TEXT, strictObject } from '../schemas.js';
import { ROLE_BLOCK } from './resource-roles.js';
import { replaceResourceRoles, writeResourceRoles, type ResourceRoleBody } from '../repo/resource-role-writes.js';
import { findKeyed, pageOf, parseJson, searchClause } from '../repo/common.js';
import { resourceReads } from '../repo/resource-roles.js';
import { pruneSetRules } from '../repo/set-rules.js';
import { bumpAbacStamp } from '../repo/abac-stamp.js';
import { pruneRolePermissions, withIds, type Actions, type Attributes, type ResourceRow } from '../repo/resources.js';

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
export const ATTRIBUTE_TYPES = ['bool', 'number', 'string', 'time', 'array', 'json', 'object', 'object_array'];
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
};
const CREATE = strictObject({ key: KEY, ...FIELDS }, ['key', 'name', 'actions']);
const REPLACE = strictObject(FIELDS, ['name', 'actions']);
const UPDATE = strictObject(FIELDS);

type Body = {
  key?: string;
  name?: string;
  urn?: string | null;
  description?: string | null;
  actions?: Actions;
  type_attributes?: Record<string, unknown>;
  attributes?: Attributes;
  roles?: Record<string, ResourceRoleBody>;
  relations?: Record<string, string>;
};

/** Resources: `/v2/schema/{p}/{e}/resources[/{key}]`. Deleting one cascades to its instances and strips its permissions from roles. */
export default async function resourceRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get(
    '/resources',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { ...SEARCH_QUERY.properties, include_built_in: { type: 'boolean' } },
        },
      },
    },
    async (req) => {
      const paging = parsePaging(req.query as Record<string, unknown>);
      const search = searchClause((req.query as { search?: string }).search);
      const { rows, total } = await pageOf<ResourceRow>(
        db,
        'resources',
        `env_id = ?${search.where}`,
        [req.env.envId, ...search.params],
        paging,
      );
      return schemaList(await resourceReads(db, rows, req.env), total, paging, req.query as Record<string, unknown>);
    },
  );

  // With `roles`, the resource and its roles are written in one transaction: all or nothing.
  app.post('/resources', { schema: { body: CREATE } }, async (req) => {
    const b = req.body as Body;
    const at = now().toISOString();
    const id = newId();
    const row = await db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `INSERT INTO resources (id, env_id, key, name, urn, description, actions, type_attributes, attributes, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [
          id,
          req.env.envId,
          b.key!,
          b.name!,
          b.urn ?? null,
          b.description ?? null,
          JSON.stringify(withIds(b.actions ?? {})),
          typeAttributes(b.type_attributes),
          JSON.stringify(withIds(b.attributes ?? {})),
          at,
          at,
        ],
      );
      if (changes === 0) throw duplicate('resource', b.key!);
      const row = (await tx.get<ResourceRow>(`SELECT * FROM resources WHERE id = ?`, [id]))!;
      if (b.roles) await writeResourceRoles(tx, req.env.envId, row, b.roles, { at, create: true });
      if (b.relations) await writeResourceRelations(tx, req.env.envId, row, b.relations, { at, replace: false });
      return row;
    });
    return (await resourceReads(db, [row], req.env))[0];
  });

  app.get('/resources/:key', async (req) => {
    const { key } = req.params as { key: string };
    return (
      await resourceReads(db, [await findKeyed<ResourceRow>(db, 'resources', req.env.envId, key, 'resource')], req.env)
    )[0];
  });

  const update = (replace: boolean) => async (req: import('fastify').FastifyRequest) => {
    const { key } = req.params as { key: string };
    const b = req.body as Body;
    const at = now().toISOString();
    const row = await db.transaction(async (tx) => {
      const row = await findKeyed<ResourceRow>(tx, 'resources', req.env.envId, key, 'resource');
      const before = {
        actions: parseJson<Actions>(row.actions, {}),
        attributes: parseJson<Attributes>(row.attributes, {}),
      };
      const actions = b.actions ? withIds(b.actions, before.actions) : replace ? {} : before.actions;
      const attributes = b.attributes ? withIds(b.attributes, before.attributes) : replace ? {} : before.attributes;
      await tx.run(
        `UPDATE resources SET name = ?, urn = ?, description = ?, actions = ?, type_attributes = ?, attributes = ?, updated_at = ? WHERE id = ?`,
        [
          b.name ?? row.name,
          b.urn !== undefined ? b.urn : replace ? null : (row.urn ?? null),
          b.description !== undefined ? b.description : replace ? null : row.description,
          JSON.stringify(actions),
          b.type_attributes !== undefined
            ? typeAttributes(b.type_attributes)
            : replace
              ? null
              : (row.type_attributes ?? null),
          JSON.stringify(attributes),
          at,
          row.id,
        ],
      );
      await pruneRolePermissions(tx, req.env.envId, row.key, (a) => Object.hasOwn(actions, a), at);
      // Set rules on removed actions go too; attribute definitions may have changed (/allowed's ABAC model).
      await pruneSetRules(tx, row.id, Object.keys(actions));
      await bumpAbacStamp(tx, req.env.envId);
      const updated = (await tx.get<ResourceRow>(`SELECT * FROM resources WHERE id = ?`, [row.id]))!;
      // `roles` given: a replace makes them the resource's roles (others deleted), a patch creates or
      // updates those named. Left out, the roles stay as they are, on a replace too: deleting every role
      // (and with them every assignment on the resource) is never the effect of leaving a field out.
      if (b.roles)
        await (replace
          ? replaceResourceRoles(tx, req.env.envId, updated, b.roles, at)
          : writeResourceRoles(tx, req.env.envId, updated, b.roles, { at }));
      // `relations` likewise: a replace makes them the resource's relations (the group machinery's kept).
      if (b.relations) await writeResourceRelations(tx, req.env.envId, updated, b.relations, { at, replace });
      return updated;
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
      await bumpAbacStamp(tx, req.env.envId);
    });
    return reply.status(204).send();
  });
}

const typeAttributes = (t: Record<string, unknown> | undefined) =>
  t && Object.keys(t).length > 0 ? JSON.stringify(t) : null;
