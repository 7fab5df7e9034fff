import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import { httpError, notFound } from '../errors.js';
import { envelope, parsePaging, schemaList } from '../paging.js';
import { INSTANCE_REF, KEY, PAGING_QUERY, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { envFields, findKeyed, pageOf, parseJson, splitRef, whereOf } from '../repo/common.js';
import { findInstance, findOrCreateInstance } from '../repo/assignments.js';
import { ensureTuple, removeTuple } from '../repo/relations.js';

interface TupleRow {
  id: string;
  relation: string;
  created_at: string;
  subject_id: string;
  object_id: string;
  tenant_id: string;
  s_type: string;
  s_key: string;
  o_type: string;
  o_key: string;
  tenant_key: string;
  relation_id: string;
  relation_name: string;
  s_attributes: string;
  o_attributes: string;
  s_tenant: string;
  o_tenant: string;
  tenant_name: string;
  tenant_attributes: string;
}
const SELECT = `tp.id, tp.relation, tp.created_at, tp.subject_id, tp.object_id, tp.tenant_id, sr.key AS s_type, si.key AS s_key,
  orr.key AS o_type, oi.key AS o_key, t.key AS tenant_key, rel.id AS relation_id, rel.name AS relation_name,
  si.attributes AS s_attributes, oi.attributes AS o_attributes, st.key AS s_tenant, ot.key AS o_tenant, t.name AS tenant_name,
  t.attributes AS tenant_attributes`;
// A tuple names its relation by key on the object's type; deleting a relation deletes its tuples.
const LEAN_FROM = `relationship_tuples tp JOIN resource_instances si ON si.id = tp.subject_id JOIN resources sr ON sr.id = si.resource_id
  JOIN resource_instances oi ON oi.id = tp.object_id JOIN resources orr ON orr.id = oi.resource_id JOIN tenants t ON t.id = tp.tenant_id
  JOIN relations rel ON rel.object_resource_id = oi.resource_id AND rel.key = tp.relation`;
const FROM = `${LEAN_FROM} JOIN tenants st ON st.id = si.tenant_id JOIN tenants ot ON ot.id = oi.tenant_id`;
/**
 * The FROM that counts a list: the joins its filters name, and the relation's, which can drop a row (it
 * is no foreign key). The others join NOT NULL foreign keys to primary keys: each matches exactly one
 * row, so leaving them out counts the same rows. Counting the 2,300 tuples of a plan's read (three
 * relation filters) joined all of them: ~10 ms, once per data version.
 */
function countFrom(where: string): string {
  const names = (alias: string) => new RegExp(`\\b${alias}\\.`).test(where);
  return [
    'relationship_tuples tp JOIN resource_instances oi ON oi.id = tp.object_id',
    'JOIN relations rel ON rel.object_resource_id = oi.resource_id AND rel.key = tp.relation',
    names('si') || names('sr') ? 'JOIN resource_instances si ON si.id = tp.subject_id' : '',
    names('sr') ? 'JOIN resources sr ON sr.id = si.resource_id' : '',
    names('orr') ? 'JOIN resources orr ON orr.id = oi.resource_id' : '',
    names('t') ? 'JOIN tenants t ON t.id = tp.tenant_id' : '',
  ]
    .filter((join) => join !== '')
    .join(' ');
}
/**
 * What `tupleRead` reads (from LEAN_FROM), without the details: the instances' tenants (st, ot), attributes and names.
 * The same rows: st and ot are the tenants of the instances' NOT NULL foreign keys, so joining them drops
 * none. ~21 -> ~14 ms of SQL for the 2,300 tuples of a plan's read.
 */
const LEAN_SELECT = `tp.id, tp.relation, tp.created_at, tp.subject_id, tp.object_id, tp.tenant_id, sr.key AS s_type, si.key AS s_key,
  orr.key AS o_type, oi.key AS o_key, t.key AS tenant_key, rel.id AS relation_id`;

/** The public `RelationshipTupleRead`. Tuples never change: `updated_at` is their creation time. */
const tupleRead = (r: TupleRow, env: EnvContext) => ({
  id: r.id,
  subject: `${r.s_type}:${r.s_key}`,
  relation: r.relation,
  object: `${r.o_type}:${r.o_key}`,
  tenant: r.tenant_key,
  subject_id: r.subject_id,
  relation_id: r.relation_id,
  object_id: r.object_id,
  tenant_id: r.tenant_id,
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.created_at,
});

/** The public `RelationshipTupleDetailedRead`: the read, with the instances, relation and tenant described. */
const tupleDetailedRead = (r: TupleRow, env: EnvContext) => ({
  ...tupleRead(r, env),
  subject_details: { key: r.s_key, tenant: r.s_tenant, resource: r.s_type, attributes: parseJson(r.s_attributes, {}) },
  relation_details: { key: r.relation, name: r.relation_name },
  object_details: { key: r.o_key, tenant: r.o_tenant, resource: r.o_type, attributes: parseJson(r.o_attributes, {}) },
  tenant_details: { key: r.tenant_key, name: r.tenant_name, attributes: parseJson(r.tenant_attributes, {}) },
});

const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    detailed: { type: 'boolean' },
    ...Object.fromEntries(
      ['subject', 'relation', 'object', 'subject_type', 'object_type', 'tenant'].map((k) => [k, { type: 'string' }]),
    ),
  },
};
const TUPLE = strictObject({ subject: INSTANCE_REF, relation: KEY, object: INSTANCE_REF, tenant: KEY }, [
  'subject',
  'relation',
  'object',
]);
/** The public service's limit of tuples per bulk call; each call is applied whole or not at all. */
const BULK_MAX = 1000;

type TupleInput = { subject: string; relation: string; object: string; tenant?: string };

/**
 * A tuple's instances exist, share its tenant, and its relation is declared on the object's type for the
 * subject's type. With a `tenant`, a missing subject or object is created in it (the public description:
 * the tenant is there to create them); the transaction undoes that if the tuple is refused.
 */
async function resolveTuple(q: Queryable, envId: string, t: TupleInput, at: string) {
  const subject = await findOrCreateInstance(q, envId, t.subject, t.tenant, at);
  const object = await findOrCreateInstance(q, envId, t.object, t.tenant, at);
  const rel = await q.get<{ subject_key: string }>(
    `SELECT s.key AS subject_key FROM relations rel JOIN resources o ON o.id = rel.object_resource_id JOIN resources s ON s.id = rel.subject_resource_id
     WHERE rel.env_id = ? AND o.key = ? AND rel.key = ?`,
    [envId, object.resource_key, t.relation],
  );
  if (!rel) throw notFound('relation', `${object.resource_key}#${t.relation}`);
  if (rel.subject_key !== subject.resource_key) {
    throw httpError(
      'MISMATCH_RELATION_TYPE',
      `relation ${object.resource_key}#${t.relation} takes subjects of type '${rel.subject_key}', not '${subject.resource_key}'`,
    );
  }
  // A tuple lives in one tenant, the one both of its instances are in: a tuple recorded under a tenant
  // neither instance belongs to (or across tenants) would relate objects no tenant-scoped read can see.
  // The tenant may be named by key or id: compare ids.
  const tenantId = t.tenant
    ? (await findKeyed<{ id: string }>(q, 'tenants', envId, t.tenant, 'tenant')).id
    : object.tenant_id;
  if (subject.tenant_id !== tenantId || object.tenant_id !== tenantId) {
    throw httpError(
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
      `${t.subject} (tenant '${subject.tenant_key}') and ${t.object} (tenant '${object.tenant_key}') must both be in tenant '${t.tenant ?? object.tenant_key}'`,
    );
  }
  return { subject, object, tenantId: object.tenant_id };
}

/** Relationship tuples: `/v2/facts/{p}/{e}/relationship_tuples` (list and detailed list with filters, create, delete, bulk). */
export default async function tupleRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const list = async (req: FastifyRequest, detailed: boolean) => {
    const query = req.query as Record<string, string | undefined>;
    const paging = parsePaging(query);
    const subject = query.subject ? splitRef(query.subject) : undefined;
    const object = query.object ? splitRef(query.object) : undefined;
    const { where, params } = whereOf(
      [
        ['sr.key = ?', subject?.[0] ?? query.subject_type],
        ['si.key = ?', subject?.[1]],
        ['tp.relation = ?', query.relation],
        ['orr.key = ?', object?.[0] ?? query.object_type],
        ['oi.key = ?', object?.[1]],
        ['t.key = ?', query.tenant],
      ],
      ['tp.env_id = ?'],
      [req.env.envId],
    );
    const { rows, total } = await pageOf<TupleRow>(
      db,
      detailed ? FROM : LEAN_FROM,
      where,
      params,
      paging,
      detailed ? SELECT : LEAN_SELECT,
      'tp.created_at, tp.id',
      {
        byCursor: true,
        countFrom: countFrom(where),
      },
    );
    return { rows, total, paging, query };
  };
  // `detailed=true` answers the detailed read model, as `/relationship_tuples/detailed` does.
  app.get('/relationship_tuples', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const detailed = (req.query as { detailed?: boolean }).detailed === true;
    const { rows, total, paging, query } = await list(req, detailed);
    const read = detailed ? tupleDetailedRead : tupleRead;
    return schemaList<unknown>(
      rows.map((r) => read(r, req.env)),
      total,
      paging,
      query,
    );
  });
  app.get('/relationship_tuples/detailed', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const { rows, total, paging } = await list(req, true);
    return envelope(
      rows.map((r) => tupleDetailedRead(r, req.env)),
      total,
      paging,
    );
  });

  app.post('/relationship_tuples', { schema: { body: TUPLE } }, async (req) => {
    const t = req.body as TupleInput;
    const at = now().toISOString();
    const r = await db.transaction(async (tx) => {
      const r = await resolveTuple(tx, req.env.envId, t, at);
      await ensureTuple(tx, req.env.envId, r.subject.id, t.relation, r.object.id, r.tenantId, at);
      return r;
    });
    const row = await db.get<TupleRow>(
      `SELECT ${SELECT} FROM ${FROM} WHERE tp.subject_id = ? AND tp.relation = ? AND tp.object_id = ?`,
      [r.subject.id, t.relation, r.object.id],
    );
    return tupleRead(row!, req.env);
  });

  app.delete(
    '/relationship_tuples',
    {
      schema: {
        body: strictObject({ subject: INSTANCE_REF, relation: KEY, object: INSTANCE_REF }, [
          'subject',
          'relation',
          'object',
        ]),
      },
    },
    async (req, reply) => {
      const t = req.body as TupleInput;
      const removed = await db.transaction(async (tx) => {
        const subject = await findInstance(tx, req.env.envId, t.subject);
        const object = await findInstance(tx, req.env.envId, t.object);
        return removeTuple(tx, subject.id, t.relation, object.id);
      });
      if (!removed) throw notFound('relationship tuple', `${t.subject} ${t.relation} ${t.object}`);
      return reply.status(204).send();
    },
  );

  app.post(
    '/relationship_tuples/bulk',
    {
      schema: {
        body: strictObject({ operations: { type: 'array', items: TUPLE, maxItems: BULK_MAX } }, ['operations']),
      },
    },
    async (req) => {
      const { operations } = req.body as { operations: TupleInput[] };
      const at = now().toISOString();
      await db.transaction(async (tx) => {
        for (const t of operations) {
          const r = await resolveTuple(tx, req.env.envId, t, at);
          await ensureTuple(tx, req.env.envId, r.subject.id, t.relation, r.object.id, r.tenantId, at);
        }
      });
      return {};
    },
  );

  app.delete(
    '/relationship_tuples/bulk',
    {
      schema: { body: strictObject({ idents: { type: 'array', items: TUPLE, maxItems: BULK_MAX } }, ['idents']) },
    },
    async (req) => {
      const { idents } = req.body as { idents: TupleInput[] };
      // Missing tuples are skipped (a repeated call converges) and not counted.
      await db.transaction(async (tx) => {
        for (const t of idents) {
          const subject = await findInstance(tx, req.env.envId, t.subject);
          const object = await findInstance(tx, req.env.envId, t.object);
          await removeTuple(tx, subject.id, t.relation, object.id);
        }
      });
      // The public answer is an empty object.
      return {};
    },
  );
}
