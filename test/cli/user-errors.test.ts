/**
 * Mistakes of the user are the user's to fix: one line saying what and how, exit 1, never "internal
 * error" or a stack trace. Run as users run the CLI, against the real server (test/helpers).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, TEST_DATABASE_URL, type TestServer } from '../helpers/server.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-user-errors-'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Exit 1, one line on stderr that starts with `error:`, and none of a bug's marks. */
function expectUserError(r: CliResult, says: RegExp): void {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  expect(lines[0]).toMatch(says);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.code).toBe(1);
}

const CONFIG = 'tenants: { acme: { name: Acme } }\nusers: { alice: { email: alice@acme.test, tenants: [acme] } }\n';
function configDir(name: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'roster.yaml'), CONFIG);
  return dir;
}
const remote = { ROSTER_API_KEY: ORG_KEY };
const scope = ['--project', 'p', '--env', 'e'];

describe('user errors are one line and exit 1', { timeout: 90_000 }, () => {
  it('roster serve on a port in use', async () => {
    const port = new URL(server.url).port;
    const r = await runCli(['serve', '--port', port, '--api-key', 'k', '--data', path.join(tmp, 'serve-data')]);
    expectUserError(r, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use.*--port`));
  });

  it('roster serve --database naming a database that does not exist', async (ctx) => {
    const probe = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
    try {
      await probe.connect();
    } catch {
      ctx.skip(); // no PostgreSQL here: the case needs a server that answers "does not exist"
    } finally {
      await probe.end().catch(() => {});
    }
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = '/roster_no_such_database';
    const r = await runCli(['serve', '--port', '0', '--api-key', 'k', '--database', url.toString()]);
    expectUserError(r, /PostgreSQL at .*roster_no_such_database.*does not exist; create it/);
  });

  it('ROSTER_API_URL without a scheme', async () => {
    const host = new URL(server.url).host;
    const r = await runCli(['plan', ...scope], {
      cwd: configDir('no-scheme'),
      env: { ...remote, ROSTER_API_URL: host },
    });
    expectUserError(r, new RegExp(`ROSTER_API_URL '${host}' has no scheme: write http://${host}`));
  });

  it('ROSTER_API_URL ending in /v2 is the same service (no /v2/v2)', async () => {
    const r = await runCli(['plan', ...scope], {
      cwd: configDir('v2'),
      env: { ...remote, ROSTER_API_URL: `${server.url}/v2/` },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ tenant:acme');
  });

  it('init --from-live with no ROSTER_API_URL refuses to export the empty embedded default, writing nothing', async () => {
    const dir = path.join(tmp, 'init-forgot');
    const r = await runCli(['init', dir, '--from-live', '--data', path.join(tmp, 'empty-data')], {
      env: { ROSTER_API_URL: '' },
    });
    expectUserError(r, /--from-live found nothing to export: no --api-url and no ROSTER_API_URL.*set ROSTER_API_URL/);
    expect(existsSync(path.join(dir, 'roster'))).toBe(false);
  });

  it('apply --plan FILE --prune refuses instead of ignoring --prune', async () => {
    const dir = configDir('saved');
    const plan = await runCli(['plan', '--out', 'plan.json', ...scope, '--api-url', server.url], {
      cwd: dir,
      env: remote,
    });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stderr).toContain('Saved the plan to plan.json: apply it with roster apply --plan plan.json');
    const r = await runCli(['apply', '--plan', 'plan.json', '--prune', '--yes', '--api-url', server.url], {
      cwd: dir,
      env: remote,
    });
    expectUserError(r, /--prune does not go with --plan: .*roster plan --prune --out plan\.json/);
  });

  it('an offline check of an invalid configuration does not speak of the service', async () => {
    const dir = path.join(tmp, 'check');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'roster.yaml'), 'assertions:\n  - { user: bob, can: read, on: doc:x }\n');
    const r = await runCli(['check'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: the configuration has 2 errors\n/);
    expect(r.stderr).not.toContain('service');
  });
});

describe('a file that does not parse', { timeout: 60_000 }, () => {
  it('does not hide an unknown reference in another file, and says which checks were skipped', async () => {
    const dir = path.join(tmp, 'parse');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'a.yaml'), 'users:\n  alice:\n\ttenants: [acme]\n');
    writeFileSync(
      path.join(dir, 'b.yaml'),
      'tenants: { acme: { name: Acme } }\ngroups:\n  team:eng: { tenant: acmee, members: [alice] }\n',
    );
    const r = await runCli(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${path.join(dir, 'a.yaml')}:3:1: error: a tab indents this line`);
    expect(r.stdout).toContain('hint: YAML indents with spaces only: replace the tab with spaces');
    expect(r.stdout).toContain(`${path.join(dir, 'b.yaml')}:3:23: error: unknown tenant "acmee"`);
    expect(r.stdout).toContain(
      'warning: did not parse: references to names in users (the sections it declares) were not checked',
    );
    expect(r.stdout).toContain('2 errors, 1 warning');
  });
});

describe('colour', () => {
  const dir = () => {
    const d = path.join(tmp, 'color');
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, 'roster.yaml'), 'users: { bob: { tenants: [nope] } }\n');
    return d;
  };
  const ESC = '\u001b[';
  const validate = (args: string[], env: Record<string, string | undefined>) =>
    runCli(['validate', ...args], { cwd: dir(), env });

  it('FORCE_COLOR colours output that is not a terminal (CI logs); --color never and NO_COLOR win', async () => {
    const cases: [string[], Record<string, string | undefined>, boolean][] = [
      [[], { NO_COLOR: undefined, FORCE_COLOR: '1' }, true],
      [[], { NO_COLOR: undefined }, false],
      [['--color', 'never'], { NO_COLOR: undefined, FORCE_COLOR: '1' }, false],
      [['--no-color'], { NO_COLOR: undefined, FORCE_COLOR: '1' }, false],
      [[], { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
      [[], { NO_COLOR: undefined, FORCE_COLOR: '0' }, false],
      [['--color', 'always'], { NO_COLOR: '1' }, true],
    ];
    const results = await Promise.all(cases.map(([args, env]) => validate(args, env)));
    results.forEach((r, i) => expect(r.stdout.includes(ESC), JSON.stringify(cases[i])).toBe(cases[i][2]));
  }, 120_000);

  it('--color takes auto, always or never', async () => {
    expectUserError(await validate(['--color', 'purple'], {}), /--color must be auto, always, never, got 'purple'/);
  });
});
