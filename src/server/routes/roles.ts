import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging, schemaList } from '../paging.js';
import { attributeFilters } from '../repo/attribute-filter.js';
import { ATTRIBUTES, KEY, NAME, TEXT, SEARCH_QUERY, strictObject } from '../schemas.js';
import { findKeyed } from '../repo/common.js';
import { roleRead, type RoleRow } from '../repo/roles.js';
import { createRole, deleteRole, listRoles, updateRole } from '../repo/role-writes.js';
import { grantedToReads } from '../repo/derivation-writes.js';
import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { GRANTED_TO } from './implicit-grants.js';
import { pathParams, typed } from './typed.js';

const PERMISSION = { type: 'string', pattern: '^[A-Za-z0-9\\-_]+:[A-Za-z0-9\\-_]+$', maxLength: 513 } as const;
const LIST = <const T extends object>(item: T) => ({ type: 'array', items: item, maxItems: 1000 }) as const;
const FIELDS = {
  name: NAME,
  description: TEXT,
  permissions: LIST(PERMISSION),
  extends: LIST(KEY),
  attributes: ATTRIBUTES,
} as const;
const CREATE = strictObject({ key: KEY, ...FIELDS, granted_to: GRANTED_TO }, ['key', 'name']);
const UPDATE = strictObject({ ...FIELDS, granted_to: GRANTED_TO });

/** Role reads with `granted_to` where the role carries derivations (the public `RoleRead`; on every resource, each rule once). */
async function reads(q: Queryable, rows: RoleRow[], env: EnvContext) {
  const blocks = await grantedToReads(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...roleRead(r, env), ...(blocks.has(r.id) ? { granted_to: blocks.get(r.id) } : {}) }));
}

const KEY_PARAM = pathParams('key');

/** Roles: `/v2/schema/{p}/{e}/roles[/{key}]`, with permissions as `resource:action` strings. */
export default async function roleRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.get('/roles', { schema: { querystring: SEARCH_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const { rows, total } = await listRoles(db, req.env.envId, req.query.search, paging, attributeFilters(req.query));
    return schemaList(await reads(db, rows, req.env), total, paging, req.query);
  });

  app.post('/roles', { schema: { body: CREATE } }, async (req) => {
    const at = now().toISOString();
    return db.transaction(
      async (tx) => (await reads(tx, [await createRole(tx, req.env.envId, req.body, at)], req.env))[0],
    );
  });

  app.get('/roles/:key', { schema: { params: KEY_PARAM } }, async (req) => {
    return (
      await reads(db, [await findKeyed<RoleRow>(db, 'roles', req.env.envId, req.params.key, 'role')], req.env)
    )[0];
  });

  app.patch('/roles/:key', { schema: { body: UPDATE, params: KEY_PARAM } }, async (req) => {
    const at = now().toISOString();
    return db.transaction(
      async (tx) => (await reads(tx, [await updateRole(tx, req.env.envId, req.params.key, req.body, at)], req.env))[0],
    );
  });

  // Deleting a role removes its assignments and group grants (cascade), and its name from other roles'
  // `extends` and from element configurations' reviewer levels.
  app.delete('/roles/:key', { schema: { params: KEY_PARAM } }, async (req, reply) => {
    await db.transaction((tx) => deleteRole(tx, req.env.envId, req.params.key, now().toISOString()));
    return reply.status(204).send();
  });
}
