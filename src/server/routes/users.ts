import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { duplicate, invalid, notFound } from '../errors.js';
import { parsePaging, envelope } from '../paging.js';
import { ATTRIBUTES, EMAIL, PERSON_NAME, INSTANCE_REF, KEY, PAGING_QUERY, USER_KEY, strictObject } from '../schemas.js';
import { containsPattern, findKeyed, findKeyedOrNull, pageOf, whereOf } from '../repo/common.js';
import type { Queryable } from '../store/db.js';
import { userReads, upsertUser, type UserFields, type UserRow } from '../repo/users.js';
import {
  ASSIGNMENT_FROM,
  ASSIGNMENT_SELECT,
  assignRole,
  assignmentRead,
  unassignRole,
  type AssignmentInput,
  type AssignmentRow,
} from '../repo/assignments.js';

const ROLE_REF = strictObject({ role: KEY, tenant: KEY, resource_instance: INSTANCE_REF }, ['role']);
/** The public `UserRoleRemove`: removing names the tenant. */
const ROLE_REMOVAL = { ...ROLE_REF, required: ['role', 'tenant'] };
const FIELDS = { email: EMAIL, first_name: PERSON_NAME, last_name: PERSON_NAME, attributes: ATTRIBUTES };
const CREATE = strictObject(
  { key: USER_KEY, ...FIELDS, role_assignments: { type: 'array', items: ROLE_REF, maxItems: 1000 } },
  ['key'],
);
const LIST_QUERY = {
  ...PAGING_QUERY,
  properties: {
    ...PAGING_QUERY.properties,
    search: { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string' },
  },
};

type Body = UserFields & { role_assignments?: Omit<AssignmentInput, 'user'>[] };

/**
 * Users: `/v2/facts/{p}/{e}/users[/{key}]` (list answers the envelope), PUT upserts (the SDKs' `sync`),
 * `/users/{key}/roles` assigns, and tenant membership under `/tenants/{tenant}/users`.
 */
export default async function userRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.get('/users', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const query = req.query as Record<string, string | undefined>;
    const paging = parsePaging(query);
    const { where, params } = whereOf(
      [
        [
          `(key LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\')`,
          query.search !== undefined ? containsPattern(query.search) : undefined,
        ],
        [
          `id IN (SELECT ra.user_id FROM role_assignments ra JOIN tenants t ON t.id = ra.tenant_id WHERE t.key = ? UNION SELECT tu.user_id FROM tenant_users tu JOIN tenants t ON t.id = tu.tenant_id WHERE t.key = ?)`,
          query.tenant,
        ],
        [
          `id IN (SELECT ra.user_id FROM role_assignments ra JOIN roles r ON r.id = ra.role_id WHERE r.key = ?)`,
          query.role,
        ],
      ],
      ['env_id = ?'],
      [req.env.envId],
    );
    const { rows, total } = await pageOf<UserRow>(db, 'users', where, params, paging, '*', 'created_at, id', {
      byCursor: true,
    });
    return envelope(await userReads(db, req.env, rows, { walking: paging.page > 1 }), total, paging);
  });

  // PUT (the SDKs' `users.sync`) answers 201 when it created the user and 200 when it replaced one:
  // the SDK reports `created` from the status.
  const create =
    (replace: boolean, fromPath: boolean) =>
    async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
      const b = req.body as Body;
      const key = b.key;
      const at = now().toISOString();
      const { created, answer } = await db.transaction(async (tx) => {
        if (fromPath) await checkPathNamesBodyKey(tx, req.env.envId, (req.params as { key: string }).key, key);
        const { id, created } = await upsertUser(tx, req.env.envId, b, at, replace);
        if (!created && !replace) throw duplicate('user', key);
        for (const ra of b.role_assignments ?? [])
          await assignRole(tx, req.env.envId, { ...ra, user: key }, at, { ignoreDuplicate: true });
        const row = (await tx.get<UserRow>(`SELECT * FROM users WHERE id = ?`, [id]))!;
        return { created, answer: (await userReads(tx, req.env, [row]))[0] };
      });
      return reply.status(replace && created ? 201 : 200).send(answer);
    };
  app.post('/users', { schema: { body: CREATE } }, create(false, false));
  // The path names the user, so its key is checked like a body key (PUT creates the user when missing).
  // The body names it too (the public `UserCreate` requires `key`): the two must agree.
  app.put(
    '/users/:key',
    { schema: { body: CREATE, params: { type: 'object', properties: { key: USER_KEY } } } },
    create(true, true),
  );

  app.get('/users/:key', async (req) => {
    const { key } = req.params as { key: string };
    return (await userReads(db, req.env, [await findKeyed<UserRow>(db, 'users', req.env.envId, key, 'user')]))[0];
  });

  app.patch('/users/:key', { schema: { body: strictObject(FIELDS) } }, async (req) => {
    const { key } = req.params as { key: string };
    const b = req.body as UserFields;
    const row = await findKeyed<UserRow>(db, 'users', req.env.envId, key, 'user');
    await db.run(
      `UPDATE users SET email = ?, first_name = ?, last_name = ?, attributes = ?, updated_at = ? WHERE id = ?`,
      [
        b.email !== undefined ? b.email : row.email,
        b.first_name !== undefined ? b.first_name : row.first_name,
        b.last_name !== undefined ? b.last_name : row.last_name,
        b.attributes !== undefined ? JSON.stringify(b.attributes) : row.attributes,
        now().toISOString(),
        row.id,
      ],
    );
    return (await userReads(db, req.env, [(await db.get<UserRow>(`SELECT * FROM users WHERE id = ?`, [row.id]))!]))[0];
  });

  // Deleting a user removes their memberships and role assignments (cascade).
  app.delete('/users/:key', async (req, reply) => {
    const { key } = req.params as { key: string };
    const row = await findKeyed<UserRow>(db, 'users', req.env.envId, key, 'user');
    await db.run(`DELETE FROM users WHERE id = ?`, [row.id]);
    return reply.status(204).send();
  });

  // Answers the assignment it made, as `POST /role_assignments` does.
  app.post('/users/:key/roles', { schema: { body: ROLE_REF } }, async (req) => {
    const { key } = req.params as { key: string };
    const at = now().toISOString();
    const { id } = await db.transaction((tx) =>
      assignRole(tx, req.env.envId, { ...(req.body as Omit<AssignmentInput, 'user'>), user: key }, at, {
        createInstance: true,
      }),
    );
    return assignmentRead(
      (await db.get<AssignmentRow>(`SELECT ${ASSIGNMENT_SELECT} FROM ${ASSIGNMENT_FROM} WHERE ra.id = ?`, [id]))!,
      req.env,
    );
  });
  app.delete('/users/:key/roles', { schema: { body: ROLE_REMOVAL } }, async (req, reply) => {
    const { key } = req.params as { key: string };
    await db.transaction((tx) =>
      unassignRole(tx, req.env.envId, { ...(req.body as Omit<AssignmentInput, 'user'>), user: key }),
    );
    return reply.status(204).send();
  });

  // Tenant membership: "create and add" (the user is created when missing), list, remove.
  app.post('/tenants/:tenant/users', { schema: { body: CREATE } }, async (req) => {
    const { tenant } = req.params as { tenant: string };
    const b = req.body as Body;
    const at = now().toISOString();
    // The answer is read in the transaction: it is ready when the transaction commits.
    return db.transaction(async (tx) => {
      const t = await findKeyed<{ id: string }>(tx, 'tenants', req.env.envId, tenant, 'tenant');
      const { id, row } = await upsertUser(tx, req.env.envId, b, at, false);
      await tx.run(
        `INSERT INTO tenant_users (tenant_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT (tenant_id, user_id) DO NOTHING`,
        [t.id, id, at],
      );
      for (const ra of b.role_assignments ?? [])
        await assignRole(tx, req.env.envId, { tenant, ...ra, user: b.key }, at, { ignoreDuplicate: true });
      return (
        await userReads(tx, req.env, [row ?? (await tx.get<UserRow>(`SELECT * FROM users WHERE id = ?`, [id]))!])
      )[0];
    });
  });

  app.get('/tenants/:tenant/users', { schema: { querystring: PAGING_QUERY } }, async (req) => {
    const { tenant } = req.params as { tenant: string };
    const paging = parsePaging(req.query as Record<string, unknown>);
    const t = await findKeyed<{ id: string }>(db, 'tenants', req.env.envId, tenant, 'tenant');
    const { rows, total } = await pageOf<UserRow>(
      db,
      'users',
      `id IN (SELECT user_id FROM tenant_users WHERE tenant_id = ? UNION SELECT user_id FROM role_assignments WHERE tenant_id = ?)`,
      [t.id, t.id],
      paging,
    );
    return envelope(await userReads(db, req.env, rows), total, paging);
  });

  // Removing a user from a tenant also removes their roles (and group memberships) in it.
  app.delete('/tenants/:tenant/users/:user', async (req, reply) => {
    const { tenant, user } = req.params as { tenant: string; user: string };
    await db.transaction(async (tx) => {
      const t = await findKeyed<{ id: string }>(tx, 'tenants', req.env.envId, tenant, 'tenant');
      const u = await findKeyed<{ id: string }>(tx, 'users', req.env.envId, user, 'user');
      const a = await tx.run(`DELETE FROM tenant_users WHERE tenant_id = ? AND user_id = ?`, [t.id, u.id]);
      const b = await tx.run(`DELETE FROM role_assignments WHERE tenant_id = ? AND user_id = ?`, [t.id, u.id]);
      if (a.changes + b.changes === 0) throw notFound('user in tenant', `${user}@${tenant}`);
    });
    return reply.status(204).send();
  });
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
