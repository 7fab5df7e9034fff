import type { FastifyInstance } from 'fastify';
import type { ServerDeps, KeyScope } from '../context.js';
import { httpError, invalid } from '../errors.js';
import { closest } from '../../config/suggest.js';
import { parsePaging } from '../paging.js';
import { KEY, NAME, TEXT, strictObject } from '../schemas.js';
import {
  createEnvironment,
  createProject,
  environmentKeys,
  findEnvironment,
  findProject,
  listEnvironments,
  listProjects,
  projectKeys,
  type EnvironmentRow,
  type NewScope,
  type ProjectRow,
} from '../repo/projects.js';
import { pathParams, typed } from './typed.js';

const SEGMENT = /^[A-Za-z0-9\-_]{1,256}$/;

/**
 * The public service answers `email_configuration` (a uuid, required in its read model) for the email
 * settings of an environment; the server keeps none, and answers the nil uuid (docs/server.md).
 */
const NO_EMAIL_CONFIGURATION = '00000000-0000-0000-0000-000000000000';

/** EnvironmentCreate without the fields the server does not keep (settings, jwks, branch): those are 422. */
const ENVIRONMENT_CREATE = strictObject({ key: KEY, name: NAME, description: TEXT }, ['key', 'name']);
const PROJECT_CREATE = strictObject(
  {
    key: KEY,
    name: NAME,
    description: TEXT,
    initial_environments: { type: 'array', maxItems: 100, items: ENVIRONMENT_CREATE },
  },
  ['key', 'name'],
);
const LIST_QUERY = {
  type: 'object',
  properties: { page: { type: 'integer', minimum: 1 }, per_page: { type: 'integer', minimum: 1 } },
} as const;
const PROJECT_PARAMS = pathParams('proj');
const ENV_PARAMS = pathParams('proj', 'env');

/** What `POST /v2/projects` creates when the body names no initial environments (as the public service). */
const DEFAULT_ENVIRONMENTS: NewScope[] = [
  { key: 'dev', name: 'Development' },
  { key: 'production', name: 'Production' },
];

/**
 * Projects and environments: `/v2/projects[/{p}[/envs[/{e}]]]`, GET and POST. The organisation key sees
 * and creates any; an environment-scoped key reads only its own project and environment, and creates none.
 */
export default async function projectRoutes(base: FastifyInstance, { db, now, orgId }: ServerDeps) {
  const app = typed(base);
  const projectRead = (r: ProjectRow) => ({
    key: r.key,
    id: r.id,
    organization_id: orgId,
    created_at: r.created_at,
    updated_at: r.updated_at ?? r.created_at,
    name: r.name ?? r.key,
    ...(r.description !== null ? { description: r.description } : {}),
  });
  const environmentRead = (r: EnvironmentRow) => ({ ...projectRead(r), project_id: r.project_id });
  const withEmail = (r: EnvironmentRow) => ({ ...environmentRead(r), email_configuration: NO_EMAIL_CONFIGURATION });

  /** The path's project, or 404/403 (an environment key learns nothing of other projects). */
  const project = async (proj: string, scope: KeyScope): Promise<ProjectRow> => {
    if (!SEGMENT.test(proj)) throw invalid(['path', 'proj_id'], 'not a project key or id');
    const row = await findProject(db, proj);
    if (scope.kind === 'env' && row?.key !== scope.project)
      throw httpError('FORBIDDEN_ACCESS', `this API key may act only on ${scope.project}/${scope.env}`);
    if (!row) throw missing('project', proj, await projectKeys(db));
    return row;
  };
  const orgOnly = (scope: KeyScope) => {
    if (scope.kind === 'env')
      throw httpError('FORBIDDEN_ACCESS', 'an environment-scoped API key may not create projects or environments');
  };

  app.get('/v2/projects', { schema: { querystring: LIST_QUERY } }, async (req) => {
    const paging = parsePaging(req.query);
    const scope = req.keyScope;
    const own = scope.kind === 'env' ? await findProject(db, scope.project) : undefined;
    return (await listProjects(db, paging, own?.id)).map(projectRead);
  });

  app.post('/v2/projects', { schema: { body: PROJECT_CREATE } }, async (req) => {
    orgOnly(req.keyScope);
    const b = req.body;
    const envs = b.initial_environments ?? DEFAULT_ENVIRONMENTS;
    const keys = envs.map((e) => e.key);
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) throw invalid(['body', 'initial_environments'], `environment key '${twice}' is given twice`);
    const made = await db.transaction((tx) => createProject(tx, b, envs, now().toISOString()));
    return projectRead(made.project);
  });

  app.get('/v2/projects/:proj', { schema: { params: PROJECT_PARAMS } }, async (req) =>
    projectRead(await project(req.params.proj, req.keyScope)),
  );

  app.get('/v2/projects/:proj/envs', { schema: { querystring: LIST_QUERY, params: PROJECT_PARAMS } }, async (req) => {
    const p = await project(req.params.proj, req.keyScope);
    const paging = parsePaging(req.query);
    const scope = req.keyScope;
    const own = scope.kind === 'env' ? await findEnvironment(db, p.id, scope.env) : undefined;
    if (scope.kind === 'env' && !own) return [];
    return (await listEnvironments(db, p.id, paging, own?.id)).map(withEmail);
  });

  app.post('/v2/projects/:proj/envs', { schema: { body: ENVIRONMENT_CREATE, params: PROJECT_PARAMS } }, async (req) => {
    orgOnly(req.keyScope);
    const p = await project(req.params.proj, req.keyScope);
    // One transaction with its tenant `default`, as POST /v2/projects does.
    return environmentRead(await db.transaction((tx) => createEnvironment(tx, p.id, req.body, now().toISOString())));
  });

  app.get('/v2/projects/:proj/envs/:env', { schema: { params: ENV_PARAMS } }, async (req) => {
    const p = await project(req.params.proj, req.keyScope);
    const { env } = req.params;
    if (!SEGMENT.test(env)) throw invalid(['path', 'env_id'], 'not an environment key or id');
    const row = await findEnvironment(db, p.id, env);
    const scope = req.keyScope;
    if (scope.kind === 'env' && row?.key !== scope.env)
      throw httpError('FORBIDDEN_ACCESS', `this API key may act only on ${scope.project}/${scope.env}`);
    if (!row) throw missing('environment', env, await environmentKeys(db, p.id));
    return withEmail(row);
  });
}

/** 404 with the closest existing key, as for an unknown project or environment in any path (auth.ts). */
function missing(what: string, key: string, keys: string[]) {
  const near = closest(key, keys);
  return httpError('NOT_FOUND', `${what} '${key}' not found${near ? `; did you mean '${near}'?` : ''}`);
}
