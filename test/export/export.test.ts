/** `roster export`: the canonical writer (pure) and the command end to end against the real server. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExport } from '../../src/config/export.js';
import { validateSources } from '../../src/config/index.js';
import { emptyLiveState, type LiveState } from '../../src/types/live.js';
import { planChanges } from '../../src/plan/plan.js';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';

function sampleLive(): LiveState {
  const live = emptyLiveState();
  // Maps inserted out of order on purpose (the export sorts them); lists sorted, as readLiveState returns them.
  live.resources.set('team', { key: 'team', name: 'team', actions: [] }); // made by the service for groups
  live.resources.set('document', {
    key: 'document',
    name: 'Document',
    description: 'Docs',
    actions: ['read', 'write'],
  });
  live.roles.set('viewer', { key: 'viewer', name: 'viewer', permissions: ['document:read'] });
  live.roles.set('member', { key: 'member', name: 'Member', description: 'Membership of a group', permissions: [] });
  live.roles.set('editor', { key: 'editor', name: 'Editor', permissions: ['document:read', 'document:write'] });
  live.tenants.set('acme', { key: 'acme', name: 'Acme Inc.', attributes: { region: 'eu' } });
  live.tenants.set('beta', { key: 'beta', name: 'beta', attributes: {} });
  live.users.set('service|ci', { key: 'service|ci', attributes: {}, tenants: ['beta'], roles: [] });
  live.users.set('alice', {
    key: 'alice',
    email: 'alice@acme.test',
    attributes: {},
    tenants: ['acme', 'beta'],
    roles: [
      { role: 'viewer', tenant: 'acme' },
      { role: 'editor', tenant: 'acme', on: 'document:readme' },
    ],
  });
  live.resourceInstances.set('document:readme', {
    resource: 'document',
    key: 'readme',
    tenant: 'acme',
    attributes: {},
  });
  live.resourceInstances.set('document:plans', {
    resource: 'document',
    key: 'plans',
    tenant: 'acme',
    attributes: { secret: true },
  });
  live.groups.set('team:web', {
    type: 'team',
    key: 'web',
    tenant: 'acme',
    members: ['alice'],
    roles: [],
    memberOf: ['team:eng'],
  });
  live.groups.set('team:eng', {
    type: 'team',
    key: 'eng',
    tenant: 'acme',
    members: [],
    roles: [{ role: 'editor', on: 'document:plans' }],
    memberOf: ['team:all'],
  });
  live.groups.set('team:all', { type: 'team', key: 'all', tenant: 'acme', members: [], roles: [], memberOf: [] });
  live.accessRequests.set('default', { key: 'default', name: 'default', reviewerRoles: ['editor'] });
  return live;
}

describe('buildExport', () => {
  it('writes the canonical format: sorted, short forms, group comments, service-made objects left out', () => {
    expect(buildExport(sampleLive(), { source: 'p/e' }))
      .toBe(`# Exported by \`roster export\` from p/e: the live environment as configuration.
# Canonical: sorted and stable, so \`roster export --diff\` shows only real differences.

version: 1
resources:
  document: {name: Document, description: Docs, actions: [read, write]}
roles:
  editor: {name: Editor, permissions: [document:read, document:write]}
  viewer: [document:read]
tenants:
  acme:
    name: Acme Inc.
    attributes:
      region: eu
  beta: {}
users:
  alice: {email: alice@acme.test, tenants: [beta], roles: [{role: editor, on: document:readme}, {role: viewer, tenant: acme}]}
  service|ci: {tenants: [beta]}
resource_instances:
  document:plans:
    tenant: acme
    attributes:
      secret: true
  document:readme: acme
groups:
  # contains team:eng
  team:all:
    tenant: acme
  # in team:all; contains team:web
  team:eng:
    tenant: acme
    roles: [{role: editor, on: document:plans}]
    member_of: [team:all]
  # in team:eng, team:all
  team:web:
    tenant: acme
    members:
      - alice
    member_of: [team:eng]
access_requests:
  default: {reviewer_roles: [editor]}
user_attributes: {}
tenant_attributes: {}
user_sets: {}
resource_sets: {}
set_rules: []
`);
  });

  it('is deterministic, and plans back to no changes with and without --prune', () => {
    const live = sampleLive();
    const text = buildExport(live);
    expect(buildExport(sampleLive())).toBe(text);
    const loaded = validateSources([{ file: 'roster.yaml', text }]);
    expect(loaded.errors).toEqual([]);
    for (const prune of [false, true])
      expect(planChanges(loaded.desired!, live, { project: 'p', environment: 'e', prune }).changes).toEqual([]);
  });

  it('sorts attribute keys at every depth, whatever order the service returned them in (lists keep theirs)', () => {
    const live = sampleLive();
    // As after a PATCH: the service returns carol's keys in another order than alice's.
    live.users.get('alice')!.attributes = { level: 3, department: 'eng', limits: { max: 9, currency: 'EUR' } };
    live.users.set('carol', {
      key: 'carol',
      attributes: { limits: { currency: 'EUR', max: 9 }, department: 'ops', level: 2 },
      tenants: ['acme'],
      roles: [],
    });
    live.resourceInstances.get('document:plans')!.attributes = { tags: ['b', 'a'], owner: 'carol', secret: true };
    live.tenants.get('acme')!.attributes = { tier: 'gold', region: 'eu' };
    const text = buildExport(live);
    // The attribute keys of an entry: the lines below its `attributes:` indented six spaces.
    const keysOf = (entry: string) => {
      const from = text.indexOf('    attributes:\n', text.indexOf(`  ${entry}:\n`)) + '    attributes:\n'.length;
      return text
        .slice(from)
        .split('\n')
        .map((l) => /^ {6}(\w+):/.exec(l)?.[1])
        .filter((k, i, all) => all.slice(0, i + 1).every(Boolean)) as string[];
    };
    expect(keysOf('alice')).toEqual(['department', 'level', 'limits']);
    expect(keysOf('carol')).toEqual(['department', 'level', 'limits']);
    expect(text).toContain('      limits: {currency: EUR, max: 9}\n');
    expect(text).toContain('      tags: [b, a]\n');
    expect(keysOf('document:plans')).toEqual(['owner', 'secret', 'tags']);
    expect(keysOf('acme')).toEqual(['region', 'tier']);
  });

  it('writes a user, instance or tenant with attributes as a block, one line per attribute; without, on one line', () => {
    const live = sampleLive();
    live.users.get('alice')!.attributes = {
      department: 'engineering',
      level: 3,
      cost_centre: 'CC-1042',
      manager: 'bob@acme.test',
    };
    live.resourceInstances.get('document:plans')!.relations = [{ relation: 'parent', subject: 'folder:q3' }];
    live.resources.set('folder', { key: 'folder', name: 'folder', actions: ['read'] });
    live.resources.get('document')!.relations = [{ key: 'parent', name: 'parent', subject: 'folder' }];
    live.resourceInstances.set('folder:q3', { resource: 'folder', key: 'q3', tenant: 'acme', attributes: {} });
    const text = buildExport(live);
    expect(text).toContain(`users:
  alice:
    email: alice@acme.test
    attributes:
      cost_centre: CC-1042
      department: engineering
      level: 3
      manager: bob@acme.test
    tenants: [beta]
    roles: [{role: editor, on: document:readme}, {role: viewer, tenant: acme}]
  service|ci: {tenants: [beta]}
resource_instances:
  document:plans:
    tenant: acme
    attributes:
      secret: true
    relations: {parent: folder:q3}
  document:readme: acme
`);
    // Still the canonical configuration: it validates and plans back to no changes.
    const loaded = validateSources([{ file: 'roster.yaml', text }]);
    expect(loaded.errors).toEqual([]);
    for (const prune of [false, true])
      expect(planChanges(loaded.desired!, live, { project: 'p', environment: 'e', prune }).changes).toEqual([]);
  });

  it("writes the tenant 'default' (which every environment comes with) only when something exported names it", () => {
    const live = sampleLive();
    live.tenants.set('default', { key: 'default', name: 'Default Tenant', attributes: {} });
    expect(buildExport(live, {})).not.toContain('Default Tenant');
    live.users.get('service|ci')!.roles.push({ role: 'viewer', tenant: 'default' });
    expect(buildExport(live, {})).toContain('default: {name: Default Tenant}');
  });

  it('writes a tenant a user is in only through a group: planned from empty, the export creates that presence', () => {
    const live = sampleLive();
    live.users.set('grace', { key: 'grace', email: 'grace@acme.test', attributes: {}, tenants: ['acme'], roles: [] });
    live.groups.get('team:web')!.members.push('grace');
    const text = buildExport(live);
    expect(text).toContain('  grace: {email: grace@acme.test, tenants: [acme]}\n');
    const desired = validateSources([{ file: 'roster.yaml', text }]).desired!;
    expect(desired.users.get('grace')!.tenants).toEqual(['acme']);
    expect(planChanges(desired, live, { project: 'p', environment: 'e', prune: true }).changes).toEqual([]);
  });

  it('keeps a group type with actions and a member role with permissions (someone declared them)', () => {
    const live = sampleLive();
    live.resources.set('team', { key: 'team', name: 'team', actions: ['manage'] });
    live.roles.set('member', { key: 'member', name: 'member', permissions: ['team:manage'] });
    const text = buildExport(live);
    expect(text).toContain('  team: [manage]\n');
    expect(text).toContain('  member: [team:manage]\n');
  });
});

describe('roster export (CLI, real server)', () => {
  let server: TestServer;
  let dir: string;
  const cli = (args: string[]) =>
    runCli([...args, '--api-url', server.url], { cwd: dir, env: { ROSTER_API_KEY: ENV_KEY } });

  beforeAll(async () => {
    server = await startTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-export-'));
    writeFileSync(
      path.join(dir, 'roster.yaml'),
      `
resources: { document: [read, write] }
roles: { editor: [document:read, document:write] }
tenants: { acme: { name: Acme } }
users: { alice: { email: alice@acme.test, tenants: [acme] }, bob: { roles: [{ role: editor, tenant: acme }] } }
resource_instances: { document:readme: acme }
groups:
  team:eng: { tenant: acme, members: [alice], roles: [{ role: editor, on: document:readme }] }
  team:web: { tenant: acme, member_of: [team:eng] }
access_requests: { default: { reviewer_roles: [editor], grant_for: 1h } }
`,
    );
    expect((await cli(['apply', '--yes'])).code).toBe(0);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--out DIR writes roster.yaml; plan on it shows no changes (with --prune too); - writes to stdout', async () => {
    const out = await cli(['export', '--out', 'exported']);
    expect(out.code, out.stderr).toBe(0);
    const text = readFileSync(path.join(dir, 'exported/roster.yaml'), 'utf8');
    expect((await cli(['export', '--out', '-'])).stdout).toBe(text);
    expect((await cli(['export'])).stdout).toBe(text);
    for (const prune of [[], ['--prune']]) {
      const plan = await cli(['plan', 'exported', '--detailed-exitcode', ...prune]);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(plan.stdout).toContain('No changes.');
    }
  });

  it('--diff DIR agrees with plan: grant_for, which the service never holds, is no difference', async () => {
    mkdirSync(path.join(dir, 'declared'), { recursive: true });
    const declared = readFileSync(path.join(dir, 'roster.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'declared/roster.yaml'), declared);
    const plan = await cli(['plan', 'declared', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const same = await cli(['export', '--diff', 'declared']);
    expect([same.code, same.stdout], same.stderr).toEqual([0, '']);
    expect(same.stderr).toContain('declared matches the live environment.');
    writeFileSync(
      path.join(dir, 'declared/roster.yaml'),
      declared.replace('grant_for: 1h', 'grant_for: 1h, name: Requests'),
    );
    const drift = await cli(['export', '--diff', 'declared']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(1);
    expect(drift.stdout).toContain('  ~ access_request:default\n      name: "Requests" → "default"\n');
  });

  it('--diff PATH prints a unified diff and exits 1 when they differ, 0 when not', async () => {
    await cli(['export', '--out', 'exported']);
    const same = await cli(['export', '--diff', 'exported']);
    expect([same.code, same.stdout]).toEqual([0, '']);
    const file = path.join(dir, 'exported/roster.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Acme', 'name: Acme Corp'));
    const diff = await cli(['export', '--diff', file]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(new RegExp(`^=+\n--- ${file}\t\n\\+\\+\\+ ${file} \\(export\\)\t\n@@ `));
    expect(diff.stdout).toContain('-  acme: {name: Acme Corp}\n+  acme: {name: Acme}\n');
  });
});
