import { newId } from '../new-id.js';
import type { FastifyInstance } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import { duplicate } from '../errors.js';
import { envelope, parsePaging, schemaList } from '../paging.js';
import { ATTRIBUTES, KEY, PAGING_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation, type Queryable } from '../store/db.js';
import { envFields, findKeyed, pageOf, parseJson, whereOf } from '../repo/common.js';
import { findInstance } from '../repo/assignments.js';

const SELECT = `ri.id, ri.key, ri.attributes, ri.created_at, ri.updated_at, ri.resource_id, ri.tenant_id, res.key AS resource_key, t.key AS tenant_key`;
const FROM = `resource_instances ri JOIN resources res ON res.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id`;

interface InstanceRow {
  id: string;
  key: string;
  attributes: string;
  created_at: string;
  updated_at: string;
  resource_id: string;
  tenant_id: string;
  resource_key: string;
  tenant_key: string;
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

/** The public `ResourceInstanceDetailedRead`: the read, with every relationship tuple that names the instance. */
async function detailedReads(q: Queryable, env: EnvContext, rows: InstanceRow[]) {
  if (rows.length === 0) return [];
  const marks = rows.map(() => '?').join(', ');
  const ids = rows.map((r) => r.id);
  const tuples = await q.all<{
    subject_id: string;
    object_id: string;
    subject: string;
    relation: string;
    object: string;
  }>(
    `SELECT tp.subject_id, tp.object_id, sr.key || ':' || si.key AS subject, tp.relation, orr.key || ':' || oi.key AS object
     FROM relationship_tuples tp JOIN resource_instances si ON si.id = tp.subject_id JOIN resources sr ON sr.id = si.resource_id
     JOIN resource_instances oi ON oi.id = tp.object_id JOIN resources orr ON orr.id = oi.resource_id
     WHERE tp.subject_id IN (${marks}) OR tp.object_id IN (${marks}) ORDER BY tp.created_at, tp.id`,
    [...ids, ...ids],
  );
  return rows.map((r) => ({
    ...instanceRead(r, env),
    relationships: tuples
      .filter((t) => t.subject_id === r.id || t.object_id === r.id)
      .map((t) => ({ subject: t.subject, relation: t.relation, object: t.object })),
  }));
}

const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: { ...PAGING_QUERY.properties, tenant: { type: 'string' }, resource: { type: 'string' } },
};
const DETAILED_QUERY = {
  ...LIST_QUERY,
  properties: {
    ...LIST_QUERY.properties,
    search: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 100 }] },
  },
};

const byId = async (q: Queryable, id: string) =>
  (await q.get<InstanceRow>(`SELECT ${SELECT} FROM ${FROM} WHERE ri.id = ?`, [id]))!;

/**
 * Resource instances, served under both `/v2/facts/...` (the public API) and `/v2/schema/...` (the
 * specification) with the same behaviour. The path names an instance as `type:key` or by id. Deleting
 * one removes its role assignments, tuples and group grants, and the group if it is one (cascade).
 */
export default async function resourceInstanceRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/resource_instances', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const query = req.query as Record<string, string | undefined>;
    const paging = parsePaging(query);
    const { where, params } = whereOf(
      [
        ['t.key = ?', query.tenant],
        ['res.key = ?', query.resource],
      ],
      ['ri.env_id = ?'],
      [req.env.envId],
    );
    const { rows, total } = await pageOf<InstanceRow>(db, FROM, where, params, paging, SELECT, 'ri.created_at, ri.id', {
      byCursor: true,
    });
    return schemaList(
      rows.map((r) => instanceRead(r, req.env)),
      total,
      paging,
      query,
    );
  });

  // The public detailed list: always the envelope; `tenant` and `resource` by key or id, `search` one or
  // more instance keys or ids (`?search=a&search=b`).
  app.get('/resource_instances/detailed', { schema: { querystring: DETAILED_QUERY } }, async (req) => {
    const query = req.query as { tenant?: string; resource?: string; search?: string | string[] };
    const paging = parsePaging(query as Record<string, unknown>);
    const search = query.search === undefined ? [] : [query.search].flat();
    const base = ['ri.env_id = ?'];
    const baseParams: string[] = [req.env.envId];
    if (search.length > 0) {
      const marks = search.map(() => '?').join(', ');
      base.push(`(ri.key IN (${marks}) OR ri.id IN (${marks}))`);
      baseParams.push(...search, ...search);
    }
    const { where, params } = whereOf(
      [
        ['(t.key = ? OR t.id = ?)', query.tenant],
        ['(res.key = ? OR res.id = ?)', query.resource],
      ],
      base,
      baseParams,
    );
    const { rows, total } = await pageOf<InstanceRow>(db, FROM, where, params, paging, SELECT, 'ri.created_at, ri.id', {
      byCursor: true,
    });
    return envelope(await detailedReads(db, req.env, rows), total, paging);
  });

  app.post(
    '/resource_instances',
    {
      schema: {
        body: strictObject({ key: KEY, tenant: KEY, resource: KEY, attributes: ATTRIBUTES }, [
          'key',
          'tenant',
          'resource',
        ]),
      },
    },
    async (req) => {
      const b = req.body as { key: string; tenant: string; resource: string; attributes?: Record<string, unknown> };
      const at = now().toISOString();
      const id = newId();
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
    },
  );

  app.get('/resource_instances/:instance', async (req) => {
    const { instance } = req.params as { instance: string };
    return instanceRead(await byId(db, (await findInstance(db, req.env.envId, instance)).id), req.env);
  });

  const update = async (req: import('fastify').FastifyRequest) => {
    const { instance } = req.params as { instance: string };
    const b = req.body as { attributes?: Record<string, unknown> };
    const inst = await findInstance(db, req.env.envId, instance);
    if (b.attributes !== undefined) {
      await db.run(`UPDATE resource_instances SET attributes = ?, updated_at = ? WHERE id = ?`, [
        JSON.stringify(b.attributes),
        now().toISOString(),
        inst.id,
      ]);
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
