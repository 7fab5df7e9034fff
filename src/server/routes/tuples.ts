import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { notFound } from '../errors.js';
import { envelope, parsePaging, schemaList } from '../paging.js';
import { INSTANCE_REF, KEY, PAGING_QUERY, strictObject } from '../schemas.js';
import { deleteTuple, listTuples, readTuple, tupleDetailedRead, tupleRead, writeTuple } from '../repo/tuples.js';
import { typed } from './typed.js';

const TEXT_FILTER = { type: 'string' } as const;
const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    detailed: { type: 'boolean' },
    subject: TEXT_FILTER,
    relation: TEXT_FILTER,
    object: TEXT_FILTER,
    subject_type: TEXT_FILTER,
    object_type: TEXT_FILTER,
    tenant: TEXT_FILTER,
  },
} as const;
const TUPLE = strictObject({ subject: INSTANCE_REF, relation: KEY, object: INSTANCE_REF, tenant: KEY }, [
  'subject',
  'relation',
  'object',
]);
const TUPLE_REMOVAL = strictObject({ subject: INSTANCE_REF, relation: KEY, object: INSTANCE_REF }, [
  'subject',
  'relation',
  'object',
]);
/** The public service's limit of tuples per bulk call; each call is applied whole or not at all. */
const BULK_MAX = 1000;
const BULK = strictObject({ operations: { type: 'array', items: TUPLE, maxItems: BULK_MAX } }, ['operations']);
const BULK_REMOVAL = strictObject({ idents: { type: 'array', items: TUPLE, maxItems: BULK_MAX } }, ['idents']);

/** Relationship tuples: `/v2/facts/{p}/{e}/relationship_tuples` (list and detailed list with filters, create, delete, bulk). */
export default async function tupleRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  // `detailed=true` answers the detailed read model, as `/relationship_tuples/detailed` does.
  app.get('/relationship_tuples', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const detailed = req.query.detailed === true;
    const paging = parsePaging(req.query);
    const { rows, total } = await listTuples(db, req.env.envId, req.query, paging, detailed);
    const read = detailed ? tupleDetailedRead : tupleRead;
    return schemaList<unknown>(
      rows.map((r) => read(r, req.env)),
      total,
      paging,
      req.query,
    );
  });
  app.get('/relationship_tuples/detailed', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listTuples(db, req.env.envId, req.query, paging, true);
    return envelope(
      rows.map((r) => tupleDetailedRead(r, req.env)),
      total,
      paging,
    );
  });

  app.post('/relationship_tuples', { schema: { body: TUPLE } }, async (req) => {
    const t = req.body;
    const at = now().toISOString();
    const r = await db.transaction((tx) => writeTuple(tx, req.env.envId, t, at));
    return tupleRead(await readTuple(db, r.subject.id, t.relation, r.object.id), req.env);
  });

  app.delete('/relationship_tuples', { schema: { body: TUPLE_REMOVAL } }, async (req, reply) => {
    const t = req.body;
    const removed = await db.transaction((tx) => deleteTuple(tx, req.env.envId, t));
    if (!removed) throw notFound('relationship tuple', `${t.subject} ${t.relation} ${t.object}`);
    return reply.status(204).send();
  });

  app.post('/relationship_tuples/bulk', { schema: { body: BULK } }, async (req) => {
    const at = now().toISOString();
    await db.transaction(async (tx) => {
      for (const t of req.body.operations) await writeTuple(tx, req.env.envId, t, at);
    });
    return {};
  });

  app.delete('/relationship_tuples/bulk', { schema: { body: BULK_REMOVAL } }, async (req) => {
    // Missing tuples are skipped (a repeated call converges) and not counted.
    await db.transaction(async (tx) => {
      for (const t of req.body.idents) await deleteTuple(tx, req.env.envId, t);
    });
    // The public answer is an empty object.
    return {};
  });
}
