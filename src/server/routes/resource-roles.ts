import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging } from '../paging.js';
import { ATTRIBUTES, KEY, NAME, TEXT, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed } from '../repo/common.js';
import type { ResourceRow } from '../repo/resources.js';
import type { RoleRow } from '../repo/roles.js';
import { findResourceRole, relatedResourceRoles, resourceRoleRead } from '../repo/role-scope.js';
import {
  changeResourceRolePermissions,
  deleteResourceRoles,
  listResourceRoles,
  writeResourceRoles,
} from '../repo/resource-role-writes.js';
import { grantedToReads, replaceGrantedTo } from '../repo/derivation-writes.js';
import type { EnvContext } from '../context.js';
import { GRANTED_TO } from './implicit-grants.js';
import { pathParams, typed } from './typed.js';

/** Resource role reads with `granted_to` where the role carries derivations (the public `ResourceRoleRead`). */
async function reads(q: Queryable, rows: RoleRow[], res: { id: string; key: string }, env: EnvContext) {
  const blocks = await grantedToReads(
    q,
    rows.map((r) => r.id),
    res.id,
  );
  return rows.map((r) => ({
    ...resourceRoleRead(r, res, env),
    ...(blocks.has(r.id) ? { granted_to: blocks.get(r.id) } : {}),
  }));
}

/** A resource role's permission: an action key (`read`) or `{resource}:{action}` of its own resource. */
export const ROLE_PERMISSION = {
  type: 'string',
  pattern: '^[A-Za-z0-9\\-_]+(:[A-Za-z0-9\\-_]+)?$',
  maxLength: 513,
} as const;
const LIST = <const T extends object>(item: T) => ({ type: 'array', items: item, maxItems: 1000 }) as const;
/**
 * The public `RoleBlockEditable` (a role inside `ResourceCreate.roles`), less `granted_to`: derivations
 * are written with `implicit_grants` and a `granted_to` here is refused (422), never silently dropped.
 * `attributes` is accepted and not kept, as for top-level roles.
 */
export const ROLE_BLOCK_FIELDS = {
  name: NAME,
  description: TEXT,
  permissions: LIST(ROLE_PERMISSION),
  extends: LIST(KEY),
  attributes: ATTRIBUTES,
} as const;
export const ROLE_BLOCK = strictObject(ROLE_BLOCK_FIELDS, ['name']);
/** The public `ResourceRoleUpdate`: every field optional. */
const UPDATE = strictObject({ ...ROLE_BLOCK_FIELDS, granted_to: GRANTED_TO });
const CREATE = strictObject({ key: KEY, ...ROLE_BLOCK_FIELDS, granted_to: GRANTED_TO }, ['key', 'name']);
const PERMISSIONS = strictObject({ permissions: LIST(ROLE_PERMISSION) }, ['permissions']);

/**
 * Resource roles: `/v2/schema/{p}/{e}/resources/{resource}/roles[/{role}[/permissions|/ancestors|/descendants]]`,
 * the public `ResourceRoleRead` (permissions as the resource's action keys). A role is named by key or id.
 */
const RESOURCE = pathParams('resource');
const ROLE = pathParams('resource', 'role');

export default async function resourceRoleRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  const resourceOf = (q: Queryable, envId: string, resource: string) =>
    findKeyed<ResourceRow>(q, 'resources', envId, resource, 'resource');

  app.get('/resources/:resource/roles', { schema: { params: RESOURCE } }, async (req) => {
    const paging = parsePaging(req.query);
    const res = await resourceOf(db, req.env.envId, req.params.resource);
    return reads(db, await listResourceRoles(db, res.id, paging), res, req.env);
  });

  app.post('/resources/:resource/roles', { schema: { body: CREATE, params: RESOURCE } }, async (req) => {
    const { key, granted_to, ...b } = req.body;
    return db.transaction(async (tx) => {
      const res = await resourceOf(tx, req.env.envId, req.params.resource);
      const at = now().toISOString();
      await writeResourceRoles(tx, req.env.envId, res, { [key]: b }, { at, create: true });
      const row = await findResourceRole(tx, res, key);
      if (granted_to) await replaceGrantedTo(tx, req.env.envId, row, res, granted_to, at);
      return (await reads(tx, [row], res, req.env))[0];
    });
  });

  app.get('/resources/:resource/roles/:role', { schema: { params: ROLE } }, async (req) => {
    const res = await resourceOf(db, req.env.envId, req.params.resource);
    return (await reads(db, [await findResourceRole(db, res, req.params.role)], res, req.env))[0];
  });

  app.patch('/resources/:resource/roles/:role', { schema: { body: UPDATE, params: ROLE } }, async (req) => {
    const { granted_to, ...b } = req.body;
    return db.transaction(async (tx) => {
      const res = await resourceOf(tx, req.env.envId, req.params.resource);
      const role = await findResourceRole(tx, res, req.params.role);
      const at = now().toISOString();
      await writeResourceRoles(tx, req.env.envId, res, { [role.key]: b }, { at });
      // Given, it replaces the role's derivations (replaceGrantedTo); left out, they stay.
      if (granted_to) await replaceGrantedTo(tx, req.env.envId, role, res, granted_to, at);
      return (await reads(tx, [await findResourceRole(tx, res, role.key)], res, req.env))[0];
    });
  });

  // Deleting a resource role removes its assignments, group grants and derivations (cascade), and its key
  // from the resource's other roles' `extends`.
  app.delete('/resources/:resource/roles/:role', { schema: { params: ROLE } }, async (req, reply) => {
    await db.transaction(async (tx) => {
      const res = await resourceOf(tx, req.env.envId, req.params.resource);
      const role = await findResourceRole(tx, res, req.params.role);
      await deleteResourceRoles(tx, res.id, [role.key], now().toISOString());
    });
    return reply.status(204).send();
  });

  // Add or remove some permissions without restating the others (the public `assign_permissions_to_resource_role`
  // and `remove_permissions_from_resource_role`, changeResourceRolePermissions); both answer the role.
  for (const add of [true, false]) {
    app.route({
      method: add ? 'POST' : 'DELETE',
      url: '/resources/:resource/roles/:role/permissions',
      schema: { body: PERMISSIONS, params: ROLE },
      handler: async (req) => {
        const { res, row } = await db.transaction(async (tx) => {
          const res = await resourceOf(tx, req.env.envId, req.params.resource);
          const role = await findResourceRole(tx, res, req.params.role);
          await changeResourceRolePermissions(tx, res, role, req.body.permissions, add, now().toISOString());
          return { res, row: await findResourceRole(tx, res, role.key) };
        });
        return resourceRoleRead(row, res, req.env);
      },
    });
  }

  // The public `ResourceRoleList`. Ancestors: the roles this one extends, directly or not (it inherits
  // their permissions); descendants: the roles that extend it, directly or not.
  for (const direction of ['ancestors', 'descendants'] as const) {
    app.get(`/resources/:resource/roles/:role/${direction}`, { schema: { params: ROLE } }, async (req) => {
      const res = await resourceOf(db, req.env.envId, req.params.resource);
      const role = await findResourceRole(db, res, req.params.role);
      const rows = await relatedResourceRoles(db, res.id, role.key, direction);
      return { roles: rows.map((r) => resourceRoleRead(r, res, req.env)) };
    });
  }
}
