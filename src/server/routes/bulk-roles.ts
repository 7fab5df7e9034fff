import { newId } from '../new-id.js';
import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { invalid } from '../errors.js';
import { KEY, NAME, TEXT, ATTRIBUTES, strictObject } from '../schemas.js';
import { checkExtendsAll, checkPermissions } from '../repo/roles.js';

/** The public service's limit of roles per bulk call. */
export const ROLES_BULK_MAX = 2000;
const PERMISSION = { type: 'string', pattern: '^[A-Za-z0-9\\-_]+:[A-Za-z0-9\\-_]+$', maxLength: 513 } as const;
const LIST = (item: object) => ({ type: 'array', items: item, maxItems: 1000 }) as const;
// The public `RoleCreateBulk`, without `resource` and `granted_to`: roles here are tenant-wide, and
// derivations are written with implicit_grants. Either is refused (422), never silently dropped.
const ROLE = strictObject(
  {
    key: KEY,
    name: NAME,
    description: TEXT,
    permissions: LIST(PERMISSION),
    extends: LIST(KEY),
    attributes: ATTRIBUTES,
  },
  ['key', 'name'],
);
const BODY = strictObject({ operations: { type: 'array', items: ROLE, maxItems: ROLES_BULK_MAX } }, ['operations']);

type RoleBody = { key: string; name: string; description?: string | null; permissions?: string[]; extends?: string[] };

/**
 * `PUT /v2/schema/{p}/{e}/bulk/roles`: creates or replaces each role (a field left out is reset, as a
 * replace does), applied whole or not at all. Roles in one call may extend each other, in any order.
 * Answers the keys created and the keys replaced.
 */
export default async function bulkRoleRoutes(app: FastifyInstance, { db, now }: ServerDeps) {
  app.put('/bulk/roles', { schema: { body: BODY } }, async (req) => {
    const { operations } = req.body as { operations: RoleBody[] };
    const keys = operations.map((o) => o.key);
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) throw invalid(['body', 'operations'], `role '${twice}' appears more than once`);
    const at = now().toISOString();
    const envId = req.env.envId;
    return db.transaction(async (tx) => {
      const created: string[] = [];
      const updated: string[] = [];
      // First every role exists with its own fields, then the `extends` lists, checked together.
      for (const o of operations) {
        const permissions = JSON.stringify(await checkPermissions(tx, envId, o.permissions ?? []));
        const existing = await tx.get<{ id: string }>(
          `SELECT id FROM roles WHERE env_id = ? AND key = ? AND resource_id IS NULL`,
          [envId, o.key],
        );
        if (existing) {
          await tx.run(`UPDATE roles SET name = ?, description = ?, permissions = ?, updated_at = ? WHERE id = ?`, [
            o.name,
            o.description ?? null,
            permissions,
            at,
            existing.id,
          ]);
          updated.push(o.key);
        } else {
          await tx.run(
            `INSERT INTO roles (id, env_id, key, name, description, permissions, extends, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?)`,
            [newId(), envId, o.key, o.name, o.description ?? null, permissions, at, at],
          );
          created.push(o.key);
        }
      }
      const ext = await checkExtendsAll(tx, envId, new Map(operations.map((o) => [o.key, o.extends ?? []])));
      for (const [key, list] of ext)
        await tx.run(`UPDATE roles SET extends = ? WHERE env_id = ? AND key = ? AND resource_id IS NULL`, [
          JSON.stringify(list),
          envId,
          key,
        ]);
      return { created, updated };
    });
  });
}
