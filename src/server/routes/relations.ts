import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { notFound } from '../errors.js';
import { createRelation, refuseGroupRelationKey } from '../repo/relations.js';
import {
  deleteRelationNamed,
  findRelation,
  listRelations,
  readRelation,
  relationRead,
} from '../repo/relation-reads.js';
import { envelope, parsePaging } from '../paging.js';
import { KEY, NAME, TEXT, PAGING_QUERY, strictObject } from '../schemas.js';
import { findKeyed } from '../repo/common.js';
import { pathParams, typed } from './typed.js';

const CREATE = strictObject({ key: KEY, name: NAME, description: TEXT, subject_resource: KEY }, [
  'key',
  'name',
  'subject_resource',
]);
const RESOURCE = pathParams('resource');
const RELATION = pathParams('resource', 'key');

/** Relations: `/resources/{object}/relations` (list, create, get, delete), the public `RelationRead`. */
export default async function relationRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get(
    '/resources/:resource/relations',
    { schema: { querystring: PAGING_QUERY, params: RESOURCE } },
    async (req) => {
      const paging = parsePaging(req.query);
      const res = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, req.params.resource, 'resource');
      const { rows, total } = await listRelations(db, res.id, paging);
      // Always the envelope: the public list of relations has no bare-array form.
      return envelope(
        rows.map((r) => relationRead(r, req.env)),
        total,
        paging,
      );
    },
  );

  app.post('/resources/:resource/relations', { schema: { body: CREATE, params: RESOURCE } }, async (req) => {
    refuseGroupRelationKey(req.body.key, ['body', 'key']);
    const id = await db.transaction(async (tx) => {
      const envId = req.env.envId;
      const obj = await findKeyed<{ id: string; key: string }>(tx, 'resources', envId, req.params.resource, 'resource');
      return createRelation(tx, envId, obj, req.body, now().toISOString());
    });
    return relationRead(await readRelation(db, id), req.env);
  });

  // A relation is named by key or id (the public `relation_id`).
  app.get('/resources/:resource/relations/:key', { schema: { params: RELATION } }, async (req) => {
    const { resource, key } = req.params;
    const res = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const row = await findRelation(db, res.id, key);
    if (!row) throw notFound('relation', `${resource}#${key}`);
    return relationRead(row, req.env);
  });

  app.delete('/resources/:resource/relations/:key', { schema: { params: RELATION } }, async (req, reply) => {
    const { resource, key } = req.params;
    await db.transaction(async (tx) => {
      const res = await findKeyed<{ id: string }>(tx, 'resources', req.env.envId, resource, 'resource');
      if (!(await deleteRelationNamed(tx, res, key))) throw notFound('relation', `${resource}#${key}`);
    });
    return reply.status(204).send();
  });
}
