import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { invalid } from '../errors.js';
import { parsePaging, envelope } from '../paging.js';
import { ATTRIBUTES, EMAIL, PERSON_NAME, INSTANCE_REF, KEY, PAGING_QUERY, USER_KEY, strictObject } from '../schemas.js';
import { findKeyed, findKeyedOrNull } from '../repo/common.js';
import type { Queryable } from '../store/db.js';
import { userReads, type UserRow } from '../repo/users.js';
import { assignRole, assignmentRead, readAssignment, unassignRole } from '../repo/assignments.js';
import {
  addUserToTenant,
  deleteUser,
  listTenantUsers,
  listUsers,
  readUser,
  removeUserFromTenant,
  updateUser,
  writeUser,
} from '../repo/user-writes.js';
import { pathParams, typed } from './typed.js';

const ROLE_REF = strictObject({ role: KEY, tenant: KEY, resource_instance: INSTANCE_REF }, ['role']);
/** The public `UserRoleRemove`: removing names the tenant. */
const ROLE_REMOVAL = strictObject(ROLE_REF.properties, ['role', 'tenant']);
const FIELDS = { email: EMAIL, first_name: PERSON_NAME, last_name: PERSON_NAME, attributes: ATTRIBUTES } as const;
const CREATE = strictObject(
  { key: USER_KEY, ...FIELDS, role_assignments: { type: 'array', items: ROLE_REF, maxItems: 1000 } },
  ['key'],
);
const UPDATE = strictObject(FIELDS);
const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    search: { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string' },
  },
} as const;
const KEY_PARAM = pathParams('key');
const TENANT_PARAM = pathParams('tenant');

/**
 * Users: `/v2/facts/{p}/{e}/users[/{key}]` (list answers the envelope), PUT upserts (the SDKs' `sync`),
 * `/users/{key}/roles` assigns, and tenant membership under `/tenants/{tenant}/users`.
 */
export default async function userRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/users', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listUsers(db, req.env.envId, req.query, paging);
    return envelope(await userReads(db, req.env, rows, { walking: paging.page > 1 }), total, paging);
  });

  // POST answers 200; PUT (the SDKs' `users.sync`) answers 201 when it created the user and 200 when it
  // replaced one: the SDK reports `created` from the status.
  app.post('/users', { schema: { body: CREATE } }, async (req) => {
    const at = now().toISOString();
    return db.transaction(async (tx) => {
      const { id } = await writeUser(tx, req.env.envId, req.body, at, false);
      return (await userReads(tx, req.env, [await readUser(tx, id)]))[0];
    });
  });
  // The path names the user, so its key is checked like a body key (PUT creates the user when missing).
  // The body names it too (the public `UserCreate` requires `key`): the two must agree.
  app.put(
    '/users/:key',
    { schema: { body: CREATE, params: { type: 'object', properties: { key: USER_KEY }, required: ['key'] } } },
    async (req, reply) => {
      const at = now().toISOString();
      const { created, answer } = await db.transaction(async (tx) => {
        await checkPathNamesBodyKey(tx, req.env.envId, req.params.key, req.body.key);
        const { id, created } = await writeUser(tx, req.env.envId, req.body, at, true);
        return { created, answer: (await userReads(tx, req.env, [await readUser(tx, id)]))[0] };
      });
      return reply.status(created ? 201 : 200).send(answer);
    },
  );

  app.get('/users/:key', { schema: { params: KEY_PARAM } }, async (req) => {
    const row = await findKeyed<UserRow>(db, 'users', req.env.envId, req.params.key, 'user');
    return (await userReads(db, req.env, [row]))[0];
  });

  app.patch('/users/:key', { schema: { body: UPDATE, params: KEY_PARAM } }, async (req) => {
    const row = await updateUser(db, req.env.envId, req.params.key, req.body, now().toISOString());
    return (await userReads(db, req.env, [row]))[0];
  });

  // Deleting a user removes their memberships and role assignments (cascade).
  app.delete('/users/:key', { schema: { params: KEY_PARAM } }, async (req, reply) => {
    await deleteUser(db, req.env.envId, req.params.key);
    return reply.status(204).send();
  });

  // Answers the assignment it made, as `POST /role_assignments` does.
  app.post('/users/:key/roles', { schema: { body: ROLE_REF, params: KEY_PARAM } }, async (req) => {
    const at = now().toISOString();
    const a = { ...req.body, user: req.params.key };
    const { id } = await db.transaction((tx) => assignRole(tx, req.env.envId, a, at, { createInstance: true }));
    return assignmentRead((await readAssignment(db, id))!, req.env);
  });
  app.delete('/users/:key/roles', { schema: { body: ROLE_REMOVAL, params: KEY_PARAM } }, async (req, reply) => {
    await db.transaction((tx) => unassignRole(tx, req.env.envId, { ...req.body, user: req.params.key }));
    return reply.status(204).send();
  });

  // Tenant membership: "create and add" (the user is created when missing), list, remove.
  app.post('/tenants/:tenant/users', { schema: { body: CREATE, params: TENANT_PARAM } }, async (req) => {
    const at = now().toISOString();
    // The answer is read in the transaction: it is ready when the transaction commits.
    return db.transaction(async (tx) => {
      const row = await addUserToTenant(tx, req.env.envId, req.params.tenant, req.body, at);
      return (await userReads(tx, req.env, [row]))[0];
    });
  });

  app.get('/tenants/:tenant/users', { schema: { querystring: PAGING_QUERY, params: TENANT_PARAM } }, async (req) => {
    const paging = parsePaging(req.query);
    const t = await findKeyed<{ id: string }>(db, 'tenants', req.env.envId, req.params.tenant, 'tenant');
    const { rows, total } = await listTenantUsers(db, t.id, paging);
    return envelope(await userReads(db, req.env, rows), total, paging);
  });

  // Removing a user from a tenant also removes their roles (and group memberships) in it.
  app.delete(
    '/tenants/:tenant/users/:user',
    { schema: { params: pathParams('tenant', 'user') } },
    async (req, reply) => {
      const { tenant, user } = req.params;
      await db.transaction((tx) => removeUserFromTenant(tx, req.env.envId, tenant, user));
      return reply.status(204).send();
    },
  );
}

/**
 * `PUT /users/{user_id}`: the path names the user by key or id (the public `user_id`), or, when no user
 * has that key or id, the key of the user to create; the body's `key` must be that user's key. A body
 * naming another user is refused (422 at `body.key`) rather than guessed at: taking the path's key would
 * drop the body's, taking the body's would rename a user (keys never change here) or replace another one.
 */
async function checkPathNamesBodyKey(q: Queryable, envId: string, ref: string, bodyKey: string): Promise<void> {
  const named = (await findKeyedOrNull<UserRow>(q, 'users', envId, ref))?.key ?? ref;
  if (bodyKey !== named) {
    throw invalid(
      ['body', 'key'],
      `the body's key '${bodyKey}' is not the user the path names ('${named}'): a user's key never changes; send key '${named}', or create '${bodyKey}' with its own PUT or POST`,
    );
  }
}
