import { newId } from '../new-id.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate, httpError, invalid } from '../errors.js';
import { ATTRIBUTES, EMAIL, PERSON_NAME, INSTANCE_REF, KEY, NAME, TEXT, USER_KEY, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed, findKeyedOrNull } from '../repo/common.js';
import { insertUsers, upsertUser, userIdsByKey } from '../repo/users.js';
import { assignRole, findInstanceOrNull, type AssignmentInput } from '../repo/assignments.js';

/** Items per call, the public service's limits (api-notes "Bulk operations"). */
export const BULK_LIMITS = { users: 3000, tenants: 2000, resource_instances: 3000 } as const;

const ROLE_REF = strictObject({ role: KEY, tenant: KEY, resource_instance: INSTANCE_REF }, ['role']);
const USER = strictObject(
  {
    key: USER_KEY,
    email: EMAIL,
    first_name: PERSON_NAME,
    last_name: PERSON_NAME,
    attributes: ATTRIBUTES,
    role_assignments: { type: 'array', items: ROLE_REF, maxItems: 1000 },
  },
  ['key'],
);
const TENANT = strictObject({ key: KEY, name: NAME, description: TEXT, attributes: ATTRIBUTES }, ['key', 'name']);
const INSTANCE = strictObject({ key: KEY, tenant: KEY, resource: KEY, attributes: ATTRIBUTES }, [
  'key',
  'tenant',
  'resource',
]);
const IDENT = { type: 'string', minLength: 1, maxLength: 513 } as const;
const operations = (item: object, max: number) =>
  strictObject({ operations: { type: 'array', items: item, maxItems: max } }, ['operations']);
const idents = (max: number) => strictObject({ idents: { type: 'array', items: IDENT, maxItems: max } }, ['idents']);

type UserBody = {
  key: string;
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  attributes?: Record<string, unknown>;
  role_assignments?: Omit<AssignmentInput, 'user'>[];
};
type TenantBody = { key: string; name: string; description?: string | null; attributes?: Record<string, unknown> };
type InstanceBody = { key: string; tenant: string; resource: string; attributes?: Record<string, unknown> };

/**
 * The public bulk calls under `/v2/facts/{p}/{e}/bulk/...`: users (create, create-or-replace, delete),
 * tenants (create, delete), resource instances (create-or-replace, delete). Each call is applied whole
 * or not at all, and answers `{}` as the public service does. Creating something that exists fails the
 * call (409); deleting something missing skips it, so a repeated delete converges. An ident is a key
 * (`type:key` for an instance) or an id.
 */
export default async function bulkRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  // Creates are inserted many rows per statement; replacements update one user each.
  const writeUsers = (replace: boolean) => async (req: FastifyRequest) => {
    const given = (req.body as { operations: UserBody[] }).operations;
    if (!replace) noRepeats(given.map((u) => u.key));
    // A replace naming a user twice: the last one wins, as two calls would.
    const ops = [...new Map(given.map((u) => [u.key, u])).values()];
    const at = now().toISOString();
    const envId = req.env.envId;
    await db.transaction(async (tx) => {
      const existing = await userIdsByKey(
        tx,
        envId,
        ops.map((u) => u.key),
      );
      if (!replace) {
        const taken = ops.find((u) => existing.has(u.key));
        if (taken) throw duplicate('user', taken.key);
      }
      const lost = await insertUsers(
        tx,
        envId,
        ops.filter((u) => !existing.has(u.key)),
        at,
      );
      if (!replace && lost.length > 0) throw duplicate('user', lost[0]);
      const replaced = new Set([...existing.keys(), ...lost]);
      for (const u of ops) if (replaced.has(u.key)) await upsertUser(tx, envId, u, at, true);
      for (const u of ops)
        for (const ra of u.role_assignments ?? [])
          await assignRole(tx, envId, { ...ra, user: u.key }, at, { ignoreDuplicate: true });
    });
    return {};
  };
  app.post('/bulk/users', { schema: { body: operations(USER, BULK_LIMITS.users) } }, writeUsers(false));
  app.put('/bulk/users', { schema: { body: operations(USER, BULK_LIMITS.users) } }, writeUsers(true));

  // Deleting a user or a tenant removes what hangs on it (cascade), as the single deletes do.
  const deleteKeyed = (table: 'users' | 'tenants') => async (req: FastifyRequest) => {
    const { idents: given } = req.body as { idents: string[] };
    await db.transaction(async (tx) => {
      for (const ident of given) {
        const row = await findKeyedOrNull<{ id: string }>(tx, table, req.env.envId, ident);
        if (row) await tx.run(`DELETE FROM ${table} WHERE id = ?`, [row.id]);
      }
    });
    return {};
  };
  app.delete('/bulk/users', { schema: { body: idents(BULK_LIMITS.users) } }, deleteKeyed('users'));
  app.delete('/bulk/tenants', { schema: { body: idents(BULK_LIMITS.tenants) } }, deleteKeyed('tenants'));

  app.post('/bulk/tenants', { schema: { body: operations(TENANT, BULK_LIMITS.tenants) } }, async (req) => {
    const ops = (req.body as { operations: TenantBody[] }).operations;
    noRepeats(ops.map((t) => t.key));
    const at = now().toISOString();
    await db.transaction(async (tx) => {
      for (const t of ops) {
        if (await tx.get(`SELECT 1 AS x FROM tenants WHERE env_id = ? AND key = ?`, [req.env.envId, t.key]))
          throw duplicate('tenant', t.key);
        await tx.run(
          `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [newId(), req.env.envId, t.key, t.name, t.description ?? null, JSON.stringify(t.attributes ?? {}), at, at],
        );
      }
    });
    return {};
  });

  app.put(
    '/bulk/resource_instances',
    { schema: { body: operations(INSTANCE, BULK_LIMITS.resource_instances) } },
    async (req) => {
      const ops = (req.body as { operations: InstanceBody[] }).operations;
      const at = now().toISOString();
      await db.transaction(async (tx) => {
        for (const i of ops) await upsertInstance(tx, req.env.envId, i, at);
      });
      return {};
    },
  );

  app.delete('/bulk/resource_instances', { schema: { body: idents(BULK_LIMITS.resource_instances) } }, async (req) => {
    const { idents: refs } = req.body as { idents: string[] };
    await db.transaction(async (tx) => {
      for (const ref of refs) {
        // Deleting an instance removes its assignments, tuples and group grants, and the group if it is one.
        const inst = await findInstanceOrNull(tx, req.env.envId, ref);
        if (inst) await tx.run(`DELETE FROM resource_instances WHERE id = ?`, [inst.id]);
      }
    });
    return {};
  });
}

/** Creates the instance, or replaces its attributes. Its tenant never changes (its grants live in it). */
async function upsertInstance(tx: Queryable, envId: string, i: InstanceBody, at: string): Promise<void> {
  const res = await findKeyed<{ id: string }>(tx, 'resources', envId, i.resource, 'resource');
  const tenant = await findKeyed<{ id: string }>(tx, 'tenants', envId, i.tenant, 'tenant');
  const existing = await findInstanceOrNull(tx, envId, `${i.resource}:${i.key}`);
  if (existing) {
    if (existing.tenant_id !== tenant.id) {
      throw httpError(
        'MISMATCH_RESOURCE_INSTANCES_TENANTS',
        `resource instance '${i.resource}:${i.key}' is in tenant '${existing.tenant_key}', not '${i.tenant}'`,
      );
    }
    await tx.run(`UPDATE resource_instances SET attributes = ?, updated_at = ? WHERE id = ?`, [
      JSON.stringify(i.attributes ?? {}),
      at,
      existing.id,
    ]);
    return;
  }
  await tx.run(
    `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [newId(), envId, res.id, i.key, tenant.id, JSON.stringify(i.attributes ?? {}), at, at],
  );
}

/** A create names each object once: a second create of the same one in one call could only fail (409). */
function noRepeats(keys: string[]): void {
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) throw invalid(['body', 'operations'], `'${k}' appears more than once`);
    seen.add(k);
  }
}
