import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../server/builders.js';

/**
 * `roster drift` end to end against roster serve: after an apply, changes made out of band through the
 * API (with the environment's key, not from the configuration) are reported with who made them and when;
 * without a readable history the drift is still reported, saying why the authors are unknown.
 */

const CONFIG = `version: 1
project: p
environment: e
resources:
  doc: { actions: [read, write] }
roles:
  viewer: { permissions: [doc:read] }
  editor: { permissions: [doc:read, doc:write] }
tenants:
  acme: { name: Acme }
users:
  alice: { email: alice@example.com, roles: [{ role: viewer, tenant: acme }] }
  bob: { roles: [{ role: editor, tenant: acme }] }
`;

let s: TestServer;
let dir: string;
const env = { ROSTER_API_KEY: ORG_KEY, ROSTER_API_URL: undefined, ROSTER_PROJECT: undefined, ROSTER_ENV: undefined };
const cli = (url: string, ...args: string[]) =>
  runCli([...args, '--api-url', url], { cwd: dir, env, timeoutMs: 60_000 });
/** The request id of the out-of-band deletion. */
let deleted: string;

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-drift-'));
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG);
  const applied = await cli(s.url, 'apply', '--yes');
  expect(applied.code, applied.stderr).toBe(0);
  // Out of band, with the environment's key: a role changed, a user added, an assignment removed.
  ok(await s.schema('PATCH', '/roles/viewer', { permissions: ['doc:read', 'doc:write'] }, ENV_KEY));
  ok(await s.facts('POST', '/users', { key: 'mallory' }, ENV_KEY));
  const del = await s.facts('DELETE', '/role_assignments', { user: 'bob', role: 'editor', tenant: 'acme' }, ENV_KEY);
  expect(del.status).toBe(204);
  deleted = del.headers.get('x-request-id') ?? '';
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('roster drift', { timeout: 120_000 }, () => {
  it('names who changed each drifted object and when', async () => {
    const r = await cli(s.url, 'drift', '--format', 'json', '--prune', '--detailed-exitcode');
    expect(r.code, r.stderr).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.history).toMatchObject({ read: true });
    const by = Object.fromEntries(report.objects.map((o: any) => [o.id, o]));
    const history = ok(await s.call('GET', '/v2/history?per_page=100')).data as any[];
    const call = (method: string, p: string) => history.find((e) => e.method === method && e.path === p);
    const patch = call('PATCH', '/v2/schema/p/e/roles/viewer');
    const post = call('POST', '/v2/facts/p/e/users');
    const del = call('DELETE', '/v2/facts/p/e/role_assignments');
    expect(del.request_id).toBe(deleted);
    const cause = (e: any) => ({
      actor: 'API key of p/e',
      actorType: 'api_key',
      actorId: e.actor_id,
      at: e.timestamp,
      method: e.method,
      path: e.path,
      requestId: e.request_id,
    });
    expect(Object.keys(by).sort()).toEqual(['assignment:bob:editor@acme', 'role:viewer', 'user:mallory']);
    expect(by['role:viewer']).toMatchObject({ state: 'changed', fields: ['permissions'], cause: cause(patch) });
    expect(by['user:mallory']).toMatchObject({ state: 'added', cause: cause(post) });
    // The body of a collection call names the assignment (read from /v2/history/{id}/request): the apply's
    // bulk call made it, the out-of-band call deleted it, the newest is the cause.
    expect(by['assignment:bob:editor@acme']).toMatchObject({ state: 'missing', cause: cause(del), calls: 2 });
  });

  it('prints text and Markdown (the issue) from the same report', async () => {
    const text = await cli(s.url, 'drift');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Drift in p\/e \(.+\): 2 objects differ from the configuration\.$/m);
    expect(text.stdout).toMatch(
      /~ role:viewer\s+changed out of band \(permissions\); by API key of p\/e at \S+Z \(PATCH \/v2\/schema\/p\/e\/roles\/viewer\)/,
    );
    const md = await cli(s.url, 'drift', '--format', 'markdown');
    expect(md.stdout.startsWith('<!-- roster-drift -->\n### Roster drift: p/e')).toBe(true);
    expect(md.stdout).toContain('| ~ | `role:viewer` | changed out of band (permissions) | API key of p/e |');
  });

  it('still reports the drift when the history cannot be read, saying why', async () => {
    const proxy = await startFaultProxy(s.url, (req) =>
      req.path === '/v2/history' ? { kind: 'status', status: 403 } : undefined,
    );
    try {
      const r = await cli(proxy.url, 'drift', '--format', 'json');
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.history).toEqual({ read: false, reason: 'this API key may not read it (403)' });
      expect(report.objects.map((o: any) => [o.id, o.cause])).toEqual([
        ['role:viewer', undefined],
        ['assignment:bob:editor@acme', undefined],
      ]);
      const text = await cli(proxy.url, 'drift');
      expect(text.stdout).toContain('The change history was not read: this API key may not read it (403).');
    } finally {
      await proxy.close();
    }
  });

  it('refuses an unknown format and a bad --since', async () => {
    const f = await cli(s.url, 'drift', '--format', 'yaml');
    expect([f.code, f.stderr.trim()]).toEqual([1, "error: --format must be one of text, markdown, json, got 'yaml'"]);
    const since = await cli(s.url, 'drift', '--since', 'lately');
    expect(since.code).toBe(1);
    expect(since.stderr).toContain('--since takes a duration back from now (30d, 12h) or a date');
  });
});
