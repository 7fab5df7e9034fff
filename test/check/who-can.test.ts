/**
 * `roster who-can`, `roster what-can` and exact-set assertions end to end: through the CLI on the
 * configuration (offline), then applied to `roster serve` (real HTTP, port 0) and asked --live (POST
 * /authorized_users, POST /user-permissions): the same sets. Roles directly, through a group link and
 * a derivation, and set rules (ABAC) with and without the attributes passed. `check --update` rewrites
 * the `exactly:` lists keeping the file's comments.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `# yaml-language-server: $schema=roster.schema.json
resources:
  document:
    actions: [read, write]
    relations: { parent: folder }
    roles: { reader: { permissions: [read], granted_to: [{ role: owner, on: folder, via: parent }] } }
  folder:
    actions: [read]
    roles: { owner: [read] }
  expense:
    actions: [approve]
    attributes: { amount: number }
roles: { editor: [document:read, document:write], auditor: [] }
user_attributes: { level: number }
tenants: { acme: {} }
users:
  alice: { tenants: [acme], roles: [{ role: editor, on: document:readme }] }
  bob: { tenants: [acme] }
  carol: { tenants: [acme] }
  gina: { tenants: [acme], roles: [{ role: owner, on: folder:finance }] }
  heidi: { tenants: [acme], attributes: { level: 4 } }
  ivan: { tenants: [acme], attributes: { level: 3 } }
  judy: { tenants: [acme], attributes: { level: 1 } }
resource_instances:
  document:readme: acme
  document:handbook: { tenant: acme, relations: { parent: folder:finance } }
  folder:finance: acme
  expense:exp-001: { tenant: acme, attributes: { amount: 500 } }
groups:
  team:eng: { tenant: acme, members: [bob], roles: [{ role: editor, on: document:handbook }] }
  team:platform: { tenant: acme, members: [carol], member_of: [team:eng] }
user_sets:
  approvers:
    conditions: { allOf: [{ user.level: { greater-than-equals: 3 } }] }
resource_sets:
  small:
    resource: expense
    conditions: { allOf: [{ resource.amount: { less-than: 1000 } }] }
set_rules:
  - { user_set: approvers, can: approve, resource_set: small }
`;
const ASSERTIONS = `assertions:
  # who may approve the first expense
  - { who_can: approve, on: expense:exp-001, exactly: [heidi, ivan] }
  - { user: alice, can: read, on_type: document, exactly: [readme] }
  - who_can: read
    on: document:handbook
    # the handbook's readers
    exactly:
      - bob
      - carol
      - gina
`;

let server: TestServer;
let dir: string;
const file = () => path.join(dir, 'roster.yaml');
const cli = (args: string[]) =>
  runCli([...args, '--api-url', server.url], { cwd: dir, env: { ROSTER_API_KEY: ENV_KEY } });
const json = async (args: string[]) => {
  const r = await cli([...args, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
const keys = (xs: { key: string }[]) => xs.map((x) => x.key);

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-who-can-'));
  writeFileSync(file(), CONFIG);
  const r = await cli(['apply', '--yes']);
  expect(r.code, r.stderr).toBe(0);
  writeFileSync(file(), CONFIG + ASSERTIONS);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('roster who-can', () => {
  it('lists every user with the way in: a group link and a derivation (text)', async () => {
    const r = await cli(['who-can', 'read', 'document:handbook']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 users can document:read on document:handbook (tenant acme):\n  bob\n');
    expect(r.stdout).toContain(
      '    carol → team:platform → team:eng → editor on document:handbook (editor grants document:read)',
    );
    expect(r.stdout).toMatch(/  gina\n    gina → .*folder:finance.*reader on document:handbook/);
  });

  it.each([
    [
      ['read', 'document:handbook'],
      ['bob', 'carol', 'gina'],
    ],
    [['write', 'document:readme'], ['alice']],
    [
      ['approve', 'expense:exp-001'],
      ['heidi', 'ivan'],
    ],
    [['approve', 'expense:exp-001', '--resource-attr', 'amount=5000'], []],
  ])('%j: the same users offline and --live', async (args, users) => {
    // Offline and --live side by side: two reads of one state.
    const [offline, live] = await Promise.all([json(['who-can', ...args]), json(['who-can', ...args, '--live'])]);
    expect(offline.on).toBe('desired');
    expect(live.on).toBe('live');
    expect(keys(offline.users)).toEqual(users);
    expect(keys(live.users)).toEqual(users);
  });

  it('names the set rule as the way in (ABAC)', async () => {
    const r = await json(['who-can', 'approve', 'expense:exp-001', '--live']);
    expect(r.users[0].ways).toEqual([expect.stringContaining('(rule: approvers can expense:approve on small)')]);
  });

  it('--live at a host that serves no list queries says so, naming the option', async () => {
    const r = await cli(['who-can', 'read', 'document:readme', '--live', '--pdp-url', `${server.url}/elsewhere`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('(--pdp-url) does not serve POST /authorized_users (404)');
  });

  it('refuses an unknown instance, with did-you-mean', async () => {
    const r = await cli(['who-can', 'read', 'document:handbok']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'document:handbok is not a resource instance of the configuration (did you mean "document:handbook"?)',
    );
  });
});

describe('roster what-can', () => {
  it.each([
    [
      ['gina', 'read'],
      ['document:handbook', 'folder:finance'],
    ],
    [['gina', 'read', '--type', 'document'], ['document:handbook']],
    [['carol', 'write'], ['document:handbook']],
    [['heidi', 'approve'], ['expense:exp-001']],
    [['judy', 'approve'], []],
  ])('%j: the same instances offline and --live', async (args, instances) => {
    const [offline, live] = await Promise.all([json(['what-can', ...args]), json(['what-can', ...args, '--live'])]);
    expect(keys(offline.instances)).toEqual(instances);
    expect(keys(live.instances)).toEqual(instances);
  });

  it('text: the instances with the ways in', async () => {
    const r = await cli(['what-can', 'bob', 'write']);
    expect(r.stdout).toBe(
      'bob can write on 1 instance:\n  document:handbook\n    bob → team:eng → editor on document:handbook (editor grants document:write)\n',
    );
  });
});

describe('exact-set assertions', () => {
  it('pass offline and --live when the lists are the sets', async () => {
    const [offline, live] = await Promise.all([cli(['check']), cli(['check', '--live'])]);
    expect(offline.stdout + offline.stderr).toContain('3 assertions on the configuration: 3 passed, 0 failed.');
    expect(offline.code).toBe(0);
    expect(live.stdout + live.stderr).toContain('3 assertions on the live service: 3 passed, 0 failed.');
    expect(live.code).toBe(0);
  });

  it('a failure names the extra users with their way in and the missing ones; --update rewrites the lists keeping comments', async () => {
    const edited = ASSERTIONS.replace('exactly: [heidi, ivan]', 'exactly: [heidi, judy]')
      .replace('exactly: [readme]', 'exactly: [readme, handbook]')
      .replace('      - carol\n', '');
    writeFileSync(file(), CONFIG + edited);
    for (const r of await Promise.all([false, true].map((live) => cli(['check', ...(live ? ['--live'] : [])])))) {
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('FAIL roster.yaml:43: who can approve on expense:exp-001: exactly heidi, judy');
      expect(r.stdout).toContain('  extra: ivan can approve on expense:exp-001, not listed in exactly:');
      expect(r.stdout).toContain('(rule: approvers can expense:approve on small)');
      expect(r.stdout).toContain('  missing: judy cannot approve on expense:exp-001, though listed in exactly:');
      expect(r.stdout).toContain('  missing: alice cannot read on document:handbook, though listed in exactly:');
      expect(r.stdout).toContain('  extra: carol can read on document:handbook, not listed in exactly:');
      expect(r.stdout).toContain('carol → team:platform → team:eng → editor on document:handbook');
    }
    const updated = await cli(['check', '--update']);
    expect(updated.code, updated.stdout).toBe(0);
    expect(updated.stderr).toContain('Updated 3 exactly: lists in');
    expect(readFileSync(file(), 'utf8')).toBe(
      CONFIG +
        edited
          .replace('exactly: [heidi, judy]', 'exactly: [heidi, ivan]')
          .replace('exactly: [readme, handbook]', 'exactly: [readme]')
          .replace('      - gina\n', '      - gina\n      - carol\n'), // kept in their order, the new one after
    );
    expect((await cli(['check', '--live'])).code).toBe(0);
  });

  it('the plan runs them as it runs the other assertions', async () => {
    writeFileSync(file(), CONFIG + ASSERTIONS.replace('exactly: [heidi, ivan]', 'exactly: [heidi]'));
    const r = await cli(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Assertions: 1 of 3 fail on the state after this plan:');
    expect(r.stdout).toContain('  FAIL roster.yaml:43: who can approve on expense:exp-001: exactly heidi');
    expect(r.stdout).toContain('    extra: ivan can approve on expense:exp-001, not listed in exactly:');
  });

  it('--update with --live writes what the decision point answers', async () => {
    writeFileSync(file(), CONFIG + ASSERTIONS.replace('exactly: [heidi, ivan]', 'exactly: []'));
    const r = await cli(['check', '--live', '--update']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(file(), 'utf8')).toBe(CONFIG + ASSERTIONS);
  });
});
