import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { roleRead } from '../repo/roles.js';
import { changeRolePermissions } from '../repo/role-writes.js';
import { strictObject } from '../schemas.js';
import { pathParams, typed } from './typed.js';

// A permission is `resource:action` or the id of a resource's action, as on the public service.
const BODY = strictObject(
  {
    permissions: {
      type: 'array',
      items: { type: 'string', pattern: '^[A-Za-z0-9\\-_]+(:[A-Za-z0-9\\-_]+)?$', maxLength: 513 },
      maxItems: 1000,
    },
  },
  ['permissions'],
);

/**
 * `POST` and `DELETE /v2/schema/{p}/{e}/roles/{role}/permissions` (the public `assign_permissions_to_role`
 * and `remove_permissions_from_role`): add or remove some permissions of a role without restating the
 * others (changeRolePermissions, repo/role-writes.ts). Both answer the role.
 */
export default async function rolePermissionRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  for (const add of [true, false]) {
    app.route({
      method: add ? 'POST' : 'DELETE',
      url: '/roles/:key/permissions',
      schema: { body: BODY, params: pathParams('key') },
      handler: async (req) => {
        const at = now().toISOString();
        const row = await db.transaction((tx) =>
          changeRolePermissions(tx, req.env.envId, req.params.key, req.body.permissions, add, at),
        );
        return roleRead(row, req.env);
      },
    });
  }
}
