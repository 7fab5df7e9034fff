import { DEFAULT_TENANT, sqlText } from '../../rules/names.js';
import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { isUniqueViolation } from '../store/db.js';
import { duplicate } from '../errors.js';
import type { Paging } from '../paging.js';

/**
 * Projects and environments. They are made only when asked: `POST /v2/projects` (with its initial
 * environments), `POST /v2/projects/{p}/envs`, or at start (`roster serve --create-env`, `--env-key`,
 * the embedded default's own). A path naming one that does not exist answers 404 (auth.ts), never
 * creates it: a mistyped `--env prdo` must not plan everything into a new, empty environment.
 */
export interface ProjectRow {
  id: string;
  key: string;
  name: string | null;
  description: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface EnvironmentRow extends ProjectRow {
  project_id: string;
}

export interface NewScope {
  key: string;
  name: string;
  description?: string;
}

/** A project by key or id. */
export async function findProject(q: Queryable, keyOrId: string): Promise<ProjectRow | undefined> {
  return (
    (await q.get<ProjectRow>(`SELECT * FROM projects WHERE key = ?`, [keyOrId])) ??
    (await q.get<ProjectRow>(`SELECT * FROM projects WHERE id = ?`, [keyOrId]))
  );
}

/** An environment of the project (by id) by key or id. */
export async function findEnvironment(
  q: Queryable,
  projectId: string,
  keyOrId: string,
): Promise<EnvironmentRow | undefined> {
  return (
    (await q.get<EnvironmentRow>(`SELECT * FROM environments WHERE project_id = ? AND key = ?`, [
      projectId,
      keyOrId,
    ])) ??
    (await q.get<EnvironmentRow>(`SELECT * FROM environments WHERE project_id = ? AND id = ?`, [projectId, keyOrId]))
  );
}

export async function projectKeys(q: Queryable): Promise<string[]> {
  return (await q.all<{ key: string }>(`SELECT key FROM projects ORDER BY key`)).map((r) => r.key);
}

export async function environmentKeys(q: Queryable, projectId: string): Promise<string[]> {
  return (
    await q.all<{ key: string }>(`SELECT key FROM environments WHERE project_id = ? ORDER BY key`, [projectId])
  ).map((r) => r.key);
}

/** One page of projects (all, or only `onlyId`'s), in creation order (keys break ties: a project and its initial environments share a time). */
export async function listProjects(q: Queryable, paging: Paging, onlyId?: string): Promise<ProjectRow[]> {
  const where = onlyId ? 'WHERE id = ?' : '';
  return q.all<ProjectRow>(`SELECT * FROM projects ${where} ORDER BY created_at, key LIMIT ? OFFSET ?`, [
    ...(onlyId ? [onlyId] : []),
    paging.perPage,
    paging.offset,
  ]);
}

export async function listEnvironments(
  q: Queryable,
  projectId: string,
  paging: Paging,
  onlyId?: string,
): Promise<EnvironmentRow[]> {
  return q.all<EnvironmentRow>(
    `SELECT * FROM environments WHERE project_id = ? ${onlyId ? 'AND id = ?' : ''} ORDER BY created_at, key LIMIT ? OFFSET ?`,
    [projectId, ...(onlyId ? [onlyId] : []), paging.perPage, paging.offset],
  );
}

/** Creates a project and its initial environments in one transaction; 409 when the key is taken. */
export async function createProject(
  tx: Queryable,
  project: NewScope,
  environments: NewScope[],
  at: string,
): Promise<{ project: ProjectRow; environments: EnvironmentRow[] }> {
  const id = newId();
  try {
    await tx.run(
      `INSERT INTO projects (id, key, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
      [id, project.key, project.name, project.description ?? null, at, at],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('project', project.key);
    throw err;
  }
  const made: EnvironmentRow[] = [];
  for (const env of environments) made.push(await createEnvironment(tx, id, env, at));
  return { project: (await tx.get<ProjectRow>(`SELECT * FROM projects WHERE id = ?`, [id]))!, environments: made };
}

/** Creates an environment in the project (by id); 409 when the key is taken there. */
export async function createEnvironment(
  tx: Queryable,
  projectId: string,
  env: NewScope,
  at: string,
): Promise<EnvironmentRow> {
  const id = newId();
  try {
    await tx.run(
      `INSERT INTO environments (id, project_id, key, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [id, projectId, env.key, env.name, env.description ?? null, at, at],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('environment', env.key);
    throw err;
  }
  await addDefaultTenant(tx, id, at);
  return (await tx.get<EnvironmentRow>(`SELECT * FROM environments WHERE id = ?`, [id]))!;
}

/**
 * A new environment comes with the tenant `default`, as on the public service (where assignments without
 * a tenant go). Made with the environment, never again once it exists (deleting it is the user's choice).
 */
async function addDefaultTenant(q: Queryable, envId: string, at: string): Promise<void> {
  await q.run(
    `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, ${sqlText(DEFAULT_TENANT)}, 'Default Tenant', NULL, '{}', ?, ?)`,
    [newId(), envId, at, at],
  );
}

/**
 * Makes `project/env` exist (by keys), keeping what is there: the explicit creation at start. Race-free
 * across processes sharing a database through `ON CONFLICT DO NOTHING`.
 */
export async function ensureEnvironment(q: Queryable, project: string, env: string, at: string): Promise<void> {
  await q.run(
    `INSERT INTO projects (id, key, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
    [newId(), project, project, at, at],
  );
  const p = await q.get<{ id: string }>(`SELECT id FROM projects WHERE key = ?`, [project]);
  const id = newId();
  // Only the process that made the environment adds its tenant `default` (a second one finds it made).
  const { changes } = await q.run(
    `INSERT INTO environments (id, project_id, key, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, key) DO NOTHING`,
    [id, p!.id, env, env, at, at],
  );
  if (changes > 0) await addDefaultTenant(q, id, at);
}
