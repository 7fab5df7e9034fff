/**
 * The policy decision point apart from the API (--pdp-url, ROSTER_PDP_URL) and apply's check of the
 * decisions after its writes, through the CLI against real servers: the API behind a proxy that serves
 * no decisions (as the public API), the decision point behind a proxy that serves only decisions (as a
 * PDP), and a stale decision point (a proxy to a second server that never received the writes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { noJitterEnv } from '../helpers/no-jitter.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `project: p
environment: e
resources: { document: [read, write] }
roles: { editor: [document:read, document:write], viewer: [document:read] }
tenants: { acme: {} }
users:
  alice: { tenants: [acme] }
  bob: { tenants: [acme] }
  carol: { tenants: [acme] }
  dave: { tenants: [acme] }
resource_instances: { document:roadmap: acme, document:billing: acme }
groups:
  team:engineering: { tenant: acme, members: [alice], roles: [{ role: editor, on: document:roadmap }] }
  team:contractors: { tenant: acme, members: [dave], roles: [{ role: viewer, on: document:billing }] }
assertions:
  - { user: alice, can: write, on: document:roadmap }
`;
const isDecision = (p: string) => p === '/allowed' || p.startsWith('/allowed/');
const NOT_SERVED = {
  kind: 'status' as const,
  status: 404,
  body: { id: 'x', title: 'No such endpoint', error_code: 'ROUTE_NOT_FOUND', message: 'no endpoint' },
};

/** A web server that answers every request with an HTML page and `status` (not a decision point). */
async function startWebPage(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Welcome</title></head><body><h1>It works!</h1><p>A page, not decisions.</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let s: TestServer;
let stale: TestServer;
let apiOnly: FaultProxy;
let pdpOnly: FaultProxy;
let staleProxy: FaultProxy;
let dir: string;
const write = (text: string) => writeFileSync(path.join(dir, 'roster.yaml'), text);
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: dir, env: { ROSTER_API_KEY: ORG_KEY, ...env } });

beforeAll(async () => {
  [s, stale] = await Promise.all([startTestServer(), startTestServer()]);
  apiOnly = await startFaultProxy(s.url, (r) => (isDecision(r.path) ? NOT_SERVED : undefined));
  pdpOnly = await startFaultProxy(s.url, (r) => (isDecision(r.path) ? undefined : NOT_SERVED));
  staleProxy = await startFaultProxy(stale.url, (r) => (isDecision(r.path) ? undefined : NOT_SERVED));
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-pdp-'));
  write(CONFIG);
  // The two servers are independent: applied side by side.
  for (const r of await Promise.all([s.url, stale.url].map((url) => cli(['apply', '--yes', '--api-url', url])))) {
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(async () => {
  await Promise.all([apiOnly?.close(), pdpOnly?.close(), staleProxy?.close()]);
  await Promise.all([s?.close(), stale?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('check --live with the decision point at another URL than the API', () => {
  it('against an API that serves no decisions: one line naming --pdp-url', async () => {
    const r = await cli(['check', '--live', '--api-url', apiOnly.url]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      `${new URL(apiOnly.url).host} does not serve decisions (POST /allowed/bulk answered 404): name your policy decision point with --pdp-url URL (or ROSTER_PDP_URL)`,
    );
  });

  it('--pdp-url and ROSTER_PDP_URL send the decisions there, and nothing else', async () => {
    const apiDecisions = () => apiOnly.seen.filter((x) => isDecision(x.path)).length;
    const asked = apiDecisions();
    for (const [args, env] of [
      [['--pdp-url', pdpOnly.url], {}],
      [[], { ROSTER_PDP_URL: pdpOnly.url }],
    ] as const) {
      const before = pdpOnly.seen.length;
      const r = await cli(['check', '--live', '--api-url', apiOnly.url, ...args], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('1 assertion on the live service: 1 passed, 0 failed.');
      const seen = pdpOnly.seen.slice(before);
      expect(seen.map((x) => `${x.method} ${x.path} ${x.fault ?? 'ok'}`)).toEqual(['POST /allowed/bulk ok']);
    }
    // The API was asked no decision.
    expect(apiDecisions()).toBe(asked);
  });

  it('a --pdp-url at a web page (HTML, not a decision point) is named as such, without the page', async () => {
    // Every path answers a page, as a web server or a sign-in proxy at that URL would: 200, and 404.
    for (const status of [200, 404, 502]) {
      const web = await startWebPage(status);
      try {
        // The 502 page is retried as a gateway error is: jitter 0, the retries do not wait (test/README.md).
        const r = await cli(['check', '--live', '--api-url', s.url, '--pdp-url', web.url], noJitterEnv());
        expect(r.code, `${status}: ${r.stderr}`).toBe(1);
        expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
        expect(r.stderr).toContain(`the decision point ${new URL(web.url).host} (--pdp-url) `);
        expect(r.stderr).toContain('give the URL of your policy decision point (PDP)');
        expect(r.stderr).not.toMatch(/<html|<body|the service/i);
      } finally {
        await web.close();
      }
    }
  });

  it('a --pdp-url that serves no decisions is named as such', async () => {
    const r = await cli(['check', '--live', '--api-url', s.url, '--pdp-url', apiOnly.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the decision point ${new URL(apiOnly.url).host} (--pdp-url) does not serve POST /allowed/bulk (404)`,
    );
  });
});

describe('apply asks the decision point after its writes', () => {
  it('agrees: every changed decision is checked at the PDP URL', async () => {
    // bob gains editor on the roadmap (read and write); dave loses viewer on billing (read).
    write(CONFIG.replace('members: [alice]', 'members: [alice, bob]').replace('members: [dave]', 'members: []'));
    const before = pdpOnly.seen.length;
    const r = await cli(['apply', '--yes', '--api-url', apiOnly.url, '--pdp-url', pdpOnly.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Decisions: the decision point agrees with the plan on 3 changed decisions');
    expect(pdpOnly.seen.slice(before).map((x) => x.path)).toEqual(['/allowed/bulk']);
  });

  it('a stale decision point: each disagreement named, exit 3, after the wait', async () => {
    write(CONFIG.replace('members: [alice]', 'members: [alice, bob, carol]').replace('members: [dave]', 'members: []'));
    const before = staleProxy.seen.length;
    const r = await cli([
      'apply',
      '--yes',
      '--api-url',
      s.url,
      '--pdp-url',
      staleProxy.url,
      '--decision-wait',
      '1s',
      '--format',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(
      'Decisions: the decision point disagrees with the plan on 2 of 2 changed decisions after waiting 1s',
    );
    expect(r.stderr).toContain(
      'the plan says carol gains document:read on document:roadmap; the decision point still denies it',
    );
    expect(r.stderr).toContain(
      'the plan says carol gains document:write on document:roadmap; the decision point still denies it',
    );
    // Asked, then asked again after the wait.
    expect(staleProxy.seen.slice(before).map((x) => x.path)).toEqual(['/allowed/bulk', '/allowed/bulk']);
    const json = JSON.parse(r.stdout);
    expect(json.decisions).toMatchObject({ total: 2, checked: 2, rounds: 2, requests: 2 });
    expect(
      json.decisions.disagreements.map(
        (d: { user: string; permission: string; decided: boolean }) => `${d.user} ${d.permission} ${d.decided}`,
      ),
    ).toEqual(['carol document:read false', 'carol document:write false']);
  });

  it('--no-verify-decisions asks nothing', async () => {
    write(CONFIG);
    const before = staleProxy.seen.length;
    const r = await cli(['apply', '--yes', '--api-url', s.url, '--pdp-url', staleProxy.url, '--no-verify-decisions']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('Decisions:');
    expect(staleProxy.seen.length).toBe(before);
  });

  it('the decision point asked against an API that serves none: the summary, then the one line, exit 1', async () => {
    write(CONFIG.replace('members: [alice]', 'members: [alice, bob]'));
    const r = await cli(['apply', '--yes', '--api-url', apiOnly.url]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Applied 1 of 1 change');
    expect(r.stderr).toContain('error: the writes are done, but the decision point could not be asked:');
    expect(r.stderr).toContain('--pdp-url');
  });
});

/** Access through attributes only: senior users (level >= 3) may approve expenses; a context rule is undecided offline. */
const ABAC = `project: p
environment: e
user_attributes: { level: number }
resources:
  expense: { actions: [view, approve], attributes: { amount: number } }
tenants: { acme: {} }
users:
  erin: { tenants: [acme], attributes: { level: 4 } }
  frank: { tenants: [acme], attributes: { level: 1 } }
resource_instances:
  expense:e1: { tenant: acme, attributes: { amount: 10 } }
  expense:e2: { tenant: acme, attributes: { amount: 20 } }
user_sets:
  senior: { conditions: { user.level: { greater-than-equals: 3 } } }
  on-call: { conditions: { context.channel: { equals: pager } } }
set_rules:
  - { user_set: senior, can: approve, resource: expense }
`;

describe('apply asks the decision point about set-rule changes too', () => {
  let abacApi: TestServer;
  let abacStale: TestServer;
  let staleDecisions: FaultProxy;
  let abacDir: string;
  const writeAbac = (text: string) => writeFileSync(path.join(abacDir, 'roster.yaml'), text);
  const cliAbac = (args: string[]) => runCli(args, { cwd: abacDir, env: { ROSTER_API_KEY: ORG_KEY } });

  beforeAll(async () => {
    [abacApi, abacStale] = await Promise.all([startTestServer(), startTestServer()]);
    staleDecisions = await startFaultProxy(abacStale.url, (r) => (isDecision(r.path) ? undefined : NOT_SERVED));
    abacDir = mkdtempSync(path.join(os.tmpdir(), 'roster-pdp-abac-'));
    writeAbac(ABAC);
    for (const r of await Promise.all(
      [abacApi.url, abacStale.url].map((url) => cliAbac(['apply', '--yes', '--api-url', url])),
    )) {
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await staleDecisions?.close();
    await Promise.all([abacApi?.close(), abacStale?.close()]);
    if (abacDir) rmSync(abacDir, { recursive: true, force: true });
  });

  it('a user attribute change only: the stale decision point is caught, exit 3', async () => {
    writeAbac(ABAC.replace('level: 1 }', 'level: 5 }'));
    const r = await cliAbac([
      'apply',
      '--yes',
      '--api-url',
      abacApi.url,
      '--pdp-url',
      staleDecisions.url,
      '--decision-wait',
      '0',
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain('Decisions: the decision point disagrees with the plan on 2 of 2 changed decisions');
    expect(r.stdout).toContain(
      'the plan says frank gains expense:approve on expense:e1; the decision point still denies it',
    );
  });

  it('a set rule change agrees with an up-to-date decision point; a context rule is named, not asked', async () => {
    // erin drops to level 2: she loses approve on both expenses.
    writeAbac(
      ABAC.replace('level: 1 }', 'level: 5 }').replace('level: 4 }', 'level: 2 }') +
        '  - { user_set: on-call, can: view, resource: expense }\n',
    );
    const r = await cliAbac(['apply', '--yes', '--api-url', abacApi.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Decisions: the decision point agrees with the plan on 2 changed decisions');
    expect(r.stdout).toContain('Decisions not asked: 1 set rule decides with attributes the check passes');
    expect(r.stdout).toContain('context.channel');
  });

  it('an ABAC-only apply with nothing listening at --pdp-url fails with exit 1', async () => {
    writeAbac(ABAC.replace('level: 1 }', 'level: 5 }'));
    const r = await cliAbac(['apply', '--yes', '--api-url', abacApi.url, '--pdp-url', 'http://127.0.0.1:9']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain('the decision point could not be asked');
  });
});
