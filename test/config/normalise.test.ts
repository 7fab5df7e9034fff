import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ROOT } from '../helpers/cli.js';
import { brief, validateTexts } from './helpers.js';

describe('examples', () => {
  it('getting-started is valid and normalises to the expected desired state', async () => {
    const r = await loadConfig([path.join(ROOT, 'examples/getting-started/roster.yaml')]);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    const d = r.desired!;
    expect([...d.sections]).toEqual([
      'resources',
      'roles',
      'tenants',
      'users',
      'resource_instances',
      'groups',
      'access_requests',
    ]);
    expect(d.resources.get('document')).toEqual({
      key: 'document',
      name: 'Document',
      actions: ['read', 'share', 'write'],
    });
    expect(d.roles.get('editor')).toEqual({
      key: 'editor',
      name: 'Editor',
      permissions: ['document:read', 'document:write'],
    });
    expect(d.users.get('alice')).toEqual({
      key: 'alice',
      email: 'alice@acme.test',
      tenants: ['acme'],
      roles: [{ role: 'viewer', tenant: 'acme' }],
    });
    expect(d.resourceInstances.get('document:readme')).toEqual({ resource: 'document', key: 'readme', tenant: 'acme' });
    expect(d.groups.get('team:platform')).toEqual({
      type: 'team',
      key: 'platform',
      tenant: 'acme',
      members: ['bob'],
      roles: [],
      memberOf: ['team:engineering'],
    });
    expect(d.groups.get('team:engineering')?.roles).toEqual([{ role: 'editor', on: 'document:readme' }]);
    expect(d.accessRequests.get('default')).toEqual({
      key: 'default',
      name: 'Default access requests',
      reviewerRoles: ['admin'],
    });
  });

  it('company (a directory of files) is valid', async () => {
    const r = await loadConfig([path.join(ROOT, 'examples/company')]);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    const d = r.desired!;
    expect(d.project).toBe('northwind');
    expect(d.tenants.get('contoso')).toEqual({ key: 'contoso', name: 'Contoso (partner)' });
    expect(d.users.get('frances@northwind.test')?.tenants).toEqual(['northwind-hq', 'northwind-us']);
    expect(d.users.get('grace@northwind.test')?.roles).toEqual([
      { role: 'team-lead', tenant: 'northwind-hq', on: 'team:platform' },
    ]);
    expect(d.groups.get('group:partners')).toMatchObject({ type: 'group', key: 'partners', tenant: 'contoso' });
    expect(d.groups.get('team:security')?.memberOf).toEqual(['team:platform']);
  });

  it('every example names the schema for editors', () => {
    for (const f of ['examples/getting-started/roster.yaml', 'examples/company/30-teams.yaml']) {
      expect(readFileSync(path.join(ROOT, f), 'utf8')).toMatch(
        /^# yaml-language-server: \$schema=\.\.\/\.\.\/schemas\/roster\.schema\.json$/m,
      );
    }
  });
});

describe('short forms and defaults', () => {
  it.each([
    ['users: { alice: {} }', 'users', 'alice', { key: 'alice', tenants: [], roles: [] }],
    ['users: { alice: }', 'users', 'alice', { key: 'alice', tenants: [], roles: [] }],
    ['resources: { doc: [read] }', 'resources', 'doc', { key: 'doc', name: 'doc', actions: ['read'] }],
    ['resources: { doc: }', 'resources', 'doc', { key: 'doc', name: 'doc', actions: [] }],
    ['tenants: { acme: Acme Inc. }', 'tenants', 'acme', { key: 'acme', name: 'Acme Inc.' }],
  ] as const)('%s', (text, section, key, expected) => {
    const r = validateTexts(text);
    expect(r.errors).toEqual([]);
    expect((r.desired![section] as Map<string, unknown>).get(key)).toEqual(expected);
  });

  it('roles: a list of permissions; a role key alone in a user takes the only tenant', () => {
    const r = validateTexts(
      'resources: { doc: [read] }\nroles: { v: [doc:read] }\ntenants: { t: {} }\nusers: { u: { tenants: [t], roles: [v] } }\n',
    );
    expect(r.desired!.roles.get('v')).toEqual({ key: 'v', name: 'v', permissions: ['doc:read'] });
    expect(r.desired!.users.get('u')!.roles).toEqual([{ role: 'v', tenant: 't' }]);
  });

  it('resource instance: the tenant alone; a group without type is of type group', () => {
    const r = validateTexts(
      'resources: { doc: [] }\ntenants: { t: {} }\nusers: { u: {} }\nresource_instances: { doc:a: t }\ngroups: { ops: { tenant: t, members: [u] }, sub: { tenant: t, member_of: [ops], members: [u] } }\n',
    );
    expect(r.errors).toEqual([]);
    expect(r.desired!.resourceInstances.get('doc:a')).toEqual({ resource: 'doc', key: 'a', tenant: 't' });
    expect(r.desired!.groups.get('group:sub')).toMatchObject({ type: 'group', key: 'sub', memberOf: ['group:ops'] });
  });
});

describe('merging files', () => {
  it('names both places of an object declared twice', () => {
    const r = validateTexts('tenants:\n  acme: {}\n', 'tenants:\n  globex: {}\n  acme: { name: Acme }\n');
    expect(r.errors.map(brief)).toEqual(['3:3 tenants.acme: tenant "acme" is declared twice: here and at a.yaml:2:3']);
  });

  it('`ops` and `group:ops` are the same group', () => {
    const r = validateTexts('tenants: { t: {} }\ngroups:\n  ops: { tenant: t }\n  group:ops: { tenant: t }\n');
    expect(r.errors.map((e) => e.message)).toEqual(['group "group:ops" is declared twice: here and at a.yaml:3:3']);
  });

  it('project and environment must agree across files', () => {
    const r = validateTexts('project: a\n', 'project: b\nenvironment: prod\n');
    expect(r.errors.map(brief)).toEqual(['1:10 project: project "b" differs from "a" set at a.yaml:1:1']);
  });

  it('records the sections present, even empty ones', () => {
    expect([...validateTexts('groups: {}\n', 'tenants: {}\n').desired!.sections]).toEqual(['tenants', 'groups']);
  });
});
