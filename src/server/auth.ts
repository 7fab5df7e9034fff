import { dashed, isDashless } from './ids.js';
import type { FastifyRequest } from 'fastify';
import type { Db } from './store/db.js';
import type { EnvContext, KeyScope } from './context.js';
import { httpError } from './errors.js';
import { closest } from '../config/suggest.js';
import { environmentKeys, ensureEnvironment, findEnvironment, findProject, projectKeys } from './repo/projects.js';

export interface KeyOptions {
  /** May act on any project/environment that exists, and create them (POST /v2/projects...). */
  orgKey?: string;
  /** May act only on their own environment. */
  envKeys?: { project: string; env: string; key: string }[];
}

/** Maps a bearer key to its scope. Keys are compared by hash lookup and never logged or echoed. */
export function buildKeyTable(options: KeyOptions): Map<string, KeyScope> {
  const table = new Map<string, KeyScope>();
  if (options.orgKey) table.set(options.orgKey, { kind: 'org' });
  for (const k of options.envKeys ?? []) table.set(k.key, { kind: 'env', project: k.project, env: k.env });
  return table;
}

export function authenticate(request: FastifyRequest, keys: Map<string, KeyScope>): KeyScope {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  if (!match) throw httpError('UNAUTHORIZED', 'missing API key: send the header "Authorization: Bearer <key>"');
  const scope = keys.get(match[1].trim());
  if (!scope) throw httpError('UNAUTHORIZED', 'unknown API key');
  return scope;
}

/**
 * Resolves `{proj}/{env}` (each a key or an id) to ids. Projects and environments are never deleted
 * through the API, so resolved contexts are cached for the life of the process. An unknown one answers
 * 404 with the closest key (as the public service does, never creating it: repo/projects.ts); an
 * environment-scoped key naming another environment answers 403, which says nothing of whether it exists.
 */
export class EnvResolver {
  private cache = new Map<string, EnvContext>();
  constructor(
    private readonly db: Db,
    private readonly orgId: string,
    private readonly now: () => Date,
  ) {}

  async resolve(proj: string, env: string, scope: KeyScope): Promise<EnvContext> {
    const cacheKey = `${proj}\u0000${env}`;
    let ctx = this.cache.get(cacheKey);
    if (!ctx) {
      ctx = await this.find(proj, env);
      if (!ctx) {
        // An environment-scoped key that names some other environment: say 403, not whether it exists.
        if (scope.kind === 'env') throw httpError('FORBIDDEN_ACCESS', `this API key may not act on ${proj}/${env}`);
        throw await this.notFound(proj, env);
      }
      this.cache.set(cacheKey, ctx);
    }
    if (scope.kind === 'env' && !(ctx.projectKey === scope.project && ctx.envKey === scope.env)) {
      throw httpError('FORBIDDEN_ACCESS', `this API key may act only on ${scope.project}/${scope.env}`);
    }
    return ctx;
  }

  private async find(proj: string, env: string): Promise<EnvContext | undefined> {
    // A project or environment id may come without its dashes (ids.ts); a key is looked up first.
    const p =
      (await findProject(this.db, proj)) ?? (isDashless(proj) ? await findProject(this.db, dashed(proj)) : undefined);
    const e =
      p &&
      ((await findEnvironment(this.db, p.id, env)) ??
        (isDashless(env) ? await findEnvironment(this.db, p.id, dashed(env)) : undefined));
    return e && { orgId: this.orgId, projectId: p.id, projectKey: p.key, envId: e.id, envKey: e.key };
  }

  /** 404 naming what is missing, the closest key that exists, and how to create it. */
  private async notFound(proj: string, env: string): Promise<Error> {
    const p = await findProject(this.db, proj);
    if (!p) {
      const near = closest(proj, await projectKeys(this.db));
      return httpError(
        'NOT_FOUND',
        `project '${proj}' not found${near ? `; did you mean '${near}'?` : ''} (create it with POST /v2/projects, or roster serve --create-env ${proj}/${env})`,
      );
    }
    const near = closest(env, await environmentKeys(this.db, p.id));
    return httpError(
      'NOT_FOUND',
      `environment '${env}' not found in project '${p.key}'${near ? `; did you mean '${near}'?` : ''} (create it with POST /v2/projects/${p.key}/envs, or roster serve --create-env ${p.key}/${env})`,
    );
  }

  /** Creates `proj/env` (keys) unless it exists: only for what the server is told to serve at start. */
  async ensure(proj: string, env: string): Promise<void> {
    // One transaction: the environment and its tenant `default` are made together or not at all.
    await this.db.transaction((tx) => ensureEnvironment(tx, proj, env, this.now().toISOString()));
  }
}
