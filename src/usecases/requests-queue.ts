import type { ApiClient } from '../api/index.js';
import { ConfigError } from '../errors.js';
import { readConfigKeys } from '../review/locate.js';
import { loadDesired } from './workflow.js';

/**
 * One queue across element configurations, for `roster review` and `roster requests list`: which
 * configurations it spans, and their lifetimes.
 */

/**
 * `--config` alone, or every user-management element configuration (`GET /v2/elements/{p}/{e}/config`,
 * paged): the service shows in each only the requests the user made or moderates, so listing each is
 * "everything the user may decide" (moderators are recorded when a request is made, so the current
 * reviewer roles alone would miss some). None at all is said, not shown as an empty queue.
 */
export async function queueConfigs(client: ApiClient, only: string | undefined): Promise<string[]> {
  if (only) return [only];
  const keys = await readConfigKeys(client);
  if (keys.length === 0) {
    throw new ConfigError(
      `no user-management element configuration in ${client.paths.facts.split('/').slice(-2).join('/')}: nobody can file an access request there`,
      [{ message: 'declare one under access_requests in the configuration (docs/config.md) and apply it' }],
    );
  }
  return keys;
}

/**
 * `grant_for` of each configuration, from the repository's configuration (roster.yaml or roster/ in the
 * working directory; in the several-environments layout, the folder of --env, else of the environment the
 * queue is read from) when there is one that loads and names the environment the queue is read from (or
 * names none): the service does not know it (docs/config.md). A configuration declared without
 * `grant_for` is `null` (its grants never expire); one the repository does not declare is absent.
 * Best effort: no configuration, one that does not load, or one of another environment is undefined
 * (nothing known), never an error here.
 */
export async function readDeclaredLifetimes(
  target: { project: string; environment: string },
  env?: string,
): Promise<Record<string, string | null> | undefined> {
  try {
    const { desired } = await loadDesired([], 'review', {
      offline: true,
      env: env ?? (process.env.ROSTER_ENV || target.environment),
    });
    if (
      (desired.project !== undefined && desired.project !== target.project) ||
      (desired.environment !== undefined && desired.environment !== target.environment)
    )
      return undefined;
    return Object.fromEntries([...desired.accessRequests.values()].map((a) => [a.key, a.grantFor ?? null]));
  } catch {
    return undefined;
  }
}

/** The lifetimes known (readDeclaredLifetimes), without the configurations whose grants never expire. */
export async function readLifetimes(
  target: { project: string; environment: string },
  env?: string,
): Promise<Record<string, string>> {
  const declared = (await readDeclaredLifetimes(target, env)) ?? {};
  return Object.fromEntries(Object.entries(declared).filter((e): e is [string, string] => e[1] !== null));
}
