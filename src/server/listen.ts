import type { FastifyInstance } from 'fastify';
import { createServer, type ServerOptions } from './app.js';
import { openSqlite } from './store/sqlite.js';
import type { Db } from './store/db.js';

export interface StartOptions extends Omit<ServerOptions, 'db'> {
  host?: string;
  port?: number;
  /** SQLite data directory (used when no `databaseUrl` is given). */
  dataDir?: string;
  /**
   * `postgres://...`: the store is PostgreSQL (several processes may share it; see docs/deploy.md).
   * Absent: SQLite under `dataDir`.
   */
  databaseUrl?: string;
  /** Runs on the built app before it listens: extra hooks (the tests' exchange recorder). */
  configure?: (app: FastifyInstance) => void | Promise<void>;
}

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  url: string;
  close(): Promise<void>;
}

/** PostgreSQL when a database URL is given (the driver is loaded only then), else SQLite. */
async function openStore(options: StartOptions): Promise<Db> {
  if (options.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(options.databaseUrl))
      throw new Error('the database URL must start with postgres:// or postgresql://');
    const { openPostgres } = await import('./store/postgres.js');
    return openPostgres(options.databaseUrl);
  }
  if (!options.dataDir) throw new Error('startServer needs a dataDir (SQLite) or a databaseUrl (PostgreSQL)');
  return openSqlite(options.dataDir);
}

/** Opens the store, builds the app and listens: used by `roster serve`, the embedded default and tests. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const db = await openStore(options);
  let app: FastifyInstance;
  try {
    app = await createServer({ ...options, db });
    await options.configure?.(app);
  } catch (err) {
    await db.close();
    throw err;
  }
  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const port = (app.server.address() as { port: number }).port;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  void address;
  let closed = false;
  return {
    app,
    db,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await db.close();
    },
  };
}
