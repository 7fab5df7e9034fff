import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEntry, ROOT } from '../helpers/cli.js';
import { ENV_KEY, httpClient, ORG_KEY, startTestServer, TEST_STORE, type HttpClient } from '../helpers/server.js';
import { addMember, allowed, assign, grantGroup, group, ok, seedDocs } from './builders.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'roster-persist-'));
  dirs.push(d);
  return d;
}

describe('restart on the same data directory', () => {
  it('keeps every object, the organisation id and the decisions', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const x = await seedDocs(first);
    await assign(first, { user: x.alice, role: x.viewer, resource_instance: x.d1 });
    await group(first, 'team:a', x.tenant);
    await addMember(first, 'team:a', x.bob, x.tenant);
    await grantGroup(first, 'team:a', { role: x.editor, resource: x.doc, resource_instance: 'd2', tenant: x.tenant });
    const before = {
      scope: ok(await first.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY })),
      roles: ok(await first.schema('GET', '/roles')),
      users: ok(await first.facts('GET', '/users')),
      assignments: ok(await first.facts('GET', '/role_assignments')),
      group: ok(await first.schema('GET', '/groups/team:a')),
      tuples: ok(await first.facts('GET', '/relationship_tuples')),
    };
    await first.stop();

    const second = await startTestServer({ dataDir });
    try {
      expect({
        scope: ok(await second.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY })),
        roles: ok(await second.schema('GET', '/roles')),
        users: ok(await second.facts('GET', '/users')),
        assignments: ok(await second.facts('GET', '/role_assignments')),
        group: ok(await second.schema('GET', '/groups/team:a')),
        tuples: ok(await second.facts('GET', '/relationship_tuples')),
      }).toEqual(before);
      expect(await allowed(second, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);
      expect(await allowed(second, x.bob, 'write', { type: x.doc, key: 'd2' })).toBe(true);
    } finally {
      await second.stop();
    }
  });
});

interface Serve {
  child: ChildProcess;
  client: HttpClient;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `roster serve --port 0` as a child process, as a user runs it; resolves once it prints its URL. */
async function serve(dataDir: string, extra: string[] = ['--quiet']): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [
      ...cliEntry(),
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--api-key',
      ORG_KEY,
      '--env-key',
      `p/e=${ENV_KEY}`,
      ...extra,
    ],
    { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`roster serve did not start:\n${out}`)), 30_000);
    const look = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stderr!.on('data', look);
    void exited.then(() => reject(new Error(`roster serve exited:\n${out}`)));
  });
  expect(url).not.toMatch(/:0$/);
  return { child, client: httpClient(url), output: () => out, exited };
}

// These run `roster serve` itself, on its SQLite store: once is enough, whatever store the suite is on.
// Three processes in turn on one data directory (process start-up is the slow part): the first is
// killed with -9 after a write; the second, logging, reads it back and is stopped with SIGTERM; the
// third reads what the second wrote.
describe.skipIf(TEST_STORE === 'postgres')('roster serve as a process', () => {
  const dataDir = tempDir();

  it('an acknowledged write survives kill -9', async () => {
    const a = await serve(dataDir);
    ok(await a.client.facts('POST', '/tenants', { key: 'durable', name: 'Durable' }));
    ok(await a.client.facts('POST', '/users', { key: 'ann' }));
    ok(await a.client.schema('POST', '/roles', { key: 'r', name: 'r' }));
    // Acknowledged, then killed at once: no graceful shutdown, no checkpoint.
    ok(await a.client.facts('POST', '/role_assignments', { user: 'ann', role: 'r', tenant: 'durable' }));
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');

    const b = await serve(dataDir, []);
    try {
      expect(ok(await b.client.facts('GET', '/tenants/durable')).name).toBe('Durable');
      expect(ok(await b.client.facts('GET', '/role_assignments?user=ann'))).toEqual([
        expect.objectContaining({ role: 'r', tenant: 'durable' }),
      ]);
      await logsWithoutKeys(b);
    } finally {
      b.child.kill('SIGKILL');
    }
  });

  /** The second process logs requests; none of its output may contain a key, wherever a caller put it. */
  async function logsWithoutKeys(b: Serve) {
    ok(await b.client.facts('POST', '/tenants', { key: 'kept', name: 'Kept' }));
    ok(await b.client.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    await b.client.call('GET', '/v2/schema/p/e/resources', undefined, { key: `${ORG_KEY}-wrong` });
    await b.client.call('GET', '/v2/schema/p/other/resources', undefined, { key: ENV_KEY });
    // A key in the body, the query string and an unknown route is still the caller's key.
    await b.client.call('POST', '/v2/facts/p/e/tenants', { key: ORG_KEY, name: ORG_KEY });
    await b.client.call('GET', `/v2/nowhere?token=${ENV_KEY}`);
    await b.client.call('GET', `/v2/facts/p/e/users/${ORG_KEY}`);

    b.child.kill('SIGTERM');
    expect(await b.exited).toEqual({ code: 0, signal: null });
    const out = b.output();
    expect(out).toContain('shutting down');
    expect(out).not.toContain(ORG_KEY);
    expect(out).not.toContain(ENV_KEY);
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(lines).toContainEqual(
      expect.objectContaining({ req: expect.objectContaining({ method: 'POST', url: '/v2/facts/p/e/tenants' }) }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ res: expect.objectContaining({ statusCode: 401 }) }));
  }

  it('SIGTERM shut down gracefully (exit code 0) with the data intact', async () => {
    const c = await serve(dataDir);
    try {
      expect(ok(await c.client.facts('GET', '/tenants/kept')).name).toBe('Kept');
      expect(ok(await c.client.facts('GET', '/tenants/durable')).name).toBe('Durable');
    } finally {
      c.child.kill('SIGTERM');
      expect((await c.exited).code).toBe(0);
    }
  });
});
