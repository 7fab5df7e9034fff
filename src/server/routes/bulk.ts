import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate, httpError } from '../errors.js';
import { ATTRIBUTES, EMAIL, KEY, USER_KEY, strictObject } from '../schemas.js';
import { findKeyed } from '../repo/common.js';
import { upsertUser } from '../repo/users.js';
import { findInstanceOrNull } from '../repo/assignments.js';

/** Each bulk call takes up to this many items and is applied whole or not at all. */
const BULK_MAX = 1000;
const NAME_FIELD = { type: ['string', 'null'], maxLength: 1024 } as const;
const USER = strictObject({ key: USER_KEY, email: EMAIL, first_name: NAME_FIELD, last_name: NAME_FIELD, attributes: ATTRIBUTES }, ['key']);
const INSTANCE = strictObject({ key: KEY, tenant: KEY, resource: KEY, attributes: ATTRIBUTES }, ['key', 'tenant', 'resource']);
const ops = (item: object) => strictObject({ operations: { type: 'array', items: item, maxItems: BULK_MAX } }, ['operations']);
const idents = (item: object) => strictObject({ idents: { type: 'array', items: item, maxItems: BULK_MAX } }, ['idents']);

type UserBody = { key: string; email?: string | null; first_name?: string | null; last_name?: string | null; attributes?: Record<string, unknown> };
type InstanceBody = { key: string; tenant: string; resource: string; attributes?: Record<string, unknown> };

/**
 * Bulk users and resource instances under `/v2/facts/{p}/{e}`, as on the public service: `POST .../bulk`
 * creates (409 if one exists), `PUT .../bulk` creates or replaces (safe to repeat), `DELETE .../bulk`
 * deletes by key (missing ones are skipped). Apply uses them so that 10,000 users are 10 requests.
 */
export default async function bulkRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const writeUsers = (replace: boolean) => async (req: import('fastify').FastifyRequest) => {
    const { operations } = req.body as { operations: UserBody[] };
    const at = now().toISOString();
    let created = 0;
    await db.transaction(async (tx) => {
      for (const u of operations) {
        const r = await upsertUser(tx, req.env.envId, u, at, replace);
        if (!r.created && !replace) throw duplicate('user', u.key);
        if (r.created) created++;
      }
    });
    return { created, updated: replace ? operations.length - created : 0 };
  };
  app.post('/users/bulk', { schema: { body: ops(USER) } }, writeUsers(false));
  app.put('/users/bulk', { schema: { body: ops(USER) } }, writeUsers(true));
  app.delete('/users/bulk', { schema: { body: idents({ ...USER_KEY }) } }, async (req) => {
    const { idents: keys } = req.body as { idents: string[] };
    let deleted = 0;
    await db.transaction(async (tx) => {
      for (const key of keys) deleted += (await tx.run(`DELETE FROM users WHERE env_id = ? AND key = ?`, [req.env.envId, key])).changes;
    });
    return { deleted };
  });

  const writeInstances = (replace: boolean) => async (req: import('fastify').FastifyRequest) => {
    const { operations } = req.body as { operations: InstanceBody[] };
    const at = now().toISOString();
    let created = 0;
    await db.transaction(async (tx) => {
      for (const i of operations) {
        const res = await findKeyed<{ id: string }>(tx, 'resources', req.env.envId, i.resource, 'resource');
        const tenant = await findKeyed<{ id: string }>(tx, 'tenants', req.env.envId, i.tenant, 'tenant');
        const existing = await findInstanceOrNull(tx, req.env.envId, `${i.resource}:${i.key}`);
        if (existing) {
          if (!replace) throw duplicate('resource instance', `${i.resource}:${i.key}`);
          // A tenant is not updatable (the instance's grants and assignments live in it).
          if (existing.tenant_id !== tenant.id) {
            throw httpError('MISMATCH_RESOURCE_INSTANCES_TENANTS', `resource instance '${i.resource}:${i.key}' is in tenant '${existing.tenant_key}', not '${i.tenant}'`);
          }
          await tx.run(`UPDATE resource_instances SET attributes = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(i.attributes ?? {}), at, existing.id]);
          continue;
        }
        await tx.run(
          `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [crypto.randomUUID(), req.env.envId, res.id, i.key, tenant.id, JSON.stringify(i.attributes ?? {}), at, at],
        );
        created++;
      }
    });
    return { created, updated: replace ? operations.length - created : 0 };
  };
  app.post('/resource_instances/bulk', { schema: { body: ops(INSTANCE) } }, writeInstances(false));
  app.put('/resource_instances/bulk', { schema: { body: ops(INSTANCE) } }, writeInstances(true));
  app.delete('/resource_instances/bulk', { schema: { body: idents({ type: 'string', maxLength: 513 }) } }, async (req) => {
    const { idents: refs } = req.body as { idents: string[] };
    let deleted = 0;
    await db.transaction(async (tx) => {
      for (const ref of refs) {
        const inst = await findInstanceOrNull(tx, req.env.envId, ref);
        if (inst) deleted += (await tx.run(`DELETE FROM resource_instances WHERE id = ?`, [inst.id])).changes;
      }
    });
    return { deleted };
  });
}
