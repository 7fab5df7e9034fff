/**
 * End to end through the CLI against the real server: the plan's access section for a pull request
 * that adds a group link, a pull request that breaks an assertion, `roster check` (offline and --live)
 * and `roster explain`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `
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
  team:platform: { tenant: acme, members: [bob, carol] }
  team:contractors: { tenant: acme, members: [dave], roles: [{ role: viewer, on: document:billing }] }
`;
const ASSERTIONS = `assertions:
  - { user: alice, can: write, on: document:roadmap }
  - { users_in: team:contractors, cannot: write, on: document:billing }
`;

let server: TestServer;
let dir: string;
const file = () => path.join(dir, 'roster.yaml');
const cli = (args: string[]) =>
  runCli([...args, '--api-url', server.url], { cwd: dir, env: { ROSTER_API_KEY: ENV_KEY } });

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-check-'));
  writeFileSync(file(), CONFIG + ASSERTIONS);
  const r = await cli(['apply', '--yes']);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('roster plan: access changes', () => {
  it('a pull request adding a group link shows exactly the users who gain access, and how', async () => {
    writeFileSync(
      file(),
      CONFIG.replace('members: [bob, carol] }', 'members: [bob, carol], member_of: [team:engineering] }') + ASSERTIONS,
    );
    // One plan in three formats, side by side.
    const [text, json, md] = await Promise.all([
      cli(['plan']),
      cli(['plan', '--format', 'json']),
      cli(['plan', '--format', 'markdown', '--access-permissions']),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      [
        '  + link:team:platform@team:engineering',
        '',
        'Access changes: 2 users; 2 gained, 0 lost.',
        '  +2 users gain editor on document:roadmap via team:engineering',
        '      bob, carol',
        '',
        '  By user:',
        '    bob',
        '      + editor on document:roadmap',
        '          bob → team:platform → team:engineering → editor on document:roadmap',
        '    carol',
        '      + editor on document:roadmap',
        '          carol → team:platform → team:engineering → editor on document:roadmap',
      ].join('\n'),
    );
    const access = JSON.parse(json.stdout).access;
    expect(access.summary.map((s: { line: string; users: string[] }) => [s.line, s.users])).toEqual([
      ['+2 users gain editor on document:roadmap via team:engineering', ['bob', 'carol']],
    ]);
    expect(md.stdout).toContain('#### Access changes (permissions)');
    expect(md.stdout).toContain(
      '- `+2 users gain document:write on document:roadmap via team:engineering (editor)`: bob, carol',
    );
  });

  it('a pull request that breaks an assertion fails the plan (exit 1) with the granting path, and saves no plan', async () => {
    writeFileSync(
      file(),
      CONFIG.replace(
        'members: [dave], roles: [{ role: viewer, on: document:billing }]',
        'members: [dave], roles: [{ role: editor, on: document:billing }]',
      ) + ASSERTIONS,
    );
    const r = await cli(['plan', '--out', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      [
        'Assertions: 1 of 2 fail on the state after this plan:',
        '  FAIL roster.yaml:17: users in team:contractors cannot write on document:billing',
        '    dave can write on document:billing: one path grants it.',
        '      dave → team:contractors → editor on document:billing (editor grants document:write)',
      ].join('\n'),
    );
    expect(r.stderr).toContain(
      'error: 1 assertion of the configuration fails on the state after this plan (see above); plan.json was not written',
    );
    expect(existsSync(path.join(dir, 'plan.json'))).toBe(false);
  });
});

describe('roster check and roster explain', () => {
  it('check: offline on the configuration and --live on the service; exit 1 on a failure; junit', async () => {
    writeFileSync(file(), CONFIG + ASSERTIONS + '  - { user: bob, can: write, on: document:roadmap }\n');
    const [offline, live, junit] = await Promise.all([
      cli(['check']),
      cli(['check', '--live', '--verbose']),
      cli(['check', '--format', 'junit']),
    ]);
    expect(offline.code).toBe(1);
    expect(offline.stdout).toBe(
      [
        'FAIL roster.yaml:18: bob can write on document:roadmap',
        '  bob lacks document:write on document:roadmap; it would take a direct editor on document:roadmap; or a tenant-wide editor in acme; or membership of team:engineering (editor).',
        '',
        '3 assertions on the configuration: 2 passed, 1 failed.',
        '',
      ].join('\n'),
    );
    expect(live.code).toBe(1);
    expect(live.stdout).toContain(
      'PASS roster.yaml:17: users in team:contractors cannot write on document:billing (1 member)',
    );
    expect(live.stdout).toContain('3 assertions on the live service: 2 passed, 1 failed.');
    expect(junit.stdout.match(/<testcase /g)).toHaveLength(3);
    writeFileSync(file(), CONFIG + ASSERTIONS);
    expect((await cli(['check', '--live'])).code).toBe(0);
  });

  it('check --format junit on an invalid configuration writes a failed suite to stdout, one testcase per problem (issue #31)', async () => {
    writeFileSync(file(), CONFIG + 'assertions:\n  - { user: zed, can: write, on: document:roadmap }\n');
    const junit = await cli(['check', '--format', 'junit']);
    expect(junit.code).toBe(1);
    expect(junit.stderr).toMatch(/^error: the configuration has 1 error/);
    expect(junit.stdout).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="roster check \(configuration\)" tests="1" failures="1">/,
    );
    expect(junit.stdout).toMatch(
      /<testcase classname="roster\.yaml" name="roster\.yaml:\d+:\d+ assertions\[0\]\.user" file="roster\.yaml" line="\d+">\n {6}<failure message="[^"]*zed[^"]*" type="ConfigurationInvalid">/,
    );
    // Text and JSON keep stdout empty: the error is on stderr.
    expect((await cli(['check'])).stdout).toBe('');
    writeFileSync(file(), CONFIG + ASSERTIONS);
  });

  it('explain: every path, or what is missing; offline and --live', async () => {
    writeFileSync(
      file(),
      CONFIG.replace('members: [bob, carol] }', 'members: [bob, carol], member_of: [team:engineering] }'),
    );
    const [offline, live, ghost] = await Promise.all([
      cli(['explain', 'carol', 'write', 'document:roadmap']),
      cli(['explain', 'carol', 'editor', 'document:roadmap', '--live']),
      cli(['explain', 'zed', 'read', 'document:nope', '--format', 'json']),
    ]);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toBe(
      'carol can document:write on document:roadmap\n1 path:\n  carol → team:platform → team:engineering → editor on document:roadmap (editor grants document:write)\n',
    );
    // "lacks" and "cannot" exit 1, so a script can test the answer.
    expect(live.code).toBe(1);
    expect(live.stdout).toBe(
      'carol lacks role editor on document:roadmap\n  carol lacks role editor on document:roadmap; it would take a direct editor on document:roadmap; or a tenant-wide editor in acme; or membership of team:engineering (editor).\n',
    );
    expect(ghost.code).toBe(1);
    expect(JSON.parse(ghost.stdout)).toMatchObject({
      on: 'desired',
      allowed: false,
      notes: [
        'note: zed is not a user of the configuration.',
        'note: document:nope is not a resource instance or group of the configuration.',
      ],
    });
  });

  it('explain of a denied access lists every way in: resource roles, derivations and the groups holding them (issue 28)', async () => {
    writeFileSync(
      path.join(dir, 'rebac.yaml'),
      `
resources:
  folder:
    actions: [read, write]
    roles: { editor: [read, write] }
  document:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      editor: { permissions: [read, write], granted_to: [{ role: editor, on: folder, via: parent }] }
tenants: { acme: {} }
resource_instances:
  folder:finance: acme
  document:budget: { tenant: acme, relations: { parent: folder:finance } }
users:
  frank: { tenants: [acme] }
groups:
  team:finance: { tenant: acme, roles: [{ role: editor, on: folder:finance }] }
`,
    );
    const [text, json] = await Promise.all([
      cli(['explain', 'frank', 'write', 'document:budget', 'rebac.yaml']),
      cli(['explain', 'frank', 'write', 'document:budget', 'rebac.yaml', '--format', 'json']),
    ]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe(
      'frank cannot document:write on document:budget\n  frank lacks document:write on document:budget; it would take a direct document#editor on document:budget; ' +
        'or a direct folder#editor on folder:finance (document#editor via parent); or membership of team:finance, which holds folder#editor on folder:finance (document#editor via parent).\n',
    );
    expect(JSON.parse(json.stdout).missing.ways).toContainEqual({
      role: 'folder#editor',
      instance: 'folder:finance',
      by: { kind: 'group', group: 'team:finance' },
      steps: [{ relation: 'parent', object: 'document:budget', role: 'document#editor' }],
    });
  });

  it('explain: a misspelt user, role or instance gets "did you mean"', async () => {
    writeFileSync(file(), CONFIG);
    const r = await cli(['explain', 'carl', 'editr', 'document:roadmp', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).notes).toEqual([
      'note: carl is not a user of the configuration (did you mean "carol"?).',
      'note: document:roadmp is not a resource instance or group of the configuration (did you mean "document:roadmap"?).',
      'note: editr is neither a role nor an action on document (did you mean "editor"?).',
    ]);
  });
});
