import { newId } from '../new-id.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate } from '../errors.js';
import { parsePaging, schemaList } from '../paging.js';
import { attributeClause, attributeFilters } from '../repo/attribute-filter.js';
import { ATTRIBUTES, KEY, NAME, TEXT, SEARCH_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation } from '../store/db.js';
import { findKeyed, pageOf, parseJson, searchClause } from '../repo/common.js';
import { checkExtends, checkPermissions, roleRead, type RoleRow } from '../repo/roles.js';
import { pruneRoleFromConfigs } from '../repo/elements.js';
import { grantedToReads, replaceGrantedTo, type GrantedToInput } from '../repo/derivation-writes.js';
import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { GRANTED_TO } from './implicit-grants.js';

const PERMISSION = { type: 'string', pattern: '^[A-Za-z0-9\\-_]+:[A-Za-z0-9\\-_]+$', maxLength: 513 } as const;
const LIST = (item: object) => ({ type: 'array', items: item, maxItems: 1000 }) as const;
const FIELDS = {
  name: NAME,
  description: TEXT,
  permissions: LIST(PERMISSION),
  extends: LIST(KEY),
  attributes: ATTRIBUTES,
};
const CREATE = strictObject({ key: KEY, ...FIELDS, granted_to: GRANTED_TO }, ['key', 'name']);
const UPDATE = strictObject({ ...FIELDS, granted_to: GRANTED_TO });

type Body = {
  key?: string;
  name?: string;
  description?: string | null;
  permissions?: string[];
  extends?: string[];
  attributes?: Record<string, unknown>;
  granted_to?: GrantedToInput;
};

/** Role reads with `granted_to` where the role carries derivations (the public `RoleRead`; on every resource, each rule once). */
async function reads(q: Queryable, rows: RoleRow[], env: EnvContext) {
  const blocks = await grantedToReads(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...roleRead(r, env), ...(blocks.has(r.id) ? { granted_to: blocks.get(r.id) } : {}) }));
}

/** Roles: `/v2/schema/{p}/{e}/roles[/{key}]`, with permissions as `resource:action` strings. */
export default async function roleRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/roles', { schema: { querystring: SEARCH_QUERY } }, async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const search = searchClause((req.query as { search?: string }).search);
    const filters = attributeFilters(req.query as Record<string, unknown>);
    const byAttributes = await attributeClause(
      db,
      'roles',
      `env_id = ? AND resource_id IS NULL`,
      [req.env.envId],
      filters,
    );
    const { rows, total } = await pageOf<RoleRow>(
      db,
      'roles',
      `env_id = ? AND resource_id IS NULL${search.where}${byAttributes.where}`,
      [req.env.envId, ...search.params, ...byAttributes.params],
      paging,
    );
    return schemaList(await reads(db, rows, req.env), total, paging, req.query as Record<string, unknown>);
  });

  app.post('/roles', { schema: { body: CREATE } }, async (req) => {
    const b = req.body as Body;
    const at = now().toISOString();
    const id = newId();
    return db.transaction(async (tx) => {
      const permissions = await checkPermissions(tx, req.env.envId, b.permissions ?? []);
      const ext = await checkExtends(tx, req.env.envId, b.key!, b.extends ?? []);
      try {
        await tx.run(
          `INSERT INTO roles (id, env_id, key, name, description, permissions, extends, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            id,
            req.env.envId,
            b.key!,
            b.name!,
            b.description ?? null,
            JSON.stringify(permissions),
            JSON.stringify(ext),
            b.attributes ? JSON.stringify(b.attributes) : null,
            at,
            at,
          ],
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicate('role', b.key!);
        throw err;
      }
      if (b.granted_to) await replaceGrantedTo(tx, req.env.envId, { id }, undefined, b.granted_to, at);
      return (await reads(tx, [(await tx.get<RoleRow>(`SELECT * FROM roles WHERE id = ?`, [id]))!], req.env))[0];
    });
  });

  app.get('/roles/:key', async (req) => {
    const { key } = req.params as { key: string };
    return (await reads(db, [await findKeyed<RoleRow>(db, 'roles', req.env.envId, key, 'role')], req.env))[0];
  });

  const update = async (req: FastifyRequest) => {
    const { key } = req.params as { key: string };
    const b = req.body as Body;
    const at = now().toISOString();
    return db.transaction(async (tx) => {
      const row = await findKeyed<RoleRow>(tx, 'roles', req.env.envId, key, 'role');
      const permissions = b.permissions
        ? await checkPermissions(tx, req.env.envId, b.permissions)
        : parseJson<string[]>(row.permissions, []);
      const ext = b.extends
        ? await checkExtends(tx, req.env.envId, row.key, b.extends)
        : parseJson<string[]>(row.extends, []);
      // `attributes` (seen by conditions as role.<attribute>): replaced when given.
      await tx.run(
        `UPDATE roles SET name = ?, description = ?, permissions = ?, extends = ?, attributes = ?, updated_at = ? WHERE id = ?`,
        [
          b.name ?? row.name,
          b.description !== undefined ? b.description : row.description,
          JSON.stringify(permissions),
          JSON.stringify(ext),
          b.attributes !== undefined ? JSON.stringify(b.attributes) : (row.attributes ?? null),
          at,
          row.id,
        ],
      );
      // Given, it replaces the role's derivations (replaceGrantedTo); left out, they stay.
      if (b.granted_to) await replaceGrantedTo(tx, req.env.envId, row, undefined, b.granted_to, at);
      return (await reads(tx, [(await tx.get<RoleRow>(`SELECT * FROM roles WHERE id = ?`, [row.id]))!], req.env))[0];
    });
  };
  app.patch('/roles/:key', { schema: { body: UPDATE } }, update);

  // Deleting a role removes its assignments and group grants (cascade), and its name from other roles'
  // `extends` and from element configurations' reviewer levels.
  app.delete('/roles/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    await db.transaction(async (tx) => {
      const row = await findKeyed<RoleRow>(tx, 'roles', req.env.envId, key, 'role');
      await tx.run(`DELETE FROM roles WHERE id = ?`, [row.id]);
      await pruneRoleFromConfigs(tx, req.env.envId, row.key, now().toISOString());
      const others = await tx.all<{ id: string; extends: string }>(
        `SELECT id, extends FROM roles WHERE env_id = ? AND resource_id IS NULL`,
        [req.env.envId],
      );
      for (const o of others) {
        const ext = parseJson<string[]>(o.extends, []);
        if (ext.includes(row.key)) {
          await tx.run(`UPDATE roles SET extends = ?, updated_at = ? WHERE id = ?`, [
            JSON.stringify(ext.filter((k) => k !== row.key)),
            now().toISOString(),
            o.id,
          ]);
        }
      }
    });
    return reply.status(204).send();
  });
}
