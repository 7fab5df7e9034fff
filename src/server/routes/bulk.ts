import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { invalid } from '../errors.js';
import { ATTRIBUTES, EMAIL, PERSON_NAME, INSTANCE_REF, KEY, NAME, TEXT, USER_KEY, strictObject } from '../schemas.js';
import { createTenants, deleteInstances, deleteKeyed, upsertInstance, writeUsers } from '../repo/bulk-writes.js';
import { typed } from './typed.js';

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
const operations = <const T extends object>(item: T, max: number) =>
  strictObject({ operations: { type: 'array', items: item, maxItems: max } }, ['operations']);
const idents = (max: number) => strictObject({ idents: { type: 'array', items: IDENT, maxItems: max } }, ['idents']);
const USERS = operations(USER, BULK_LIMITS.users);
const USER_IDENTS = idents(BULK_LIMITS.users);
const TENANT_IDENTS = idents(BULK_LIMITS.tenants);

/**
 * The public bulk calls under `/v2/facts/{p}/{e}/bulk/...`: users (create, create-or-replace, delete),
 * tenants (create, delete), resource instances (create-or-replace, delete). Each call is applied whole
 * or not at all (repo/bulk-writes.ts), and answers `{}` as the public service does. Creating something
 * that exists fails the call (409); deleting something missing skips it, so a repeated delete converges.
 * An ident is a key (`type:key` for an instance) or an id.
 */
export default async function bulkRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  for (const replace of [false, true]) {
    app.route({
      method: replace ? 'PUT' : 'POST',
      url: '/bulk/users',
      schema: { body: USERS },
      handler: async (req) => {
        const given = req.body.operations;
        if (!replace) noRepeats(given.map((u) => u.key));
        const at = now().toISOString();
        await db.transaction((tx) => writeUsers(tx, req.env.envId, given, at, replace));
        return {};
      },
    });
  }

  // Deleting a user or a tenant removes what hangs on it (cascade), as the single deletes do.
  for (const [table, body] of [
    ['users', USER_IDENTS],
    ['tenants', TENANT_IDENTS],
  ] as const) {
    app.delete(`/bulk/${table}`, { schema: { body } }, async (req) => {
      await db.transaction((tx) => deleteKeyed(tx, req.env.envId, table, req.body.idents));
      return {};
    });
  }

  app.post('/bulk/tenants', { schema: { body: operations(TENANT, BULK_LIMITS.tenants) } }, async (req) => {
    const ops = req.body.operations;
    noRepeats(ops.map((t) => t.key));
    const at = now().toISOString();
    await db.transaction((tx) => createTenants(tx, req.env.envId, ops, at));
    return {};
  });

  app.put(
    '/bulk/resource_instances',
    { schema: { body: operations(INSTANCE, BULK_LIMITS.resource_instances) } },
    async (req) => {
      const at = now().toISOString();
      await db.transaction(async (tx) => {
        for (const i of req.body.operations) await upsertInstance(tx, req.env.envId, i, at);
      });
      return {};
    },
  );

  app.delete('/bulk/resource_instances', { schema: { body: idents(BULK_LIMITS.resource_instances) } }, async (req) => {
    await db.transaction((tx) => deleteInstances(tx, req.env.envId, req.body.idents));
    return {};
  });
}

/** A create names each object once: a second create of the same one in one call could only fail (409). */
function noRepeats(keys: string[]): void {
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) throw invalid(['body', 'operations'], `'${k}' appears more than once`);
    seen.add(k);
  }
}
