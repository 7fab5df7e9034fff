import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { parseApiUrl } from './api-url.js';
import { UNUSABLE_DATA_DIR } from './start-errors.js';
import { registerSecret } from '../secrets.js';
import type { ApiClient } from '../api/index.js';

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
}

export interface Target {
  kind: 'embedded' | 'remote';
  /** Where requests go; for the embedded default a loopback URL of this process. */
  url: string;
  project: string;
  environment: string;
  client: ApiClient;
  /** Whether the client paces its requests to the public service's rate limits (src/api/client.ts); absent: it does. */
  paced?: boolean;
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
export async function openTarget(opts: TargetOptions, fromConfig: { project?: string; environment?: string } = {}): Promise<Target> {
  const { createClient } = await import('../api/index.js');
  const given = opts.apiUrl ?? setting('ROSTER_API_URL');
  const apiUrl = given === undefined ? undefined : parseApiUrl(given, opts.apiUrl !== undefined ? '--api-url' : 'ROSTER_API_URL');
  const project = opts.project ?? fromConfig.project ?? setting('ROSTER_PROJECT');
  const environment = opts.env ?? fromConfig.environment ?? setting('ROSTER_ENV');
  if (apiUrl) {
    const pacing = pacingOf(opts.pacing);
    const apiKey = readKey(opts);
    let p = project;
    let e = environment;
    if (!p || !e) {
      // An environment-scoped key knows its environment: ask the service, as the official SDKs do.
      const probe = createClient({ baseUrl: apiUrl, apiKey, project: '-', environment: '-' });
      try {
        const scope = await probe.get<{ project_id: string | null; environment_id: string | null }>('/v2/api-key/scope');
        p ??= scope.project_id ?? undefined;
        e ??= scope.environment_id ?? undefined;
      } finally {
        await probe.close();
      }
      if (!p || !e) throw new ConfigError('this API key is not scoped to one environment: name it with --project and --env (or project/environment in the configuration)');
    }
    const client = createClient({ baseUrl: apiUrl, apiKey, project: p, environment: e, concurrency: opts.concurrency, pacing });
    const paced = pacing ? pacing === 'public' : !isLoopbackUrl(apiUrl);
    return { kind: 'remote', url: apiUrl, project: p, environment: e, client, paced, close: () => client.close() };
  }
  const dataDir = opts.data ?? setting('ROSTER_DATA_DIR') ?? './.roster';
  const apiKey = randomBytes(24).toString('hex');
  registerSecret(apiKey);
  const { startServerAside } = await import('../server/aside.js');
  const server = await startServerAside({ dataDir, orgKey: apiKey }).catch((err: NodeJS.ErrnoException) => {
    // A data directory that cannot be made or written is the user's to fix, not a bug.
    if (err.code && UNUSABLE_DATA_DIR.has(err.code)) {
      throw new ConfigError(`cannot use the embedded service's data directory ${dataDir} (--data or ROSTER_DATA_DIR): ${err.message}`);
    }
    throw err;
  });
  const p = project ?? DEFAULT_PROJECT;
  const e = environment ?? DEFAULT_ENVIRONMENT;
  const client = createClient({ baseUrl: server.url, apiKey, project: p, environment: e, concurrency: opts.concurrency, pacing: 'none' });
  return {
    kind: 'embedded',
    url: server.url,
    project: p,
    environment: e,
    client,
    paced: false,
    async close() {
      await client.close();
      await server.close();
    },
  };
}


/** The client's own rule for its default pacing (src/api/client.ts): none for a loopback host. */
function isLoopbackUrl(url: string): boolean {
  const { hostname } = new URL(url);
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(hostname) || hostname.endsWith('.localhost');
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
      throw new ConfigError(`cannot read --api-key-file ${opts.apiKeyFile}: ${(err as NodeJS.ErrnoException).code ?? err}`);
    }
  }
  if (!key) throw new ConfigError('a remote service needs a key: set ROSTER_API_KEY or pass --api-key-file FILE');
  registerSecret(key);
  return key;
}
