import type { FastifyInstance } from 'fastify';
import { parsePaging } from '../paging.js';
import { authorizedUsers } from '../repo/authorized-users.js';
import { allTenantsAllowed, localRoleAssignments, userTenants } from '../repo/decision-lists.js';
import { CHECK, NAMED, NAMED_QUERY, PASSED, type DecisionPoint } from './decision-point.js';
import { typed } from './typed.js';

const TEXT_KEY = { type: 'string', minLength: 1, maxLength: 256 } as const;
const USER = {
  anyOf: [TEXT_KEY, { type: 'object', properties: { key: TEXT_KEY, attributes: PASSED }, required: ['key'] }],
} as const;
/** [PDP] `AuthorizedUsersAuthorizationQuery`: the resource is an object; its tenant defaults to `default`. */
const AUTHORIZED_USERS = {
  type: 'object',
  properties: {
    action: TEXT_KEY,
    resource: {
      type: 'object',
      properties: {
        type: TEXT_KEY,
        key: { type: ['string', 'null'], maxLength: 256 },
        tenant: { type: ['string', 'null'], maxLength: 256 },
        attributes: PASSED,
      },
      required: ['type'],
    },
    context: PASSED,
  },
  required: ['action', 'resource'],
} as const;
const USER_TENANTS = { type: 'object', properties: { user: USER, context: PASSED }, required: ['user'] } as const;
/** The PDP's filters are single values; paging as the /v2 lists, at most 100 a page. */
const LOCAL_QUERY = {
  type: 'object',
  properties: {
    user: TEXT_KEY,
    role: TEXT_KEY,
    tenant: TEXT_KEY,
    resource: TEXT_KEY,
    resource_instance: { type: 'string', minLength: 1, maxLength: 513 },
    page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1 },
    // The caller names its environment here too.
    ...NAMED_QUERY.properties,
  },
} as const;
const LOCAL_MAX = 100;

/**
 * The decision point's list queries beside /allowed (api-notes "Decision point: list queries"), in the
 * caller's environment: `/authorized_users`, `/allowed/all-tenants`, `/user-tenants`,
 * `/local/role_assignments`. Each answers from the rules /allowed decides by (repo/authorized-users.ts,
 * repo/decision-lists.ts).
 */
export async function decisionListRoutes(base: FastifyInstance, { db, envOf }: DecisionPoint) {
  const app = typed(base);
  app.post('/authorized_users', { schema: { body: AUTHORIZED_USERS, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    return authorizedUsers(db, env.envId, req.body);
  });

  app.post('/allowed/all-tenants', { schema: { body: CHECK, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    return { allowed_tenants: await allTenantsAllowed(db, env.envId, req.body) };
  });

  app.post('/user-tenants', { schema: { body: USER_TENANTS, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    const { user } = req.body;
    return userTenants(db, env.envId, typeof user === 'string' ? user : user.key);
  });

  app.get('/local/role_assignments', { schema: { querystring: LOCAL_QUERY, headers: NAMED.headers } }, async (req) => {
    const env = await envOf(req);
    const q = req.query;
    const paging = parsePaging(q, LOCAL_MAX);
    const filters = { user: q.user, role: q.role, tenant: q.tenant, resource: q.resource };
    return localRoleAssignments(db, env.envId, { ...filters, resource_instance: q.resource_instance }, paging);
  });
}
