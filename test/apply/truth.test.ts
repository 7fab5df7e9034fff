import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY } from '../helpers/server.js';
import { ORG_KEY, startEnv, type Env } from './helpers.js';

/**
 * Issue 21, cases 4-6, through the CLI against the real server: apply enforces the assertions plan
 * checks and shows who gains and loses access; plans and prompts name the environment by its keys and
 * the target; a flag contradicting the configuration, and a mistyped environment, are refused.
 */
const BASE = `version: 1
project: p
environment: e
resources:
  document: { name: Document, actions: [read, write] }
roles:
  editor: { name: Editor, permissions: [document:read, document:write] }
tenants:
  acme: { name: Acme }
resource_instances:
  document:billing: { tenant: acme }
`;
const users = (carolRoles: string) => `users:
  alice: { tenants: [acme], roles: [editor] }
  carol: { tenants: [acme], roles: [${carolRoles}] }
assertions:
  - { user: carol, cannot: write, on: document:billing }
`;

let env: Env;
beforeAll(async () => {
  env = await startEnv();
  env.write('ok.yaml', BASE + users(''));
  env.write('breaks.yaml', BASE + users('editor'));
});
afterAll(() => env?.close());

const carolRoles = async () =>
  ((await env.server.facts('GET', '/role_assignments?user=carol')).body as unknown[]).length;

describe('apply enforces what plan checks (case 4) and shows access (case 5)', () => {
  it('apply --yes prints the access section, and the header names keys and the target', async () => {
    const r = await env.roster('apply', 'ok.yaml', '--yes');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Plan for p/e on ${new URL(env.server.url).host}\n`);
    expect(r.stdout).toMatch(
      /Access changes: 1 user; \d+ gained, 0 lost\.\n {2}\+1 user gains editor tenant-wide in acme, on document:billing\n {6}alice/,
    );
  });

  it('refuses a plan under which an assertion fails, and writes nothing', async () => {
    const r = await env.roster('apply', 'breaks.yaml', '--yes');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('+ assignment:carol:editor@acme');
    expect(r.stdout).toMatch(/FAIL .*carol cannot write on document:billing/);
    expect(r.stderr).toContain(
      'error: 1 assertion of the configuration fails on the state after this plan (see above): nothing was applied; fix the configuration, or pass --allow-failing-assertions to apply anyway',
    );
    expect(r.stdout).not.toContain('Applied');
    expect(await carolRoles()).toBe(0);
  });

  it('--allow-failing-assertions applies anyway and says so loudly', async () => {
    const r = await env.roster('apply', 'breaks.yaml', '--yes', '--allow-failing-assertions');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      '!! WARNING: --allow-failing-assertions: applying although 1 assertion of the configuration fails on the state after this plan:',
    );
    expect(r.stderr).toMatch(/!! {3}breaks\.yaml:\d+: carol cannot write on document:billing/);
    expect(r.stdout).toContain('Applied 1 of 1 change in');
    expect(await carolRoles()).toBe(1);
  });
});

describe('environments by name (case 6)', () => {
  it('an environment-scoped key (ids only) plans under the keys', async () => {
    const r = await runCli(['plan', 'ok.yaml', '--api-url', env.server.url], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ENV_KEY },
    });
    expect(r.stdout.split('\n')[0]).toBe(`Plan for p/e on ${new URL(env.server.url).host}`);
    expect(r.stdout).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it.each([
    [
      ['--env', 'prod'],
      "--env prod contradicts the configuration's environment: e; drop --env, or plan a configuration for prod",
    ],
    [
      ['--project', 'other'],
      "--project other contradicts the configuration's project: p; drop --project, or plan a configuration for other",
    ],
  ])(
    'a flag contradicting the configuration (%j) is refused in one line, before anything is read',
    async (flags, line) => {
      const r = await runCli(['apply', 'ok.yaml', '--yes', '--api-url', env.server.url, ...flags], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: ${line}\n`);
      expect(r.stdout).toBe('');
    },
  );

  it('ROSTER_ENV contradicting the configuration is refused too', async () => {
    const r = await runCli(['plan', 'ok.yaml', '--api-url', env.server.url, '--project', 'p'], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ORG_KEY, ROSTER_ENV: 'staging' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: ROSTER_ENV staging contradicts the configuration's environment: e; drop ROSTER_ENV, or plan a configuration for staging\n",
    );
  });

  it('a mistyped environment is a 404 with the closest key, and the service creates nothing', async () => {
    env.write('unscoped.yaml', 'version: 1\ntenants:\n  acme: { name: Acme }\n');
    const r = await runCli(['plan', 'unscoped.yaml', '--api-url', env.server.url, '--project', 'p', '--env', 'ee'], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ORG_KEY },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: environment 'ee' does not exist in project 'p' at ${new URL(env.server.url).host}; did you mean 'e'?`,
    );
    expect(r.stdout).toBe('');
    const envs = (await env.server.call('GET', '/v2/projects/p/envs')).body as { key: string }[];
    expect(envs.map((e) => e.key)).toEqual(['e']);
  });

  it('a saved plan names its target; applying it on another target is refused', async () => {
    expect((await env.roster('plan', 'ok.yaml', '--out', 'saved.json')).code).toBe(0);
    const { readFileSync, writeFileSync } = await import('node:fs');
    const saved = JSON.parse(readFileSync(`${env.dir}/saved.json`, 'utf8'));
    expect(saved).toMatchObject({ project: 'p', environment: 'e', target: new URL(env.server.url).host });
    writeFileSync(`${env.dir}/elsewhere.json`, JSON.stringify({ ...saved, target: 'api.permit.io' }));
    const r = await env.roster('apply', '--plan', 'elsewhere.json', '--yes');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`was made on api.permit.io, not ${new URL(env.server.url).host}`);
  });
});
