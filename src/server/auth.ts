import type { FastifyRequest } from 'fastify';
import type { Db } from './store/db.js';
import type { EnvContext, KeyScope } from './context.js';
import { httpError } from './errors.js';

export interface KeyOptions {
  /** May act on any project/environment; projects and environments are created on first use. */
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Resolves `{proj}/{env}` (each a key or an id) to ids. Projects and environments are never deleted
 * through the API, so resolved contexts are cached for the life of the process; creation on first use
 * is race-free across processes through `ON CONFLICT DO NOTHING`.
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
      ctx = scope.kind === 'org' ? await this.findOrCreate(proj, env) : await this.find(proj, env);
      if (!ctx) {
        // An environment-scoped key that names some other environment: say 403, not whether it exists.
        throw httpError('FORBIDDEN_ACCESS', `this API key may not act on ${proj}/${env}`);
      }
      this.cache.set(cacheKey, ctx);
    }
    if (scope.kind === 'env' && !(ctx.projectKey === scope.project && ctx.envKey === scope.env)) {
      throw httpError('FORBIDDEN_ACCESS', `this API key may act only on ${scope.project}/${scope.env}`);
    }
    return ctx;
  }

  private async find(proj: string, env: string): Promise<EnvContext | undefined> {
    const row = await this.db.get<{ pid: string; pkey: string; eid: string; ekey: string }>(
      `SELECT p.id AS pid, p.key AS pkey, e.id AS eid, e.key AS ekey FROM projects p JOIN environments e ON e.project_id = p.id
       WHERE (p.key = ? OR p.id = ?) AND (e.key = ? OR e.id = ?)`,
      [proj, proj, env, env],
    );
    return row && { orgId: this.orgId, projectId: row.pid, projectKey: row.pkey, envId: row.eid, envKey: row.ekey };
  }

  async findOrCreate(proj: string, env: string): Promise<EnvContext> {
    const found = await this.find(proj, env);
    if (found) return found;
    if (UUID.test(proj) || UUID.test(env)) {
      throw httpError('NOT_FOUND', `project or environment id '${UUID.test(proj) ? proj : env}' not found`);
    }
    const at = this.now().toISOString();
    await this.db.run(`INSERT INTO projects (id, key, created_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`, [crypto.randomUUID(), proj, at]);
    const p = await this.db.get<{ id: string }>(`SELECT id FROM projects WHERE key = ?`, [proj]);
    // A new environment comes with the tenant `default`, as on the public service (where assignments
    // without a tenant go). Created with the environment, in one transaction: only the process that
    // created the environment creates it, and never again once the environment exists (deleting it is
    // the user's choice).
    const envId = crypto.randomUUID();
    await this.db.transaction(async (tx) => {
      const { changes } = await tx.run(
        `INSERT INTO environments (id, project_id, key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (project_id, key) DO NOTHING`,
        [envId, p!.id, env, at],
      );
      if (changes === 0) return;
      await tx.run(
        `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, 'default', 'Default Tenant', NULL, '{}', ?, ?)`,
        [crypto.randomUUID(), envId, at, at],
      );
    });
    return (await this.find(proj, env))!;
  }
}
