import type { FastifyInstance } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import { duplicate } from '../errors.js';
import { parsePaging, schemaList } from '../paging.js';
import { ATTRIBUTES, KEY, PAGING_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation, type Queryable } from '../store/db.js';
import { envFields, findKeyed, pageOf, parseJson, whereOf } from '../repo/common.js';
import { findInstance } from '../repo/assignments.js';

const SELECT = `ri.id, ri.key, ri.attributes, ri.created_at, ri.updated_at, ri.resource_id, ri.tenant_id, res.key AS resource_key, t.key AS tenant_key`;
const FROM = `resource_instances ri JOIN resources res ON res.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id`;

interface InstanceRow {
  id: string; key: string; attributes: string; created_at: string; updated_at: string;
  resource_id: string; tenant_id: string; resource_key: string; tenant_key: string;
}

const instanceRead = (r: InstanceRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  resource: r.resource_key,
  tenant: r.tenant_key,
  resource_id: r.resource_id,
  tenant_id: r.tenant_id,
  attributes: parseJson(r.attributes, {}),
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const byId = async (q: Queryable, id: string) => (await q.get<InstanceRow>(`SELECT ${SELECT} FROM ${FROM} WHERE ri.id = ?`, [id]))!;

/**
 * Resource instances, served under both `/v2/facts/...` (the public API) and `/v2/schema/...` (the
 * specification) with the same behaviour. The path names an instance as `type:key` or by id. Deleting
 * one removes its role assignments, tuples and group grants, and the group if it is one (cascade).
 */
export default async function resourceInstanceRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/resource_instances', {
    schema: { querystring: { ...PAGING_QUERY, properties: { ...PAGING_QUERY.properties, tenant: { type: 'string' }, resource: { type: 'string' } } } },
  }, async (req) => {
    const query = req.query as Record<string, string | undefined>;
    const paging = parsePaging(query);
    const { where, params } = whereOf([['t.key = ?', query.tenant], ['res.key = ?', query.resource]], ['ri.env_id = ?'], [req.env.envId]);
    const { rows, total } = await pageOf<InstanceRow>(db, FROM, where, params, paging, SELECT, 'ri.created_at, ri.id');
    return schemaList(rows.map((r) => instanceRead(r, req.env)), total, paging, query);
  });

  app.post('/resource_instances', {
    schema: { body: strictObject({ key: KEY, tenant: KEY, resource: KEY, attributes: ATTRIBUTES }, ['key', 'tenant', 'resource']) },
  }, async (req) => {
    const b = req.body as { key: string; tenant: string; resource: string; attributes?: Record<string, unknown> };
    const at = now().toISOString();
    const id = crypto.randomUUID();
    const row = await db.transaction(async (tx) => {
      const res = await findKeyed<{ id: string }>(tx, 'resources', req.env.envId, b.resource, 'resource');
      const t = await findKeyed<{ id: string }>(tx, 'tenants', req.env.envId, b.tenant, 'tenant');
      try {
        await tx.run(
          `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [id, req.env.envId, res.id, b.key, t.id, JSON.stringify(b.attributes ?? {}), at, at],
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicate('resource instance', `${b.resource}:${b.key}`);
        throw err;
      }
      return byId(tx, id);
    });
    return instanceRead(row, req.env);
  });

  app.get('/resource_instances/:instance', async (req) => {
    const { instance } = req.params as { instance: string };
    return instanceRead(await byId(db, (await findInstance(db, req.env.envId, instance)).id), req.env);
  });

  const update = async (req: import('fastify').FastifyRequest) => {
    const { instance } = req.params as { instance: string };
    const b = req.body as { attributes?: Record<string, unknown> };
    const inst = await findInstance(db, req.env.envId, instance);
    if (b.attributes !== undefined) {
      await db.run(`UPDATE resource_instances SET attributes = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(b.attributes), now().toISOString(), inst.id]);
    }
    return instanceRead(await byId(db, inst.id), req.env);
  };
  app.patch('/resource_instances/:instance', { schema: { body: strictObject({ attributes: ATTRIBUTES }) } }, update);

  app.delete('/resource_instances/:instance', async (req, reply) => {
    const { instance } = req.params as { instance: string };
    const inst = await findInstance(db, req.env.envId, instance);
    await db.run(`DELETE FROM resource_instances WHERE id = ?`, [inst.id]);
    return reply.status(204).send();
  });
}
