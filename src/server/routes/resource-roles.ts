import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { parsePaging } from '../paging.js';
import { ATTRIBUTES, KEY, NAME, TEXT, strictObject } from '../schemas.js';
import type { Queryable } from '../store/db.js';
import { findKeyed, parseJson } from '../repo/common.js';
import type { ResourceRow } from '../repo/resources.js';
import type { RoleRow } from '../repo/roles.js';
import {
  findResourceRole,
  relatedResourceRoles,
  resourceRolePermissions,
  resourceRoleRead,
} from '../repo/role-scope.js';
import { deleteResourceRoles, writeResourceRoles, type ResourceRoleBody } from '../repo/resource-role-writes.js';
import { grantedToReads, replaceGrantedTo, type GrantedToInput } from '../repo/derivation-writes.js';
import type { EnvContext } from '../context.js';
import { GRANTED_TO } from './implicit-grants.js';

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
const LIST = (item: object) => ({ type: 'array', items: item, maxItems: 1000 }) as const;
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
};
export const ROLE_BLOCK = strictObject(ROLE_BLOCK_FIELDS, ['name']);
/** The public `ResourceRoleUpdate`: every field optional. */
const UPDATE = strictObject({ ...ROLE_BLOCK_FIELDS, granted_to: GRANTED_TO });
const CREATE = strictObject({ key: KEY, ...ROLE_BLOCK_FIELDS, granted_to: GRANTED_TO }, ['key', 'name']);
const PERMISSIONS = strictObject({ permissions: LIST(ROLE_PERMISSION) }, ['permissions']);

/**
 * Resource roles: `/v2/schema/{p}/{e}/resources/{resource}/roles[/{role}[/permissions|/ancestors|/descendants]]`,
 * the public `ResourceRoleRead` (permissions as the resource's action keys). A role is named by key or id.
 */
export default async function resourceRoleRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const resourceOf = (q: Queryable, req: FastifyRequest) =>
    findKeyed<ResourceRow>(q, 'resources', req.env.envId, (req.params as { resource: string }).resource, 'resource');
  const roleParam = (req: FastifyRequest) => (req.params as { role: string }).role;

  app.get('/resources/:resource/roles', async (req) => {
    const paging = parsePaging(req.query as Record<string, unknown>);
    const res = await resourceOf(db, req);
    const rows = await db.all<RoleRow>(
      `SELECT * FROM roles WHERE resource_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
      [res.id, paging.perPage, paging.offset],
    );
    return reads(db, rows, res, req.env);
  });

  app.post('/resources/:resource/roles', { schema: { body: CREATE } }, async (req) => {
    const { key, granted_to, ...b } = req.body as ResourceRoleBody & { key: string; granted_to?: GrantedToInput };
    return db.transaction(async (tx) => {
      const res = await resourceOf(tx, req);
      const at = now().toISOString();
      await writeResourceRoles(tx, req.env.envId, res, { [key]: b }, { at, create: true });
      const row = await findResourceRole(tx, res, key);
      if (granted_to) await replaceGrantedTo(tx, req.env.envId, row, res, granted_to, at);
      return (await reads(tx, [row], res, req.env))[0];
    });
  });

  app.get('/resources/:resource/roles/:role', async (req) => {
    const res = await resourceOf(db, req);
    return (await reads(db, [await findResourceRole(db, res, roleParam(req))], res, req.env))[0];
  });

  app.patch('/resources/:resource/roles/:role', { schema: { body: UPDATE } }, async (req) => {
    const { granted_to, ...b } = req.body as ResourceRoleBody & { granted_to?: GrantedToInput };
    return db.transaction(async (tx) => {
      const res = await resourceOf(tx, req);
      const role = await findResourceRole(tx, res, roleParam(req));
      const at = now().toISOString();
      await writeResourceRoles(tx, req.env.envId, res, { [role.key]: b }, { at });
      // Given, it replaces the role's derivations (replaceGrantedTo); left out, they stay.
      if (granted_to) await replaceGrantedTo(tx, req.env.envId, role, res, granted_to, at);
      return (await reads(tx, [await findResourceRole(tx, res, role.key)], res, req.env))[0];
    });
  });

  // Deleting a resource role removes its assignments, group grants and derivations (cascade), and its key
  // from the resource's other roles' `extends`.
  app.delete('/resources/:resource/roles/:role', async (req, reply) => {
    await db.transaction(async (tx) => {
      const res = await resourceOf(tx, req);
      const role = await findResourceRole(tx, res, roleParam(req));
      await deleteResourceRoles(tx, res.id, [role.key], now().toISOString());
    });
    return reply.status(204).send();
  });

  // Add or remove some permissions without restating the others (the public `assign_permissions_to_resource_role`
  // and `remove_permissions_from_resource_role`): an action key, `{resource}:{action}` or an action's id.
  // Adding one the role has, or removing one it lacks, is skipped; both answer the role.
  const change = (add: boolean) => async (req: FastifyRequest) => {
    const { permissions } = req.body as { permissions: string[] };
    const { res, row } = await db.transaction(async (tx) => {
      const res = await resourceOf(tx, req);
      const role = await findResourceRole(tx, res, roleParam(req));
      const had = parseJson<string[]>(role.permissions, []);
      let next: string[];
      if (add) next = resourceRolePermissions(res, [...had, ...permissions], { byId: true });
      else {
        // Removing: what does not name an action of the resource names nothing the role has.
        const names = new Set(
          permissions.flatMap((p) => {
            try {
              return resourceRolePermissions(res, [p], { byId: true });
            } catch {
              return [];
            }
          }),
        );
        next = had.filter((p) => !names.has(p));
      }
      if (next.length !== had.length || next.some((p, i) => p !== had[i])) {
        await tx.run(`UPDATE roles SET permissions = ?, updated_at = ? WHERE id = ?`, [
          JSON.stringify(next),
          now().toISOString(),
          role.id,
        ]);
      }
      return { res, row: await findResourceRole(tx, res, role.key) };
    });
    return resourceRoleRead(row, res, req.env);
  };
  app.post('/resources/:resource/roles/:role/permissions', { schema: { body: PERMISSIONS } }, change(true));
  app.delete('/resources/:resource/roles/:role/permissions', { schema: { body: PERMISSIONS } }, change(false));

  // The public `ResourceRoleList`. Ancestors: the roles this one extends, directly or not (it inherits
  // their permissions); descendants: the roles that extend it, directly or not.
  for (const direction of ['ancestors', 'descendants'] as const) {
    app.get(`/resources/:resource/roles/:role/${direction}`, async (req) => {
      const res = await resourceOf(db, req);
      const role = await findResourceRole(db, res, roleParam(req));
      const rows = await relatedResourceRoles(db, res.id, role.key, direction);
      return { roles: rows.map((r) => resourceRoleRead(r, res, req.env)) };
    });
  }
}
