import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../context.js';
import type { EnvResolver } from '../auth.js';
import { invalid } from '../errors.js';
import { installCanonicalIds } from '../ids.js';
import resourceRoutes from './resources.js';
import roleRoutes from './roles.js';
import resourceRoleRoutes from './resource-roles.js';
import rolePermissionRoutes from './role-permissions.js';
import tenantRoutes from './tenants.js';
import userRoutes from './users.js';
import roleAssignmentRoutes from './role-assignments.js';
import resourceInstanceRoutes from './resource-instances.js';
import relationRoutes from './relations.js';
import implicitGrantRoutes from './implicit-grants.js';
import tupleRoutes from './tuples.js';
import groupRoutes from './groups.js';
import groupReadRoutes from './group-reads.js';
import allowedRoutes from './allowed.js';
import elementsRoutes from './elements.js';
import elementsAccessRequestRoutes from './elements-access-requests.js';
import accessRequestRoutes from './access-requests.js';
import bulkRoutes from './bulk.js';
import bulkRoleRoutes from './bulk-roles.js';
import projectRoutes from './projects.js';
import attributeRoutes from './attributes.js';
import conditionSetRoutes from './condition-sets.js';
import setRuleRoutes from './set-rules.js';
import auditLogRoutes from './audit-logs.js';
import historyRoutes from './history.js';

type RouteModule = (app: FastifyInstance, deps: ServerDeps) => Promise<void>;

const SEGMENT = /^[A-Za-z0-9\-_]{1,256}$/;

/** Every route family, under its prefix. Env-scoped prefixes resolve `{proj}/{env}` before validation. */
export async function registerRoutes(app: FastifyInstance, deps: ServerDeps, resolver: EnvResolver): Promise<void> {
  const scoped = (prefix: string, modules: RouteModule[]) =>
    app.register(
      async (scope) => {
        scope.addHook('preValidation', async (req) => {
          const { proj, env } = req.params as { proj: string; env: string };
          if (!SEGMENT.test(proj)) throw invalid(['path', 'proj_id'], 'not a project key or id');
          if (!SEGMENT.test(env)) throw invalid(['path', 'env_id'], 'not an environment key or id');
          req.env = await resolver.resolve(proj, env, req.keyScope);
        });
        installCanonicalIds(scope, deps.db);
        for (const m of modules) await m(scope, deps);
      },
      { prefix },
    );

  await scoped('/v2/schema/:proj/:env', [
    resourceRoutes,
    resourceRoleRoutes,
    roleRoutes,
    rolePermissionRoutes,
    bulkRoleRoutes,
    relationRoutes,
    implicitGrantRoutes,
    resourceInstanceRoutes,
    groupRoutes,
    groupReadRoutes,
    attributeRoutes,
    conditionSetRoutes,
  ]);
  await scoped('/v2/facts/:proj/:env', [
    tenantRoutes,
    userRoutes,
    roleAssignmentRoutes,
    resourceInstanceRoutes,
    tupleRoutes,
    accessRequestRoutes,
    bulkRoutes,
    setRuleRoutes,
  ]);
  await scoped('/v2/elements/:proj/:env', [elementsRoutes, elementsAccessRequestRoutes]);
  await scoped('/v2/pdps/:proj/:env', [auditLogRoutes]);

  // A replica whose database is unreachable must leave the load balancer's pool: check the store itself.
  app.get('/healthz', async (_req, reply) => {
    try {
      await deps.db.get('SELECT 1 AS ok');
      return { status: 'ok', store: deps.db.dialect };
    } catch {
      return reply.status(503).send({ status: 'unavailable', store: deps.db.dialect });
    }
  });

  app.get('/v2/api-key/scope', async (req) => {
    const scope = req.keyScope;
    // The organisation key names no project or environment: the fields are absent (the public read model has no nulls).
    if (scope.kind === 'org') return { organization_id: deps.orgId };
    const env = await resolver.resolve(scope.project, scope.env, scope);
    return { organization_id: env.orgId, project_id: env.projectId, environment_id: env.envId };
  });
  await app.register(async (scope) => allowedRoutes(scope, deps, resolver));
  await app.register(async (scope) => projectRoutes(scope, deps));
  await app.register(async (scope) => historyRoutes(scope, deps, resolver));
}
