import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import type { EnvResolver } from '../auth.js';
import { httpError } from '../errors.js';
import { decide, toCheckInput } from '../repo/allowed.js';
import { abacAllows, type CheckBody } from '../repo/abac-allowed.js';
import { userPermissionRoutes } from './user-permissions.js';
import { decisionListRoutes } from './decision-lists.js';
import { authzenRoutes } from './authzen.js';

/** Attributes and context passed in a check (ABAC, repo/abac-allowed.ts): JSON objects when present. */
const PASSED = { type: ['object', 'null'] } as const;
const USER = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: 256 },
    {
      type: 'object',
      properties: { key: { type: 'string', minLength: 1, maxLength: 256 }, attributes: PASSED },
      required: ['key'],
    },
  ],
};
const RESOURCE = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: 513 },
    {
      type: 'object',
      properties: {
        type: { type: 'string', minLength: 1, maxLength: 256 },
        key: { type: ['string', 'null'], maxLength: 256 },
        tenant: { type: ['string', 'null'], maxLength: 256 },
        attributes: PASSED,
      },
      required: ['type'],
    },
  ],
};
// The SDKs send extra fields (sdk metadata): accepted and ignored, as the PDP does; attributes and context feed ABAC.
const CHECK = {
  type: 'object',
  properties: {
    user: USER,
    action: { type: 'string', minLength: 1, maxLength: 256 },
    resource: RESOURCE,
    context: PASSED,
  },
  required: ['user', 'action', 'resource'],
} as const;
const BULK_MAX = 1000;
// An org key names its environment here; like path segments, a key or an id, never anything else
// (a repeated parameter or a free-form string would otherwise reach the store).
const SEGMENT = { type: 'string', pattern: '^[A-Za-z0-9\\-_]{1,256}$' } as const;
const QUERY = { type: 'object', properties: { project: SEGMENT, environment: SEGMENT } } as const;
const HEADERS = {
  type: 'object',
  properties: { 'x-roster-project': SEGMENT, 'x-roster-environment': SEGMENT },
} as const;
const BULK = {
  anyOf: [
    { type: 'array', items: CHECK, maxItems: BULK_MAX },
    {
      type: 'object',
      properties: { checks: { type: 'array', items: CHECK, maxItems: BULK_MAX } },
      required: ['checks'],
    },
  ],
} as const;

/**
 * `POST /allowed` and `POST /allowed/bulk`, answering from the live data. They decide within the calling
 * key's environment. An organisation-wide key names no environment, so it must name one: query
 * `?project=P&environment=E` or headers `x-roster-project` / `x-roster-environment`; otherwise 400.
 */
export default async function allowedRoutes(
  app: FastifyInstance,
  { db, decisionLog }: ServerDeps,
  resolver: EnvResolver,
) {
  const envOf = async (req: FastifyRequest): Promise<EnvContext> => {
    const scope = req.keyScope;
    const q = req.query as Record<string, string | undefined>;
    const project = q.project ?? (req.headers['x-roster-project'] as string | undefined);
    const env = q.environment ?? (req.headers['x-roster-environment'] as string | undefined);
    // An environment key that names another environment gets 403, never a silent answer about its own.
    if (scope.kind === 'env') return resolver.resolve(project ?? scope.project, env ?? scope.env, scope);
    if (!project || !env) {
      throw httpError(
        'ENVIRONMENT_REQUIRED',
        'an organisation-wide key names no environment: add ?project=<project>&environment=<env> (or the headers x-roster-project and x-roster-environment), or use an environment-scoped key',
      );
    }
    return resolver.resolve(project, env, scope);
  };

  // A response schema lets fastify serialise the hottest answer with a compiled function.
  const ANSWER = {
    200: {
      type: 'object',
      properties: { allow: { type: 'boolean' }, result: { type: 'boolean' } },
      required: ['allow', 'result'],
    },
  };
  app.post(
    '/allowed',
    { schema: { body: CHECK, querystring: QUERY, headers: HEADERS, response: ANSWER } },
    async (req) => {
      const env = await envOf(req);
      // RBAC/ReBAC first (the fast path); ABAC only when they deny: allowed = RBAC ∨ ReBAC ∨ ABAC.
      const allow =
        (await decide(db, env.envId, toCheckInput(req.body as never))) ||
        (await abacAllows(db, env.envId, req.body as CheckBody));
      decisionLog?.record(env.envId, 'permit/root', req.body, allow);
      return { allow, result: allow };
    },
  );

  app.post('/allowed/bulk', { schema: { body: BULK, querystring: QUERY, headers: HEADERS } }, async (req) => {
    const env = await envOf(req);
    const body = req.body as unknown[] | { checks: unknown[] };
    const checks = Array.isArray(body) ? body : body.checks;
    const allow = [];
    for (const c of checks) {
      const a =
        (await decide(db, env.envId, toCheckInput(c as never))) || (await abacAllows(db, env.envId, c as CheckBody));
      decisionLog?.record(env.envId, 'permit/bulk', c, a);
      allow.push({ allow: a, result: a });
    }
    return { allow };
  });

  await userPermissionRoutes(app, db, envOf, { querystring: QUERY, headers: HEADERS });
  // The list queries and AuthZEN (issue 40): the same environment, the same check body.
  const point = { db, envOf, schemas: { querystring: QUERY, headers: HEADERS, check: CHECK } };
  await decisionListRoutes(app, point);
  await authzenRoutes(app, point);
}
