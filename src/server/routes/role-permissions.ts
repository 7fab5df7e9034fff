import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../context.js';
import { notFound } from '../errors.js';
import { findKeyed, parseJson } from '../repo/common.js';
import { checkPermissions, roleRead, type RoleRow } from '../repo/roles.js';
import type { Actions } from '../repo/resources.js';
import type { Queryable } from '../store/db.js';
import { strictObject } from '../schemas.js';

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
 * others. Adding one the role has, or removing one it lacks, is skipped; both answer the role.
 */
export default async function rolePermissionRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  const change = (add: boolean) => async (req: FastifyRequest) => {
    const { key } = req.params as { key: string };
    const { permissions } = req.body as { permissions: string[] };
    const row = await db.transaction(async (tx) => {
      const role = await findKeyed<RoleRow>(tx, 'roles', req.env.envId, key, 'role');
      const names = await permissionNames(tx, req.env.envId, permissions, add);
      const had = parseJson<string[]>(role.permissions, []);
      // Added permissions must exist (404 naming the missing one, as a role create does); removed ones need not.
      const next = add
        ? await checkPermissions(tx, req.env.envId, [...had, ...names])
        : had.filter((p) => !names.includes(p));
      if (next.length !== had.length || next.some((p, i) => p !== had[i])) {
        await tx.run(`UPDATE roles SET permissions = ?, updated_at = ? WHERE id = ?`, [
          JSON.stringify(next),
          now().toISOString(),
          role.id,
        ]);
      }
      return (await tx.get<RoleRow>(`SELECT * FROM roles WHERE id = ?`, [role.id]))!;
    });
    return roleRead(row, req.env);
  };
  app.post('/roles/:key/permissions', { schema: { body: BODY } }, change(true));
  app.delete('/roles/:key/permissions', { schema: { body: BODY } }, change(false));
}

/**
 * Each permission as `resource:action`: an action id becomes its name. An unknown id is 404 when adding
 * and skipped when removing (there is nothing to remove).
 */
async function permissionNames(q: Queryable, envId: string, given: string[], strict: boolean): Promise<string[]> {
  const ids = given.filter((p) => !p.includes(':'));
  const byId = new Map<string, string>();
  if (ids.length > 0) {
    const rows = await q.all<{ key: string; actions: string }>(`SELECT key, actions FROM resources WHERE env_id = ?`, [
      envId,
    ]);
    for (const r of rows)
      for (const [action, a] of Object.entries(parseJson<Actions>(r.actions, {})))
        if (a.id) byId.set(a.id, `${r.key}:${action}`);
  }
  return given.flatMap((p) => {
    if (p.includes(':')) return [p];
    const name = byId.get(p);
    if (name) return [name];
    if (strict) throw notFound('permission', p);
    return [];
  });
}
