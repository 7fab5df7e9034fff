import { registerSecret } from '../../secrets.js';
import { ConfigError } from '../../errors.js';
import { parseDuration } from '../../types/duration.js';
import { startError } from '../../usecases/start-errors.js';
import { startServer } from '../../server/listen.js';

export interface ServeOptions {
  host: string;
  port: string;
  data: string;
  /** postgres://... (or ROSTER_DATABASE_URL): PostgreSQL instead of SQLite under --data. */
  database?: string;
  apiKey?: string;
  envKey: string[];
  /** `<project>/<env>`: created at start unless it exists. */
  createEnv: string[];
  quiet?: boolean;
  decisionLogMaxAge: string;
  decisionLogMaxCount: string;
  /** false with --no-decision-log. */
  decisionLog: boolean;
  historyMaxAge: string;
  historyMaxCount: string;
  historyOrgKeyOnly?: boolean;
  /** false with --no-history. */
  history: boolean;
}

/** `roster serve`: the local /v2 service until SIGTERM/SIGINT, then a graceful shutdown. */
export async function serveCommand(opts: ServeOptions): Promise<void> {
  const orgKey = opts.apiKey ?? process.env.ROSTER_API_KEY;
  const envKeys = opts.envKey.map(parseEnvKey);
  // `default/default` is what every command targets when nothing names another (src/usecases/target.ts):
  // made at start, as the embedded default makes it, so `--api-url` against a fresh serve just works.
  const environments = [{ project: 'default', env: 'default' }, ...(opts.createEnv ?? []).map(parseScope)];
  if (!orgKey && envKeys.length === 0) {
    throw new ConfigError(
      'roster serve needs a key: --api-key KEY (or ROSTER_API_KEY) and/or --env-key <project>/<env>=<key>',
    );
  }
  registerSecret(orgKey);
  for (const k of envKeys) registerSecret(k.key);
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`--port must be a port number, got '${opts.port}'`);

  const decisionLog = decisionLogOptions(opts);
  const apiHistory = historyOptions(opts);
  const databaseUrl = opts.database ?? (process.env.ROSTER_DATABASE_URL || undefined);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('--database (or ROSTER_DATABASE_URL) must be a postgres:// or postgresql:// URL');
  }
  if (databaseUrl) registerSecret(passwordOf(databaseUrl));
  // The PostgreSQL store (and `pg`) only when a database is named: SQLite serves start without them.
  const { parsePostgresUrl, redactUrl } = databaseUrl
    ? await import('../../server/store/postgres.js')
    : { parsePostgresUrl: undefined, redactUrl: (u: string) => u };
  if (databaseUrl) {
    // Our own parameters (?pool=, ?schema=) and the URL itself are the user's to fix: checked before
    // anything starts, so a bad value is a usage error naming the setting, never an internal one.
    try {
      parsePostgresUrl!(databaseUrl);
    } catch (err) {
      throw new ConfigError(`--database (or ROSTER_DATABASE_URL) ${redactUrl(databaseUrl)}: ${(err as Error).message}`);
    }
  }
  const server = await startServer({
    host: opts.host,
    port,
    dataDir: opts.data,
    databaseUrl,
    orgKey,
    envKeys,
    environments,
    decisionLog,
    apiHistory,
    // Request logs (pino JSON lines): method, url, status, time. Headers, and so keys, are never logged.
    logger: opts.quiet ? false : { level: 'info' },
  }).catch((err: unknown) => {
    throw (
      startError(err, {
        host: opts.host,
        port,
        database: databaseUrl && redactUrl(databaseUrl),
        data: databaseUrl ? undefined : opts.data,
      }) ?? err
    );
  });
  const store = databaseUrl ? `database: ${redactUrl(databaseUrl)}` : `data: ${opts.data}`;
  process.stderr.write(`roster serve: listening on ${server.url} (${store})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.stderr.write('roster serve: shutting down\n');
      server.close().then(resolve, resolve);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}

/** The decision log's retention (src/server/decision-log.ts), or false for none. */
function decisionLogOptions(
  opts: Pick<ServeOptions, 'decisionLog' | 'decisionLogMaxAge' | 'decisionLogMaxCount'>,
): { maxAgeMs: number; maxCount: number } | false {
  if (opts.decisionLog === false) return false;
  const age = parseDuration(String(opts.decisionLogMaxAge ?? '30d').trim());
  if (!age.ok)
    throw new ConfigError(`--decision-log-max-age must be a duration (30d, 12h), got '${opts.decisionLogMaxAge}'`);
  const count = Number(opts.decisionLogMaxCount ?? '1000000');
  if (!Number.isInteger(count) || count < 1)
    throw new ConfigError(
      `--decision-log-max-count must be a whole number of at least 1, got '${opts.decisionLogMaxCount}'`,
    );
  return { maxAgeMs: age.ms, maxCount: count };
}

/** The change history's retention (src/server/api-history.ts), or false for none. */
function historyOptions(
  opts: Pick<ServeOptions, 'history' | 'historyMaxAge' | 'historyMaxCount' | 'historyOrgKeyOnly'>,
): { maxAgeMs: number; maxCount: number; orgKeyOnly: boolean } | false {
  if (opts.history === false) return false;
  const age = parseDuration(String(opts.historyMaxAge ?? '30d').trim());
  if (!age.ok) throw new ConfigError(`--history-max-age must be a duration (30d, 12h), got '${opts.historyMaxAge}'`);
  const count = Number(opts.historyMaxCount ?? '100000');
  if (!Number.isInteger(count) || count < 1)
    throw new ConfigError(`--history-max-count must be a whole number of at least 1, got '${opts.historyMaxCount}'`);
  return { maxAgeMs: age.ms, maxCount: count, orgKeyOnly: opts.historyOrgKeyOnly === true };
}

function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

function parseEnvKey(spec: string): { project: string; env: string; key: string } {
  const m = /^([A-Za-z0-9\-_]+)\/([A-Za-z0-9\-_]+)=(.+)$/.exec(spec);
  if (!m)
    throw new ConfigError(`--env-key must look like <project>/<env>=<key> (got a value of ${spec.length} characters)`);
  return { project: m[1], env: m[2], key: m[3] };
}

function parseScope(spec: string): { project: string; env: string } {
  const m = /^([A-Za-z0-9\-_]{1,256})\/([A-Za-z0-9\-_]{1,256})$/.exec(spec);
  if (!m)
    throw new ConfigError(
      `--create-env must look like <project>/<env> (keys of letters, digits, - and _), got '${spec}'`,
    );
  return { project: m[1], env: m[2] };
}
