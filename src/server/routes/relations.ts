import type { FastifyInstance } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import { notFound } from '../errors.js';
import { createRelation, deleteRelation, refuseGroupRelationKey } from '../repo/relations.js';
import { envelope, parsePaging } from '../paging.js';
import { KEY, NAME, TEXT, PAGING_QUERY, strictObject } from '../schemas.js';
import { envFields, findKeyed, pageOf } from '../repo/common.js';

interface RelationRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  object_key: string;
  subject_key: string;
  object_resource_id: string;
  subject_resource_id: string;
}
const SELECT = `rel.id, rel.key, rel.name, rel.description, rel.created_at, rel.updated_at, rel.object_resource_id, rel.subject_resource_id, o.key AS object_key, s.key AS subject_key`;
const FROM = `relations rel JOIN resources o ON o.id = rel.object_resource_id JOIN resources s ON s.id = rel.subject_resource_id`;

const relationRead = (r: RelationRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  name: r.name,
  ...(r.description !== null ? { description: r.description } : {}),
  object_resource: r.object_key,
  object_resource_id: r.object_resource_id,
  subject_resource: r.subject_key,
  subject_resource_id: r.subject_resource_id,
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** Relations: `/resources/{object}/relations` (list, create, get, delete), the public `RelationRead`. */
export default async function relationRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/resources/:resource/relations', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const { resource } = req.params as { resource: string };
    const paging = parsePaging(req.query as Record<string, unknown>);
    const res = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const { rows, total } = await pageOf<RelationRow>(
      db,
      FROM,
      'rel.object_resource_id = ?',
      [res.id],
      paging,
      SELECT,
      'rel.created_at, rel.id',
    );
    // Always the envelope: the public list of relations has no bare-array form.
    return envelope(
      rows.map((r) => relationRead(r, req.env)),
      total,
      paging,
    );
  });

  app.post(
    '/resources/:resource/relations',
    {
      schema: {
        body: strictObject({ key: KEY, name: NAME, description: TEXT, subject_resource: KEY }, [
          'key',
          'name',
          'subject_resource',
        ]),
      },
    },
    async (req) => {
      const { resource } = req.params as { resource: string };
      refuseGroupRelationKey((req.body as { key: string }).key, ['body', 'key']);
      const id = await db.transaction(async (tx) => {
        const obj = await findKeyed<{ id: string; key: string }>(tx, 'resources', req.env.envId, resource, 'resource');
        return createRelation(
          tx,
          req.env.envId,
          obj,
          req.body as { key: string; name: string; description?: string | null; subject_resource: string },
          now().toISOString(),
        );
      });
      return relationRead(
        (await db.get<RelationRow>(`SELECT ${SELECT} FROM ${FROM} WHERE rel.id = ?`, [id]))!,
        req.env,
      );
    },
  );

  // A relation is named by key or id (the public `relation_id`).
  const BY_KEY_OR_ID = 'rel.object_resource_id = ? AND (rel.key = ? OR rel.id = ?)';
  app.get('/resources/:resource/relations/:key', async (req) => {
    const { resource, key } = req.params as { resource: string; key: string };
    const res = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const row = await db.get<RelationRow>(`SELECT ${SELECT} FROM ${FROM} WHERE ${BY_KEY_OR_ID}`, [res.id, key, key]);
    if (!row) throw notFound('relation', `${resource}#${key}`);
    return relationRead(row, req.env);
  });

  app.delete('/resources/:resource/relations/:key', async (req, reply) => {
    const { resource, key } = req.params as { resource: string; key: string };
    await db.transaction(async (tx) => {
      const res = await findKeyed<{ id: string }>(tx, 'resources', req.env.envId, resource, 'resource');
      const row = await tx.get<{ key: string }>(`SELECT rel.key FROM relations rel WHERE ${BY_KEY_OR_ID}`, [
        res.id,
        key,
        key,
      ]);
      if (!row || !(await deleteRelation(tx, res, row.key))) throw notFound('relation', `${resource}#${key}`);
    });
    return reply.status(204).send();
  });
}
