import { findRoleOn } from '../repo/role-scope.js';
import type { FastifyInstance } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import { duplicate, notFound } from '../errors.js';
import { envelope, parsePaging } from '../paging.js';
import { KEY, NAME, TEXT, PAGING_QUERY, strictObject } from '../schemas.js';
import { isUniqueViolation } from '../store/db.js';
import { envFields, findKeyed, pageOf } from '../repo/common.js';
import { dropUnderivedGroupGrants, ensureImplicitGrant } from '../repo/relations.js';

interface RelationRow { id: string; key: string; name: string; description: string | null; created_at: string; updated_at: string; object_key: string; subject_key: string; object_resource_id: string; subject_resource_id: string }
const SELECT = `rel.id, rel.key, rel.name, rel.description, rel.created_at, rel.updated_at, rel.object_resource_id, rel.subject_resource_id, o.key AS object_key, s.key AS subject_key`;
const FROM = `relations rel JOIN resources o ON o.id = rel.object_resource_id JOIN resources s ON s.id = rel.subject_resource_id`;

const relationRead = (r: RelationRow, env: EnvContext) => ({
  id: r.id, key: r.key, name: r.name, ...(r.description !== null ? { description: r.description } : {}),
  object_resource: r.object_key, object_resource_id: r.object_resource_id,
  subject_resource: r.subject_key, subject_resource_id: r.subject_resource_id,
  ...envFields(env), created_at: r.created_at, updated_at: r.updated_at,
});

const GRANT = strictObject({ role: KEY, on_resource: KEY, linked_by_relation: KEY }, ['role', 'on_resource', 'linked_by_relation']);

/**
 * Relations (`/resources/{object}/relations`) and role derivations
 * (`/resources/{resource}/roles/{role}/implicit_grants`). Listing derivations with GET is our addition,
 * so that the automatic effects of group operations are readable.
 */
export default async function relationRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/resources/:resource/relations', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const { resource } = req.params as { resource: string };
    const paging = parsePaging(req.query as Record<string, unknown>);
    const res = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const { rows, total } = await pageOf<RelationRow>(db, FROM, 'rel.object_resource_id = ?', [res.id], paging, SELECT, 'rel.created_at, rel.id');
    // Always the envelope: the public list of relations has no bare-array form.
    return envelope(rows.map((r) => relationRead(r, req.env)), total, paging);
  });

  app.post('/resources/:resource/relations', {
    schema: { body: strictObject({ key: KEY, name: NAME, description: TEXT, subject_resource: KEY }, ['key', 'name', 'subject_resource']) },
  }, async (req) => {
    const { resource } = req.params as { resource: string };
    const b = req.body as { key: string; name: string; description?: string | null; subject_resource: string };
    const obj = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const subj = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, b.subject_resource, 'resource');
    const id = crypto.randomUUID();
    const at = now().toISOString();
    try {
      await db.run(
        `INSERT INTO relations (id, env_id, object_resource_id, key, name, description, subject_resource_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, req.env.envId, obj.id, b.key, b.name, b.description ?? null, subj.id, at, at],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate('relation', `${resource}#${b.key}`);
      throw err;
    }
    return relationRead((await db.get<RelationRow>(`SELECT ${SELECT} FROM ${FROM} WHERE rel.id = ?`, [id]))!, req.env);
  });

  app.get('/resources/:resource/relations/:key', async (req) => {
    const { resource, key } = req.params as { resource: string; key: string };
    const res = await findKeyed<{ id: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const row = await db.get<RelationRow>(`SELECT ${SELECT} FROM ${FROM} WHERE rel.object_resource_id = ? AND rel.key = ?`, [res.id, key]);
    if (!row) throw notFound('relation', `${resource}#${key}`);
    return relationRead(row, req.env);
  });

  app.delete('/resources/:resource/relations/:key', async (req, reply) => {
    const { resource, key } = req.params as { resource: string; key: string };
    await db.transaction(async (tx) => {
      const res = await findKeyed<{ id: string }>(tx, 'resources', req.env.envId, resource, 'resource');
      const { changes } = await tx.run(`DELETE FROM relations WHERE object_resource_id = ? AND key = ?`, [res.id, key]);
      if (!changes) throw notFound('relation', `${resource}#${key}`);
      // Tuples of the relation go with it (its derivations cascade): a tuple names its relation.
      await tx.run(`DELETE FROM relationship_tuples WHERE relation = ? AND object_id IN (SELECT id FROM resource_instances WHERE resource_id = ?)`, [key, res.id]);
    });
    return reply.status(204).send();
  });


  app.get('/resources/:resource/roles/:role/implicit_grants', async (req) => {
    const { resource, role } = req.params as { resource: string; role: string };
    const res = await findKeyed<{ id: string; key: string }>(db, 'resources', req.env.envId, resource, 'resource');
    const r = await findRoleOn(db, req.env.envId, res, role);
    return db.all(
      `SELECT lr.key AS role, onr.key AS on_resource, rel.key AS linked_by_relation FROM implicit_grants g
       JOIN roles lr ON lr.id = g.linked_role_id JOIN resources onr ON onr.id = g.on_resource_id JOIN relations rel ON rel.id = g.relation_id
       WHERE g.resource_id = ? AND g.role_id = ? ORDER BY g.created_at, g.id`,
      [res.id, r.id],
    );
  });

  const resolveGrant = async (req: import('fastify').FastifyRequest) => {
    const { resource, role } = req.params as { resource: string; role: string };
    const b = req.body as { role: string; on_resource: string; linked_by_relation: string };
    const envId = req.env.envId;
    // Both roles are named on a resource: each its resource's own role of that key, else the top-level one.
    const res = await findKeyed<{ id: string; key: string }>(db, 'resources', envId, resource, 'resource');
    const r = await findRoleOn(db, envId, res, role);
    const onRes = await findKeyed<{ id: string; key: string }>(db, 'resources', envId, b.on_resource, 'resource');
    const linked = await findRoleOn(db, envId, onRes, b.role);
    const rel = await db.get<{ id: string }>(`SELECT id FROM relations WHERE object_resource_id = ? AND key = ?`, [res.id, b.linked_by_relation]);
    if (!rel) throw notFound('relation', `${resource}#${b.linked_by_relation}`);
    return { resourceId: res.id, roleId: r.id, onResourceId: onRes.id, linkedRoleId: linked.id, relationId: rel.id, body: b };
  };

  app.post('/resources/:resource/roles/:role/implicit_grants', { schema: { body: GRANT } }, async (req) => {
    const g = await resolveGrant(req);
    await ensureImplicitGrant(db, req.env.envId, g, now().toISOString());
    // The public `DerivedRoleRuleRead`: the deriving role, its resource and the relation, by id and key.
    return { role_id: g.linkedRoleId, resource_id: g.onResourceId, relation_id: g.relationId, role: g.body.role, on_resource: g.body.on_resource, linked_by_relation: g.body.linked_by_relation };
  });

  app.delete('/resources/:resource/roles/:role/implicit_grants', { schema: { body: GRANT } }, async (req, reply) => {
    const g = await resolveGrant(req);
    const changes = await db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `DELETE FROM implicit_grants WHERE resource_id = ? AND role_id = ? AND on_resource_id = ? AND linked_role_id = ? AND relation_id = ?`,
        [g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId],
      );
      if (changes) await dropUnderivedGroupGrants(tx, g);
      return changes;
    });
    if (!changes) throw notFound('role derivation', `${g.body.role} on ${g.body.on_resource} by ${g.body.linked_by_relation}`);
    return reply.status(204).send();
  });
}
