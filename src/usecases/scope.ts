import { ApiError, ConfigError } from '../errors.js';
import { closest } from '../config/suggest.js';
import type { ApiClient } from '../api/index.js';
import { pathOf } from '../api/client.js';
import { expectFields, STRING } from '../api/answer.js';

/** A project or environment read is used for its key and id (answer.ts: any other answer is MALFORMED_ANSWER). */
const KEYED_WITH_ID = expectFields({ key: STRING, id: STRING });

/** Where a command acts: the project and environment by their keys, and their ids when known. */
export interface ResolvedScope {
  project: string;
  environment: string;
  projectId?: string;
  environmentId?: string;
}

/** Where a project or an environment was named, for the one line that refuses a contradiction. */
export interface NamedScope {
  project?: string;
  environment?: string;
}

/**
 * A `--project`/`--env` flag (or ROSTER_PROJECT/ROSTER_ENV) naming another project or environment than
 * the configuration's `project:`/`environment:` is refused: planning the staging users into prod because
 * a flag said so is the mistake this guards against. Agreeing names, or only one of the two, pass.
 */
export function checkScopeAgrees(
  given: NamedScope & { via: { project: string; environment: string } },
  config: NamedScope,
): void {
  for (const [field, flag] of [
    ['project', given.via.project],
    ['environment', given.via.environment],
  ] as const) {
    const a = given[field];
    const b = config[field];
    if (a !== undefined && b !== undefined && a !== b) {
      throw new ConfigError(
        `${flag} ${a} contradicts the configuration's ${field}: ${b}; drop ${flag}, or plan a configuration for ${a}`,
      );
    }
  }
}

/**
 * The keys (and ids) of the project and environment named by key or id, read through the public
 * `GET /v2/projects/{proj_id}` and `GET /v2/projects/{proj_id}/envs/{env_id}`: the plan header and the
 * confirmation name them by key even when an environment-scoped key gave only ids. An unknown one is a
 * ConfigError naming the closest key (from the public lists). A key that may not read them (403) leaves
 * the names as given: its reads will say whether it may act there.
 */
export async function resolveScope(
  client: ApiClient,
  project: string,
  environment: string,
  at: { kind: 'embedded' | 'remote'; where: string },
): Promise<ResolvedScope> {
  const { where } = at;
  const [p, e] = await Promise.allSettled([
    client.get<{ key: string; id: string }>(pathOf('/v2/projects', project), { expect: KEYED_WITH_ID }),
    client.get<{ key: string; id: string }>(pathOf('/v2/projects', project, 'envs', environment), {
      expect: KEYED_WITH_ID,
    }),
  ]);
  if (p.status === 'rejected') {
    if (status(p.reason) === 404) {
      const keys = await keysOf(client, '/v2/projects');
      throw new ConfigError(
        `project '${project}' does not exist at ${where}${suggest(project, keys)}${createHint(at.kind, project, environment)}`,
      );
    }
    if (status(p.reason) === 403) return { project, environment };
    throw p.reason;
  }
  if (e.status === 'rejected') {
    if (status(e.reason) === 404) {
      const keys = await keysOf(client, pathOf('/v2/projects', p.value.key, 'envs'));
      throw new ConfigError(
        `environment '${environment}' does not exist in project '${p.value.key}' at ${where}${suggest(environment, keys)}${createHint(at.kind, p.value.key, environment)}`,
      );
    }
    if (status(e.reason) === 403) return { project: p.value.key, environment, projectId: p.value.id };
    throw e.reason;
  }
  return { project: p.value.key, environment: e.value.key, projectId: p.value.id, environmentId: e.value.id };
}

function status(err: unknown): number | undefined {
  return err instanceof ApiError ? err.info.status : undefined;
}

/** The first page of a list's keys (up to 100): enough for a "did you mean"; nothing when it cannot be read. */
async function keysOf(client: ApiClient, path: string): Promise<string[]> {
  try {
    const rows = await client.get<{ key?: unknown }[]>(path, { query: { per_page: 100 } });
    return Array.isArray(rows) ? rows.map((r) => r.key).filter((k): k is string => typeof k === 'string') : [];
  } catch {
    return [];
  }
}

function suggest(word: string, keys: string[]): string {
  const near = closest(word, keys);
  if (near) return `; did you mean '${near}'?`;
  return keys.length > 0 && keys.length <= 10 ? `; existing: ${keys.join(', ')}` : '';
}

function createHint(kind: 'embedded' | 'remote', project: string, environment: string): string {
  // The embedded default makes what a configuration declares; a `roster serve` needs telling.
  return kind === 'embedded'
    ? ` (to create it there, name it in the configuration: project:, environment:)`
    : ` (Roster never creates one: create it in the service, e.g. roster serve --create-env ${project}/${environment}, or POST /v2/projects)`;
}
