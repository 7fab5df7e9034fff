/**
 * One repository, several environments (issue #22), end to end against one `roster serve` holding two
 * environments, reached with one organisation key: `roster init --environments staging,prod`, then
 * validate, plan and apply each; what a change in shared/ or in one environment's folder plans; the diff
 * of the two; variables, acknowledged warnings, a symlinked shared folder; export round trips.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let tmp: string;
let dir: string;
const env = { ROSTER_API_KEY: ORG_KEY, ROSTER_API_URL: undefined, ROSTER_ENV: undefined, ROSTER_PROJECT: undefined };
/** A command that reads the service (the org key reaches every environment). */
const remote = (args: string[], cwd = dir) => runCli([...args, '--api-url', server.url], { cwd, env });
/** A command that reads only files. */
const local = (args: string[], cwd = dir) => runCli(args, { cwd, env });
const file = (rel: string) => path.join(dir, rel);
const edit = (rel: string, change: (text: string) => string) =>
  writeFileSync(file(rel), change(readFileSync(file(rel), 'utf8')));
const SHARED = 'roster/shared/roster.yaml';
const PROD = 'roster/envs/prod/roster.yaml';
const STAGING = 'roster/envs/staging/roster.yaml';

beforeAll(async () => {
  server = await startTestServer({
    environments: ['staging', 'prod', 'copy'].map((env) => ({ project: 'default', env })),
  });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-envs-'));
  dir = path.join(tmp, 'repo');
  const init = await local(['init', '--environments', 'staging,prod', dir], tmp);
  expect(init.code, init.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('roster init --environments staging,prod, against one service', { timeout: 180_000 }, () => {
  it('writes shared/ and one folder per environment, each naming its project and environment', () => {
    expect(readFileSync(file(STAGING), 'utf8')).toMatch(/^project: default .*\nenvironment: staging\n/m);
    expect(readFileSync(file(PROD), 'utf8')).toMatch(/^environment: prod$/m);
    expect(readFileSync(file(SHARED), 'utf8')).toContain('${label}');
  });

  it('validates each environment, plans and applies each, then plans no changes in either', async () => {
    const validate = await local(['validate']);
    expect([validate.code, validate.stdout]).toEqual([0, 'configuration is valid\n']);
    // The two environments are independent: each planned and applied side by side with the other.
    await Promise.all(
      ['staging', 'prod'].map(async (e) => {
        const plan = await remote(['plan', '--env', e, '--detailed-exitcode']);
        expect(plan.code, plan.stderr).toBe(2);
        expect(plan.stdout).toContain(`default/${e}`);
        expect(plan.stdout).toMatch(/\+ user:ada\n/);
        const apply = await remote(['apply', 'roster/', '--env', e, '--yes']);
        expect(apply.code, apply.stderr).toBe(0);
      }),
    );
    for (const plan of await Promise.all(
      ['staging', 'prod'].map((e) => remote(['plan', '--env', e, '--detailed-exitcode'])),
    )) {
      expect([plan.code, plan.stdout]).toEqual([0, expect.stringContaining('No changes.')]);
    }
    // Two environments on the service, each with the description its variable gave.
    const roles = await server.call('GET', '/v2/schema/default/prod/roles');
    expect(roles.body.find((r: { key: string }) => r.key === 'viewer').description).toBe('Reads documents in prod');
  });

  it('without --env, a command that talks to one environment says which there are', async () => {
    const plan = await remote(['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('roster holds one folder per environment: prod, staging; name one with --env');
  });

  it("a change in shared/ plans in both environments; one in an environment's folder only there", async () => {
    edit(SHARED, (t) =>
      t.replace('  editor:', '  auditor: { name: Auditor, permissions: [document:read] }\n  editor:'),
    );
    for (const plan of await Promise.all(
      ['staging', 'prod'].map((e) => remote(['plan', '--env', e, '--detailed-exitcode'])),
    )) {
      expect(plan.code, plan.stderr).toBe(2);
      expect(plan.stdout).toMatch(/^ {2}\+ role:auditor$/m);
      expect(plan.stdout.match(/^ {2}[+~-] /gm)).toHaveLength(1);
    }
    edit(SHARED, (t) => t.replace(/ {2}auditor: .*\n/, ''));
    edit(PROD, (t) => t.replace('users:\n', 'users:\n  erin: { email: erin@example.com, tenants: [example] }\n'));
    const [prod, staging] = await Promise.all(
      ['prod', 'staging'].map((e) => remote(['plan', '--env', e, '--detailed-exitcode'])),
    );
    expect(prod.code, prod.stderr).toBe(2);
    expect(prod.stdout).toMatch(/^ {2}\+ user:erin$/m);
    expect([staging.code, staging.stdout]).toEqual([0, expect.stringContaining('No changes.')]);
  });

  it('roster diff lists exactly the objects that differ: declared, and live', async () => {
    // Three reads of what the last test left, side by side.
    const [declared, live, text] = await Promise.all([
      local(['diff', 'staging', 'prod', '--format', 'json', '--detailed-exitcode']),
      remote(['diff', 'staging', 'prod', '--live', '--format', 'json']),
      local(['diff', 'prod', 'staging']),
    ]);
    expect(declared.code, declared.stderr).toBe(2);
    expect(JSON.parse(declared.stdout)).toEqual({
      on: 'declared',
      a: 'staging',
      b: 'prod',
      differences: [
        {
          kind: 'differs',
          id: 'role:editor',
          fields: [{ field: 'description', a: 'Writes documents in staging', b: 'Writes documents in prod' }],
        },
        {
          kind: 'differs',
          id: 'role:viewer',
          fields: [{ field: 'description', a: 'Reads documents in staging', b: 'Reads documents in prod' }],
        },
        { kind: 'only-b', id: 'user:erin' },
      ],
    });
    // erin is not applied yet: live, only the roles differ.
    expect(live.code, live.stderr).toBe(0);
    expect(JSON.parse(live.stdout).differences.map((d: { id: string }) => d.id)).toEqual([
      'role:editor',
      'role:viewer',
    ]);
    expect(text.stdout).toContain('prod → staging (declared): 3 objects differ');
    expect(text.stdout).toMatch(/^ {2}- user:erin$/m);
    expect(text.stdout).toContain('      description: "Reads documents in prod" → "Reads documents in staging"');
  });

  it('an unknown variable is an error at its file:line:column, in the environment that lacks it', async () => {
    edit(PROD, (t) =>
      t
        .replace('  label: prod\n', '  label: prod\n  domain: example.com\n')
        .replace('erin@example.com', '"erin@${domain}"'),
    );
    const validate = await local(['validate']);
    expect(validate.code).toBe(0); // prod declares it
    edit(SHARED, (t) => t.replace('name: Viewer,', 'name: "Viewer (${domian})",'));
    const line =
      readFileSync(file(SHARED), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('${domian}')) + 1;
    const column = readFileSync(file(SHARED), 'utf8').split('\n')[line - 1].indexOf('${domian}') + 1;
    const bad = await local(['validate', '--env', 'prod']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`roster/shared/roster.yaml:${line}:${column}: error: unknown variable "domian"`);
    expect(bad.stdout).toContain('hint: did you mean "domain"?');
    const plan = await remote(['plan', '--env', 'staging']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `roster/shared/roster.yaml:${line}:${column}: roles.viewer.name: unknown variable "domian"`,
    );
    edit(SHARED, (t) => t.replace('name: "Viewer (${domian})",', 'name: Viewer,'));
  });

  it('a warning of a shared role unused in one environment is reported for it, and not once acknowledged there', async () => {
    edit(SHARED, (t) =>
      t.replace('  editor:', '  auditor: { name: Auditor, permissions: [document:read] }\n  editor:'),
    );
    edit(PROD, (t) =>
      t
        .replace('  erin: {', '  erin: { roles: [auditor], ')
        .replace('"erin@${domain}", tenants', 'email: "erin@${domain}", tenants')
        .replace('email: email:', 'email:'),
    );
    const before = await local(['validate']);
    expect(before.code, before.stdout).toBe(0);
    expect(before.stdout).toContain(
      'warning: role "auditor" is not given to any user or group (in the environment staging)',
    );
    edit(STAGING, (t) => `${t}\nacknowledge:\n  unused-role: [auditor]\n`);
    const after = await local(['validate']);
    expect([after.code, after.stdout]).toEqual([0, 'configuration is valid\n']);
  });

  it("a user removed from one environment's folder is planned for deletion there (each environment is authoritative)", async () => {
    const before = readFileSync(file(STAGING), 'utf8');
    edit(STAGING, (t) => t.replace(/^ {2}ada: .*\n/m, '').replace(/^ {2}- \{ user: ada, .*\n/m, ''));
    const [plan, prod] = await Promise.all([
      remote(['plan', '--env', 'staging', '--detailed-exitcode']),
      remote(['plan', '--env', 'prod']),
    ]);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/^ {2}- user:ada$/m);
    expect(plan.stdout).not.toContain('(kept)');
    expect(prod.stdout).not.toContain('user:ada');
    writeFileSync(file(STAGING), before);
  });

  it('reads a shared folder that is a symbolic link', async () => {
    const other = path.join(tmp, 'linked');
    mkdirSync(path.join(other, 'roster/envs'), { recursive: true });
    cpSync(file('roster/envs/staging'), path.join(other, 'roster/envs/staging'), { recursive: true });
    symlinkSync(file('roster/shared'), path.join(other, 'roster/shared'), 'dir');
    const validate = await local(['validate', '--env', 'staging'], other);
    expect([validate.code, validate.stdout]).toEqual([0, 'configuration is valid\n']);
    const diff = await local(['diff', 'staging', 'staging', 'roster'], other);
    expect(diff.stdout).toBe('staging and staging (declared): no differences.\n');
  });
});

describe('roster export with several environments', { timeout: 180_000 }, () => {
  it("an export applied to an empty environment reproduces the original exactly (users' tenants included)", async () => {
    const exported = await remote(['export', '--project', 'default', '--env', 'staging', '--out', 'exported']);
    expect(exported.code, exported.stderr).toBe(0);
    const original = readFileSync(file('exported/roster.yaml'), 'utf8');
    // grace is in the tenant example and in one of its groups, with no role: her tenant is written.
    expect(original).toMatch(/^ {2}grace: \{email: grace@example\.com, tenants: \[example\]\}$/m);
    const plan = await remote(['plan', 'exported', '--project', 'default', '--env', 'copy', '--format', 'json']);
    const changes = JSON.parse(plan.stdout).changes as unknown[];
    expect(changes).toHaveLength(13); // what applying the staging folder created
    expect((await remote(['apply', 'exported', '--project', 'default', '--env', 'copy', '--yes'])).code).toBe(0);
    const copy = await remote(['export', '--project', 'default', '--env', 'copy']);
    expect(copy.stdout.replace('default/copy', 'default/staging')).toBe(original);
  });

  it('export --diff DIR compares the declared state of a split configuration, object by object', async () => {
    // The shared role auditor (added above) is declared, not yet live: it differs until applied.
    const before = await remote(['export', '--diff', 'roster', '--env', 'staging']);
    expect(before.code, before.stderr).toBe(1);
    expect(before.stdout).toContain('roster → live (declared against live): 1 object differs');
    expect(before.stdout).toMatch(/^ {2}- role:auditor$/m);
    expect(before.stdout).toContain(
      'Not compared (roster does not manage them): access_requests, user_attributes, tenant_attributes, user_sets, resource_sets, set_rules.',
    );
    expect((await remote(['apply', '--env', 'staging', '--yes'])).code).toBe(0);
    const same = await remote(['export', '--diff', 'roster', '--env', 'staging']);
    expect([same.code, same.stdout], same.stderr).toEqual([0, '']);
    expect(same.stderr).toContain('roster matches the live environment.');
    edit(STAGING, (t) => t.replace('users:\n', 'users:\n  finn: { tenants: [example] }\n'));
    const differs = await remote(['export', '--diff', 'roster', '--env', 'staging']);
    expect(differs.code, differs.stderr).toBe(1);
    expect(differs.stdout).toContain('roster → live (declared against live): 1 object differs');
    expect(differs.stdout).toMatch(/^ {2}- user:finn$/m);
  });
});

describe('a number that differs by environment (typed variables, issue 39)', { timeout: 180_000 }, () => {
  it('"${max_size}" compares as the number each environment gives: the limit denies in prod, offline and live', async () => {
    const repo = path.join(tmp, 'typed');
    cpSync(file('roster'), path.join(repo, 'roster'), { recursive: true });
    const at = (rel: string) => path.join(repo, 'roster', rel);
    const change = (rel: string, f: (t: string) => string) => writeFileSync(at(rel), f(readFileSync(at(rel), 'utf8')));
    change(
      'shared/roster.yaml',
      (t) =>
        t.replace(
          'document: { name: Document, actions: [read, write] }',
          'document: { name: Document, actions: [read, write], attributes: { size: number } }',
        ) +
        '\nresource_sets:\n  small:\n    resource: document\n    conditions:\n      resource.size: { less-than: "${max_size}" }\nset_rules:\n  - { role: viewer, can: write, resource_set: small }\n',
    );
    for (const [e, value] of [
      ['prod', '50'],
      ['staging', '"50"'],
    ]) {
      change(`envs/${e}/roster.yaml`, (t) =>
        t
          .replace('variables:\n', `variables:\n  max_size: ${value}\n`)
          .replace(
            'document:handbook: { tenant: example }',
            'document:handbook: { tenant: example, attributes: { size: 80 } }',
          ),
      );
    }
    // prod: 80 < 50 does not hold, so ada (a viewer) cannot write the handbook, as its assertion says.
    const prod = await local(['check', '--env', 'prod'], repo);
    expect([prod.code, prod.stderr], prod.stdout).toEqual([0, '']);
    // staging: the string "50" orders after every number, so the comparison always holds: a warning whose hint names the variable.
    const staging = await local(['validate', '--env', 'staging'], repo);
    expect(staging.stdout).toContain('warning: "50" is a string, but attribute "size" of "document" is a number');
    expect(staging.stdout).toContain(
      'hint: give the variable "max_size" a number value: `max_size: 50` under `variables:`, without quotes',
    );
    expect((await local(['check', '--env', 'staging'], repo)).stdout).toMatch(/ada.*cannot write on document:handbook/);
    expect((await remote(['apply', '--env', 'prod', '--yes'], repo)).code).toBe(0);
    const live = await remote(['check', '--live', '--env', 'prod'], repo);
    expect(live.code, live.stdout + live.stderr).toBe(0);
  });
});
