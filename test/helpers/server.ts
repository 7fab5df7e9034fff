import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServer, type RunningServer, type StartOptions } from '../../src/server/listen.js';
import type { Exchange } from '../contract/openapi.js';
import { recordExchanges } from '../contract/recorder.js';

/**
 * The store the service tests run on: `ROSTER_TEST_STORE=postgres` runs them on PostgreSQL, each server
 * in a fresh schema of `ROSTER_TEST_DATABASE_URL` (default below), dropped when the test closes it.
 * vitest.config.ts runs the service suites once per store (projects `sqlite` and `postgres`).
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.ROSTER_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_DATABASE_URL = process.env.ROSTER_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A fresh, empty schema name; the store creates it on first open. It carries the test run's id
 * (ROSTER_TEST_RUN, set by vitest.config.ts) so that the run's teardown can drop what a test left.
 */
export function freshSchema(): string {
  const run = (process.env.ROSTER_TEST_RUN ?? 'x').replace(/[^a-z0-9]/gi, '').slice(0, 12) || 'x';
  return `roster_test_${run}_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** `TEST_DATABASE_URL` pointed at `schema` (with a small pool: many test servers share one database). */
export function schemaUrl(schema: string, pool = 4): string {
  const u = new URL(TEST_DATABASE_URL);
  u.searchParams.set('schema', schema);
  u.searchParams.set('pool', String(pool));
  return u.toString();
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export const ORG_KEY = 'test-org-key-0123456789';
export const ENV_KEY = 'test-env-key-abcdefghij';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** JSON request with the org key (or `key`); returns status, body and headers. */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<Resp>;
  /** Same, under `/v2/schema/p/e` or `/v2/facts/p/e`. */
  schema(method: string, path: string, body?: unknown, key?: string | null): Promise<Resp>;
  facts(method: string, path: string, body?: unknown, key?: string | null): Promise<Resp>;
  /** Stops the server, keeping the data directory (for restart tests). */
  stop(): Promise<void>;
  /**
   * With `record: true`, every exchange the server saw, in order (test/contract/recorder.ts): check
   * them with test/contract/openapi.ts `checkExchange`. Empty otherwise.
   */
  exchanges: Exchange[];
}

export interface Resp {
  status: number;
  body: any;
  headers: Headers;
}

/** The real server on port 0 over a temporary data directory, with an org key and a key scoped to p/e. */
export async function startTestServer(
  options: {
    dataDir?: string;
    now?: () => Date;
    record?: boolean;
    limits?: Pick<StartOptions, 'bodyLimit' | 'drainBounds'>;
    /** Projects and environments to create at start besides p/e (`roster serve --create-env`). */
    environments?: StartOptions['environments'];
    /** The decision log's retention and batching, or false for none (src/server/decision-log.ts). */
    decisionLog?: StartOptions['decisionLog'];
    /** The change history's retention, or false for none (src/server/api-history.ts). */
    apiHistory?: StartOptions['apiHistory'];
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'roster-test-'));
  // On PostgreSQL the data directory only records the server's schema, so that a restart on the same
  // data directory (`stop()`, then `startTestServer({dataDir})`) finds the same data.
  let schema: string | undefined;
  let exchanges: Exchange[] = [];
  if (TEST_STORE === 'postgres') {
    const file = path.join(dataDir, 'pg-schema');
    schema = existsSync(file) ? readFileSync(file, 'utf8').trim() : freshSchema();
    writeFileSync(file, schema);
  }
  const server = await startServer({
    dataDir,
    databaseUrl: schema ? schemaUrl(schema) : undefined,
    port: 0,
    orgKey: ORG_KEY,
    envKeys: [{ project: 'p', env: 'e', key: ENV_KEY }],
    environments: options.environments,
    decisionLog: options.decisionLog,
    apiHistory: options.apiHistory,
    now: options.now,
    ...options.limits,
    // ROSTER_TEST_LOG=1 prints the server's errors (with their stack) while debugging a 500.
    logger: process.env.ROSTER_TEST_LOG ? { level: 'error' } : false,
    configure: (app) => {
      if (options.record) exchanges = recordExchanges(app);
    },
  });
  const { call, schema: schemaCall, facts } = httpClient(server.url);
  return {
    ...server,
    dataDir,
    call,
    schema: schemaCall,
    facts,
    exchanges,
    stop: () => server.close(),
    async close() {
      await server.close();
      if (!options.dataDir) {
        rmSync(dataDir, { recursive: true, force: true });
        if (schema) await dropSchema(schema);
      }
    },
  };
}

export type HttpClient = Pick<TestServer, 'call' | 'schema' | 'facts'> & { url: string };

/** The test servers' request helpers for any service URL (e.g. a `roster serve` child process). */
export function httpClient(url: string): HttpClient {
  const call: TestServer['call'] = async (method, p, body, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? ORG_KEY : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + p, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    url,
    call,
    schema: (m, p, b, key) => call(m, `/v2/schema/p/e${p}`, b, { key }),
    facts: (m, p, b, key) => call(m, `/v2/facts/p/e${p}`, b, { key }),
  };
}
