import { newId } from '../new-id.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import { duplicate } from '../errors.js';
import { parsePaging, schemaList } from '../paging.js';
import { attributeClause, attributeFilters } from '../repo/attribute-filter.js';
import { ATTRIBUTES, KEY, NAME, TEXT, SEARCH_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation } from '../store/db.js';
import { envFields, findKeyed, pageOf, parseJson, searchClause } from '../repo/common.js';

export interface TenantRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  attributes: string;
  created_at: string;
  updated_at: string;
}

export const tenantRead = (r: TenantRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  name: r.name,
  ...(r.description !== null ? { description: r.description } : {}),
  attributes: parseJson(r.attributes, {}),
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
  // The public service's "last permission check in the tenant"; the server records no checks, so this
  // is the tenant's last change (docs/server.md).
  last_action_at: r.updated_at,
});

const FIELDS = { name: NAME, description: TEXT, attributes: ATTRIBUTES };
type Body = { key?: string; name?: string; description?: string | null; attributes?: Record<string, unknown> };

/** Tenants: `/v2/facts/{p}/{e}/tenants[/{key}]`. Deleting one cascades to its instances, groups and assignments. */
export default async function tenantRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/tenants', { schema: { querystring: SEARCH_QUERY } }, async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const search = searchClause((req.query as { search?: string }).search);
    const filters = attributeFilters(req.query as Record<string, unknown>);
    const byAttributes = await attributeClause(db, 'tenants', `env_id = ?`, [req.env.envId], filters);
    const { rows, total } = await pageOf<TenantRow>(
      db,
      'tenants',
      `env_id = ?${search.where}${byAttributes.where}`,
      [req.env.envId, ...search.params, ...byAttributes.params],
      paging,
    );
    return schemaList(
      rows.map((r) => tenantRead(r, req.env)),
      total,
      paging,
      req.query as Record<string, unknown>,
    );
  });

  app.post('/tenants', { schema: { body: strictObject({ key: KEY, ...FIELDS }, ['key', 'name']) } }, async (req) => {
    const b = req.body as Body;
    const at = now().toISOString();
    const id = newId();
    try {
      await db.run(
        `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, req.env.envId, b.key!, b.name!, b.description ?? null, JSON.stringify(b.attributes ?? {}), at, at],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate('tenant', b.key!);
      throw err;
    }
    return tenantRead((await db.get<TenantRow>(`SELECT * FROM tenants WHERE id = ?`, [id]))!, req.env);
  });

  app.get('/tenants/:key', async (req) => {
    const { key } = req.params as { key: string };
    return tenantRead(await findKeyed<TenantRow>(db, 'tenants', req.env.envId, key, 'tenant'), req.env);
  });

  const update = async (req: FastifyRequest) => {
    const { key } = req.params as { key: string };
    const b = req.body as Body;
    const row = await findKeyed<TenantRow>(db, 'tenants', req.env.envId, key, 'tenant');
    await db.run(`UPDATE tenants SET name = ?, description = ?, attributes = ?, updated_at = ? WHERE id = ?`, [
      b.name ?? row.name,
      b.description !== undefined ? b.description : row.description,
      JSON.stringify(b.attributes ?? parseJson(row.attributes, {})),
      now().toISOString(),
      row.id,
    ]);
    return tenantRead((await db.get<TenantRow>(`SELECT * FROM tenants WHERE id = ?`, [row.id]))!, req.env);
  };
  app.patch('/tenants/:key', { schema: { body: strictObject(FIELDS) } }, update);

  app.delete('/tenants/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    const row = await findKeyed<TenantRow>(db, 'tenants', req.env.envId, key, 'tenant');
    await db.run(`DELETE FROM tenants WHERE id = ?`, [row.id]);
    return reply.status(204).send();
  });
}
