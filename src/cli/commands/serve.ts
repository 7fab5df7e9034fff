import { registerSecret } from '../../secrets.js';
import { ConfigError } from '../../errors.js';
import { startError } from '../../usecases/start-errors.js';
import { startServer } from '../../server/listen.js';
import {
  decisionLogOptions,
  historyOptions,
  parseEnvKey,
  parseScope,
  passwordOf,
  type ServeOptions,
} from '../serve-options.js';

export type { ServeOptions };

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
