import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import { invalid } from '../errors.js';
import { KEY, NAME, TEXT, ATTRIBUTES, strictObject } from '../schemas.js';
import { putRoles } from '../repo/role-writes.js';
import { typed } from './typed.js';

/** The public service's limit of roles per bulk call. */
export const ROLES_BULK_MAX = 2000;
const PERMISSION = { type: 'string', pattern: '^[A-Za-z0-9\\-_]+:[A-Za-z0-9\\-_]+$', maxLength: 513 } as const;
const LIST = <const T extends object>(item: T) => ({ type: 'array', items: item, maxItems: 1000 }) as const;
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

/**
 * `PUT /v2/schema/{p}/{e}/bulk/roles`: creates or replaces each role (a field left out is reset, as a
 * replace does), applied whole or not at all. Roles in one call may extend each other, in any order.
 * Answers the keys created and the keys replaced.
 */
export default async function bulkRoleRoutes(base: FastifyInstance, { db, now }: ServerDeps) {
  const app = typed(base);
  app.put('/bulk/roles', { schema: { body: BODY } }, async (req) => {
    const { operations } = req.body;
    const keys = operations.map((o) => o.key);
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) throw invalid(['body', 'operations'], `role '${twice}' appears more than once`);
    const at = now().toISOString();
    const envId = req.env.envId;
    return db.transaction((tx) => putRoles(tx, envId, operations, at));
  });
}
