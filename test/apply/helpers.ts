import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type ApiClient, type AttemptInfo } from '../../src/api/index.js';
import { loadConfig } from '../../src/config/index.js';
import type { DesiredState } from '../../src/types/desired.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { runCli, type CliResult } from '../helpers/cli.js';

export { ORG_KEY };

export interface Env {
  server: TestServer;
  /** A temporary working directory for configuration and plan files. */
  dir: string;
  /** Writes a file under `dir`; returns its path. */
  write(name: string, text: string): string;
  /** `roster ...args --api-url <server> --project p --env e` in `dir`, with the org key in ROSTER_API_KEY. */
  roster(...args: string[]): Promise<CliResult>;
  /** A client of the test server (with the org key, in `project`/e, default p/e), counting its requests. */
  client(project?: string): { client: ApiClient; requests: AttemptInfo[] };
  close(): Promise<void>;
}

/**
 * `now`: the server's clock (access-request decisions are dated by it). `projects`: besides `p`, the
 * projects (each with an environment `e`) that `client(project)` may name; the server creates them at start.
 */
export async function startEnv(options: { now?: () => Date; projects?: string[] } = {}): Promise<Env> {
  const server = await startTestServer({
    now: options.now,
    environments: (options.projects ?? []).map((project) => ({ project, env: 'e' })),
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-apply-'));
  const clients: ApiClient[] = [];
  return {
    server,
    dir,
    write(name, text) {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    },
    roster: (...args) =>
      runCli([...args, '--api-url', server.url, '--project', 'p', '--env', 'e'], {
        cwd: dir,
        env: { ROSTER_API_KEY: ORG_KEY },
        timeoutMs: 120_000,
      }),
    client(project = 'p') {
      const requests: AttemptInfo[] = [];
      const client = createClient({
        baseUrl: server.url,
        apiKey: ORG_KEY,
        project,
        environment: 'e',
        onRequest: (i) => requests.push(i),
      });
      clients.push(client);
      return { client, requests };
    },
    async close() {
      for (const c of clients) await c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Loads a configuration file through the whole pipeline, as `roster plan` does. */
export async function loadDesired(file: string): Promise<DesiredState> {
  const r = await loadConfig([file]);
  if (!r.desired) throw new Error(`config errors: ${JSON.stringify(r.errors)}`);
  return r.desired;
}

/** The `+ id`, `~ id`, `- id` lines of a text plan. */
export function changeLines(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => /^ {2}[+~-] /.test(l))
    .map((l) => l.trim());
}

/** Row counts of the service's tables, to check that nothing was written twice. */
export async function liveCounts(env: Env): Promise<Record<string, number>> {
  const { client } = env.client();
  const count = async (p: string, perPage = 100) => (await client.listAll(p, { perPage })).length;
  const { schema, facts } = client.paths;
  return {
    users: await count(`${facts}/users`),
    tenants: await count(`${facts}/tenants`),
    assignments: await count(`${facts}/role_assignments`, 1000),
    instances: await count(`${facts}/resource_instances`),
    groups: await count(`${schema}/groups/direct`),
  };
}
