import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { parseApiUrl } from './api-url.js';
import { UNUSABLE_DATA_DIR } from './start-errors.js';
import { registerSecret } from '../secrets.js';
import type { ApiClient, WaitingInfo } from '../api/index.js';
import { parseDuration } from '../types/duration.js';
import { createWaitingNotices, type WaitingNotices } from './waiting.js';
import type { SnapshotPlace } from '../read/live.js';

/** Options every command that talks to a service accepts. */
export interface TargetOptions {
  apiUrl?: string;
  apiKeyFile?: string;
  project?: string;
  env?: string;
  /** Data directory of the embedded default. */
  data?: string;
  concurrency?: number;
  /** `public` or `none`; default by host (src/api/client.ts). */
  pacing?: string;
  /** `--timeout`: one request's total time, retries included: seconds (`90`) or a duration (`90s`, `2m`). */
  timeout?: string;
  /** `--pdp-url` (or ROSTER_PDP_URL): where decisions are asked; default the API's own URL. */
  pdpUrl?: string;
}

/**
 * The policy decision point: where `POST /allowed/bulk` goes (`check --live`, apply's decision check).
 * On the public service it is a host of its own (the cloud PDP or the team's PDP container); `roster
 * serve` and the embedded default answer decisions on the API's port.
 */
export interface DecisionPoint {
  client: ApiClient;
  /** The base URL, for messages. */
  url: string;
  /** How it was named; absent: it is the API's URL (the default). */
  via?: '--pdp-url' | 'ROSTER_PDP_URL';
}

export interface Target {
  kind: 'embedded' | 'remote';
  /** Where requests go; for the embedded default a loopback URL of this process. */
  url: string;
  /** What the plan header and the confirmation call the target: `the embedded service (./.roster)`, or the host. */
  where: string;
  /** Keys (resolved from ids when the API key gave only ids: scope.ts). */
  project: string;
  environment: string;
  client: ApiClient;
  /** Whether the client paces its requests to the public service's rate limits (src/api/client.ts); absent: it does. */
  paced?: boolean;
  /** Requests the client keeps in flight at once (`--concurrency`, else by pacing: `inFlightDefault`); absent: 8. */
  concurrency?: number;
  /** Sends the client's "still waiting for …" notices to `sink` instead of stderr until undone (waiting.ts); absent: always stderr. */
  routeWaiting?: WaitingNotices['route'];
  /** Where decisions are asked; absent (a target made by hand, the benches'): the API's client (`pdpOf`). */
  pdp?: DecisionPoint;
  /** Where the snapshot of the live state is kept, sealed with a key derived from the API key (src/read/); remote targets only. */
  snapshot?: SnapshotPlace;
  close(): Promise<void>;
}

export const DEFAULT_PROJECT = 'default';
export const DEFAULT_ENVIRONMENT = 'default';

/**
 * Chooses the service: `--api-url` (or ROSTER_API_URL) with the key from ROSTER_API_KEY or
 * `--api-key-file`; otherwise the embedded default, the same service started in this process (on a
 * thread of its own) on a loopback port over `./.roster/` (or ROSTER_DATA_DIR), with a random key that
 * lives only in memory.
 */
export async function openTarget(
  opts: TargetOptions,
  fromConfig: { project?: string; environment?: string } = {},
): Promise<Target> {
  const { checkScopeAgrees } = await import('./scope.js');
  const rawUrl = opts.apiUrl ?? setting('ROSTER_API_URL');
  const apiUrl =
    rawUrl === undefined ? undefined : parseApiUrl(rawUrl, opts.apiUrl !== undefined ? '--api-url' : 'ROSTER_API_URL');
  // A flag (or its environment variable) and the configuration naming two environments is an error.
  const given = {
    project: opts.project ?? setting('ROSTER_PROJECT'),
    environment: opts.env ?? setting('ROSTER_ENV'),
    via: { project: opts.project ? '--project' : 'ROSTER_PROJECT', environment: opts.env ? '--env' : 'ROSTER_ENV' },
  };
  checkScopeAgrees(given, fromConfig);
  const project = given.project ?? fromConfig.project;
  const environment = given.environment ?? fromConfig.environment;
  const notices = createWaitingNotices();
  const transport = transportOptions(opts, notices);
  const scope = { project, environment, transport, routeWaiting: notices.route };
  return apiUrl ? openRemote(opts, apiUrl, scope) : openEmbedded(opts, fromConfig, scope);
}

/** What both kinds of target are opened with: the scope named so far, and the client's transport. */
interface Opening {
  project?: string;
  environment?: string;
  transport: ReturnType<typeof transportOptions>;
  routeWaiting: Target['routeWaiting'];
}

/** `--api-url` (or ROSTER_API_URL), with the key from ROSTER_API_KEY or `--api-key-file`. */
async function openRemote(opts: TargetOptions, apiUrl: string, opening: Opening): Promise<Target> {
  const { createClient } = await import('../api/index.js');
  const { resolveScope } = await import('./scope.js');
  const { transport, routeWaiting } = opening;
  const pacing = pacingOf(opts.pacing);
  const apiKey = readKey(opts);
  let p = opening.project;
  let e = opening.environment;
  if (!p || !e) {
    // An environment-scoped key knows its environment: ask the service, as the official SDKs do.
    const scope = await keyScope(apiUrl, apiKey, transport);
    p ??= scope.project_id ?? undefined;
    e ??= scope.environment_id ?? undefined;
    if (!p || !e)
      throw new ConfigError(
        'this API key is not scoped to one environment: name it with --project and --env (or project/environment in the configuration)',
      );
  }
  const where = hostOf(apiUrl);
  const paced = pacing ? pacing === 'public' : !isLoopbackUrl(apiUrl);
  const concurrency = opts.concurrency ?? inFlightDefault(paced);
  const client = createClient({
    baseUrl: apiUrl,
    apiKey,
    project: p,
    environment: e,
    concurrency,
    pacing,
    ...transport,
  });
  let pdp: DecisionPoint = { client, url: apiUrl };
  try {
    const keys = await resolveScope(client, p, e, { kind: 'remote', where });
    pdp = await decisionPoint(opts, { client, url: apiUrl }, () => apiKey, {
      project: keys.project,
      environment: keys.environment,
      pacing,
      ...transport,
    });
    const close = async () => {
      await client.close();
      if (pdp.client !== client) await pdp.client.close();
    };
    const snapshot = await snapshotPlace(opts, apiUrl, apiKey, keys);
    return {
      kind: 'remote',
      snapshot,
      url: apiUrl,
      where,
      project: keys.project,
      environment: keys.environment,
      client,
      paced,
      concurrency,
      routeWaiting,
      pdp,
      close,
    };
  } catch (err) {
    await client.close();
    throw err;
  }
}

/**
 * The embedded default: the same service started in this process (on a thread of its own) on a loopback
 * port over `./.roster/` (or ROSTER_DATA_DIR), with a random key that lives only in memory.
 */
async function openEmbedded(
  opts: TargetOptions,
  fromConfig: { project?: string; environment?: string },
  opening: Opening,
): Promise<Target> {
  const { createClient } = await import('../api/index.js');
  const { resolveScope } = await import('./scope.js');
  const { transport, routeWaiting } = opening;
  const dataDir = opts.data ?? setting('ROSTER_DATA_DIR') ?? './.roster';
  const apiKey = randomBytes(24).toString('hex');
  registerSecret(apiKey);
  const p = opening.project ?? DEFAULT_PROJECT;
  const e = opening.environment ?? DEFAULT_ENVIRONMENT;
  // The embedded default makes its own default environment and the one the configuration declares,
  // explicitly at start; an environment named only by a flag must exist already (scope.ts says so).
  const environments = [{ project: DEFAULT_PROJECT, env: DEFAULT_ENVIRONMENT }];
  if (fromConfig.project || fromConfig.environment)
    environments.push({
      project: fromConfig.project ?? DEFAULT_PROJECT,
      env: fromConfig.environment ?? DEFAULT_ENVIRONMENT,
    });
  const { startServerAside } = await import('../server/aside.js');
  const server = await startServerAside({ dataDir, orgKey: apiKey, environments }).catch(
    (err: NodeJS.ErrnoException) => {
      // A data directory that cannot be made or written is the user's to fix, not a bug.
      if (err.code && UNUSABLE_DATA_DIR.has(err.code)) {
        throw new ConfigError(
          `cannot use the embedded service's data directory ${dataDir} (--data or ROSTER_DATA_DIR): ${err.message}`,
        );
      }
      throw err;
    },
  );
  const concurrency = opts.concurrency ?? inFlightDefault(false);
  const client = createClient({
    baseUrl: server.url,
    apiKey,
    project: p,
    environment: e,
    concurrency,
    pacing: 'none',
    ...transport,
  });
  let pdp: DecisionPoint = { client, url: server.url };
  const close = async () => {
    await client.close();
    if (pdp.client !== client) await pdp.client.close();
    await server.close();
  };
  const where = `the embedded service (${dataDir})`;
  try {
    const keys = await resolveScope(client, p, e, { kind: 'embedded', where });
    // A decision point elsewhere does not know the embedded service's own key: it takes the remote key.
    pdp = await decisionPoint(opts, { client, url: server.url }, () => readKey(opts), {
      project: keys.project,
      environment: keys.environment,
      ...transport,
    });
    return {
      kind: 'embedded',
      url: server.url,
      where,
      project: keys.project,
      environment: keys.environment,
      client,
      paced: false,
      concurrency,
      routeWaiting,
      pdp,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The project and environment an environment-scoped key is for (`GET /v2/api-key/scope`); null for an organisation key. */
async function keyScope(
  apiUrl: string,
  apiKey: string,
  transport: ReturnType<typeof transportOptions>,
): Promise<{ project_id?: string | null; environment_id?: string | null }> {
  const { createClient } = await import('../api/index.js');
  const probe = createClient({ baseUrl: apiUrl, apiKey, project: '-', environment: '-', ...transport });
  try {
    // The shape is checked: a truncated answer is retried and reported, not read as "not scoped".
    const { expectFields, optional, STRING } = await import('../api/answer.js');
    const shape = expectFields({ project_id: optional(STRING), environment_id: optional(STRING) });
    return await probe.get('/v2/api-key/scope', { expect: shape });
  } finally {
    await probe.close();
  }
}

/**
 * Requests in flight at once unless `--concurrency` says: 8 against a paced service (the public one,
 * whose rate limits bound an apply long before its round trips do), 16 against an unpaced one (the
 * embedded default, a `roster serve` on this machine), which answers one request at a time: with twice
 * as many in flight it works on the next requests while the client reads the answers, and commits more
 * of them together (an apply from empty at 100,000 users: 73 s with 8, 54-60 s with 16; 32 was no
 * faster and 64 slower: docs/performance.md).
 */
export function inFlightDefault(paced: boolean): number {
  return paced ? 8 : 16;
}

export const pdpOf = (target: Pick<Target, 'pdp' | 'client' | 'url'>): DecisionPoint =>
  target.pdp ?? { client: target.client, url: target.url };

/**
 * `--pdp-url` (or ROSTER_PDP_URL): a client of its own, with the same key and transport; otherwise the
 * API's client, which `roster serve` and the embedded default answer decisions on.
 */
async function decisionPoint(
  opts: TargetOptions,
  api: { client: ApiClient; url: string },
  key: () => string,
  rest: {
    project: string;
    environment: string;
    pacing?: 'public' | 'none';
    deadlineMs?: number;
    onWaiting: (info: WaitingInfo) => void;
  },
): Promise<DecisionPoint> {
  const raw = opts.pdpUrl ?? setting('ROSTER_PDP_URL');
  if (raw === undefined) return api;
  const via = opts.pdpUrl !== undefined ? '--pdp-url' : 'ROSTER_PDP_URL';
  const url = parseApiUrl(raw, via);
  if (url === api.url) return api;
  const { createClient } = await import('../api/index.js');
  let apiKey: string;
  try {
    apiKey = key();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new ConfigError(`the decision point at ${via} needs a key: set ROSTER_API_KEY or pass --api-key-file FILE`);
  }
  return { client: createClient({ baseUrl: url, apiKey, concurrency: opts.concurrency, ...rest }), url, via };
}

/** The host a remote target is named by (never a path, a query or credentials in the URL). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    throw new ConfigError(`--api-url (or ROSTER_API_URL) is not a URL: '${url}'`);
  }
}

/** The client's own rule for its default pacing (src/api/client.ts): none for a loopback host. */
function isLoopbackUrl(url: string): boolean {
  const { hostname } = new URL(url);
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(hostname) || hostname.endsWith('.localhost');
}

/**
 * `--timeout` and the notices while an answer is slow to come (waiting.ts). A per-attempt limit of 30 s
 * stays (a silent attempt is retried), but never past the request's deadline.
 */
function transportOptions(
  opts: TargetOptions,
  notices: WaitingNotices,
): { deadlineMs?: number; onWaiting: (info: WaitingInfo) => void } {
  let deadlineMs: number | undefined;
  if (opts.timeout !== undefined) {
    const text = opts.timeout.trim();
    const parsed = /^[0-9]+$/.test(text) ? { ok: true as const, ms: Number(text) * 1000 } : parseDuration(text);
    if (!parsed.ok || parsed.ms < 1000)
      throw new ConfigError(
        `--timeout must be a number of seconds or a duration (90, 90s, 2m), at least 1 s, got '${opts.timeout}'`,
      );
    deadlineMs = parsed.ms;
  }
  return {
    deadlineMs,
    onWaiting: notices.onWaiting,
  };
}

/** An environment variable set to '' (as CI does for an unset variable or secret) counts as unset. */
function setting(name: string): string | undefined {
  return process.env[name] || undefined;
}

function pacingOf(mode: string | undefined): 'public' | 'none' | undefined {
  if (mode === undefined || mode === 'public' || mode === 'none') return mode;
  throw new ConfigError(`--pacing must be public or none, got '${mode}'`);
}

function readKey(opts: TargetOptions): string {
  let key = process.env.ROSTER_API_KEY;
  if (opts.apiKeyFile) {
    try {
      key = readFileSync(opts.apiKeyFile, 'utf8').trim();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES' || code === 'EPERM'
            ? 'not readable (permission denied)'
            : code === 'EISDIR'
              ? 'a directory, not a file'
              : (code ?? String(err));
      throw new ConfigError(
        `--api-key-file ${opts.apiKeyFile}: ${why}; give the path of a file holding the API key, or set ROSTER_API_KEY instead`,
      );
    }
    if (!key) throw new ConfigError(`--api-key-file ${opts.apiKeyFile} is empty; it must hold the API key`);
  }
  if (!key) throw new ConfigError('a remote service needs a key: set ROSTER_API_KEY or pass --api-key-file FILE');
  registerSecret(key);
  return key;
}

/** The snapshot of a remote target: under the data directory (`--data`, ROSTER_DATA_DIR, `./.roster`), `snapshots/`. */
async function snapshotPlace(
  opts: TargetOptions,
  url: string,
  apiKey: string,
  keys: { project: string; environment: string },
): Promise<SnapshotPlace> {
  const { deriveSnapshotKey } = await import('../read/seal.js');
  const { snapshotFile } = await import('../read/snapshot.js');
  const target = { url, project: keys.project, environment: keys.environment };
  const dataDir = opts.data ?? setting('ROSTER_DATA_DIR') ?? './.roster';
  return { file: snapshotFile(dataDir, target), key: deriveSnapshotKey(apiKey), target };
}
