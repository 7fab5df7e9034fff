import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '../../src/server/listen.js';

export const ORG_KEY = 'test-org-key-0123456789';
export const ENV_KEY = 'test-env-key-abcdefghij';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** JSON request with the org key (or `key`); returns status, body and headers. */
  call(method: string, path: string, body?: unknown, options?: { key?: string | null; headers?: Record<string, string> }): Promise<Resp>;
  /** Same, under `/v2/schema/p/e` or `/v2/facts/p/e`. */
  schema(method: string, path: string, body?: unknown, key?: string | null): Promise<Resp>;
  facts(method: string, path: string, body?: unknown, key?: string | null): Promise<Resp>;
  /** Stops the server, keeping the data directory (for restart tests). */
  stop(): Promise<void>;
}

export interface Resp {
  status: number;
  body: any;
  headers: Headers;
}

/** The real server on port 0 over a temporary data directory, with an org key and a key scoped to p/e. */
export async function startTestServer(options: { dataDir?: string; now?: () => Date } = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'roster-test-'));
  const server = await startServer({ dataDir, port: 0, orgKey: ORG_KEY, envKeys: [{ project: 'p', env: 'e', key: ENV_KEY }], now: options.now });
  const call: TestServer['call'] = async (method, p, body, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? ORG_KEY : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(server.url + p, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
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
    ...server,
    dataDir,
    call,
    schema: (m, p, b, key) => call(m, `/v2/schema/p/e${p}`, b, { key }),
    facts: (m, p, b, key) => call(m, `/v2/facts/p/e${p}`, b, { key }),
    stop: () => server.close(),
    async close() {
      await server.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
