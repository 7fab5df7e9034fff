import type { FastifyInstance } from 'fastify';
import { createServer, type ServerOptions } from './app.js';
import { openSqlite } from './store/sqlite.js';
import type { Db } from './store/db.js';

export interface StartOptions extends Omit<ServerOptions, 'db'> {
  host?: string;
  port?: number;
  /** SQLite data directory. */
  dataDir: string;
}

export interface RunningServer {
  app: FastifyInstance;
  db: Db;
  url: string;
  close(): Promise<void>;
}

/** Opens the store, builds the app and listens: used by `roster serve`, the embedded default and tests. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const db = await openSqlite(options.dataDir);
  const app = await createServer({ ...options, db });
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
