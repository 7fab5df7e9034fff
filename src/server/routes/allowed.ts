import type { FastifyInstance } from 'fastify';
import type { ServerDeps, EnvContext } from '../context.js';
import type { EnvResolver } from '../auth.js';
import { httpError } from '../errors.js';
import { decide, toCheckInput } from '../repo/allowed.js';
import { abacAllows, type CheckBody } from '../repo/abac-allowed.js';
import { CHECK, NAMED, type DecisionPoint, type NamedEnv } from './decision-point.js';
import { typed } from './typed.js';
import { userPermissionRoutes } from './user-permissions.js';
import { decisionListRoutes } from './decision-lists.js';
import { authzenRoutes } from './authzen.js';

const BULK_MAX = 1000;
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
  base: FastifyInstance,
  { db, decisionLog }: ServerDeps,
  resolver: EnvResolver,
) {
  const app = typed(base);
  const envOf = async (req: NamedEnv): Promise<EnvContext> => {
    const scope = req.keyScope;
    const project = req.query.project ?? req.headers['x-roster-project'];
    const env = req.query.environment ?? req.headers['x-roster-environment'];
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
  app.post('/allowed', { schema: { body: CHECK, ...NAMED, response: ANSWER } }, async (req) => {
    const env = await envOf(req);
    // RBAC/ReBAC first (the fast path); ABAC only when they deny: allowed = RBAC ∨ ReBAC ∨ ABAC.
    const allow = (await decide(db, env.envId, toCheckInput(req.body))) || (await abacAllows(db, env.envId, req.body));
    decisionLog?.record(env.envId, 'permit/root', req.body, allow);
    return { allow, result: allow };
  });

  app.post('/allowed/bulk', { schema: { body: BULK, ...NAMED } }, async (req) => {
    const env = await envOf(req);
    const checks: readonly CheckBody[] = Array.isArray(req.body) ? req.body : req.body.checks;
    const allow = [];
    for (const c of checks) {
      const a = (await decide(db, env.envId, toCheckInput(c))) || (await abacAllows(db, env.envId, c));
      decisionLog?.record(env.envId, 'permit/bulk', c, a);
      allow.push({ allow: a, result: a });
    }
    return { allow };
  });

  // /user-permissions, the list queries and AuthZEN (issue 40): the same environment, the same check body.
  const point: DecisionPoint = { db, envOf };
  await userPermissionRoutes(base, point);
  await decisionListRoutes(base, point);
  await authzenRoutes(base, point);
}
