import { describe, expect, it } from 'vitest';
import { buildAccessGraph, formatPath } from '../../src/access/index.js';
import { chain, direct, facts, tenant } from './builders.js';

const roles = {
  viewer: ['document:read'],
  editor: { permissions: ['document:write'], extends: ['viewer'] },
  admin: { permissions: ['document:delete'], extends: ['editor'] },
};

describe('rolesOn', () => {
  const cases: {
    name: string;
    env: Parameters<typeof facts>[0];
    user?: string;
    instance?: string;
    expected: unknown;
  }[] = [
    {
      name: 'direct role on one instance',
      env: { instanceRoles: [['alice', 'editor', 'document:readme']] },
      expected: [{ role: 'editor', paths: [direct] }],
    },
    {
      name: 'tenant-wide role applies to every instance of the tenant',
      env: { instances: [['document:readme', 'acme']], tenantRoles: [['alice', 'viewer', 'acme']] },
      expected: [{ role: 'viewer', paths: [tenant('acme')] }],
    },
    {
      name: 'tenant-wide role of another tenant does not apply',
      env: { instances: [['document:readme', 'acme']], tenantRoles: [['alice', 'viewer', 'other']] },
      expected: [],
    },
    {
      name: 'unknown instance: tenant-wide roles do not apply, grants still do',
      env: {
        tenantRoles: [['alice', 'viewer', 'acme']],
        memberships: [['alice', 'team:a']],
        groupGrants: [['team:a', 'editor', 'document:readme']],
      },
      expected: [{ role: 'editor', paths: [chain('team:a')] }],
    },
    {
      name: 'nested groups: the chain runs from the direct group up to the granting group',
      env: {
        memberships: [['alice', 'team:platform']],
        links: [['team:platform', 'team:engineering']],
        groupGrants: [['team:engineering', 'editor', 'document:readme']],
      },
      expected: [{ role: 'editor', paths: [chain('team:platform', 'team:engineering')] }],
    },
    {
      name: 'diamond: both paths are reported, shortest first then by key',
      env: {
        memberships: [['alice', 'team:a']],
        links: [
          ['team:a', 'team:c'],
          ['team:a', 'team:b'],
          ['team:b', 'team:d'],
          ['team:c', 'team:d'],
        ],
        groupGrants: [['team:d', 'editor', 'document:readme']],
      },
      expected: [{ role: 'editor', paths: [chain('team:a', 'team:b', 'team:d'), chain('team:a', 'team:c', 'team:d')] }],
    },
    {
      name: 'several origins at once: direct, tenant, group',
      env: {
        instances: [['document:readme', 'acme']],
        instanceRoles: [['alice', 'editor', 'document:readme']],
        tenantRoles: [['alice', 'editor', 'acme']],
        memberships: [
          ['alice', 'team:b'],
          ['alice', 'team:a'],
        ],
        links: [['team:a', 'team:b']],
        groupGrants: [['team:b', 'editor', 'document:readme']],
      },
      expected: [{ role: 'editor', paths: [direct, tenant('acme'), chain('team:b'), chain('team:a', 'team:b')] }],
    },
    {
      name: 'precise grants: team A editor on doc1 and team B viewer on doc2 make no A member a viewer of doc1',
      env: {
        memberships: [
          ['alice', 'team:a'],
          ['bob', 'team:b'],
        ],
        groupGrants: [
          ['team:a', 'editor', 'document:doc1'],
          ['team:b', 'viewer', 'document:doc2'],
        ],
      },
      instance: 'document:doc1',
      expected: [{ role: 'editor', paths: [chain('team:a')] }],
    },
    {
      name: 'cycle: members of any group on it are members of all, and the walk ends',
      env: {
        memberships: [['alice', 'team:a']],
        links: [
          ['team:a', 'team:b'],
          ['team:b', 'team:c'],
          ['team:c', 'team:a'],
        ],
        groupGrants: [
          ['team:c', 'viewer', 'document:readme'],
          ['team:a', 'editor', 'document:readme'],
        ],
      },
      expected: [
        { role: 'editor', paths: [chain('team:a')] },
        { role: 'viewer', paths: [chain('team:a', 'team:b', 'team:c')] },
      ],
    },
    {
      name: 'duplicate facts collapse',
      env: {
        instanceRoles: [
          ['alice', 'editor', 'document:readme'],
          ['alice', 'editor', 'document:readme'],
        ],
        memberships: [
          ['alice', 'team:a'],
          ['alice', 'team:a'],
        ],
        groupGrants: [
          ['team:a', 'editor', 'document:readme'],
          ['team:a', 'editor', 'document:readme'],
        ],
      },
      expected: [{ role: 'editor', paths: [direct, chain('team:a')] }],
    },
  ];
  it.each(cases)('$name', ({ env, user, instance, expected }) => {
    const graph = buildAccessGraph(facts(env));
    expect(graph.rolesOn(user ?? 'alice', instance ?? 'document:readme')).toEqual(expected);
  });

  it('follows nesting 20 deep', () => {
    const groups = Array.from({ length: 21 }, (_, i) => `team:g${i}`);
    const graph = buildAccessGraph(
      facts({
        memberships: [['alice', groups[0]]],
        links: groups.slice(1).map((g, i): [string, string] => [groups[i], g]),
        groupGrants: [[groups[20], 'viewer', 'document:readme']],
      }),
    );
    expect(graph.rolesOn('alice', 'document:readme')).toEqual([{ role: 'viewer', paths: [chain(...groups)] }]);
    expect(graph.membersOf(groups[20])).toEqual(['alice']);
  });

  it('keeps at most maxChains alternatives per pair, the shortest ones', () => {
    const env = facts({
      memberships: [['alice', 'team:a']],
      links: [
        ['team:a', 'team:z'],
        ['team:a', 'team:b'],
        ['team:b', 'team:z'],
        ['team:a', 'team:c'],
        ['team:c', 'team:z'],
      ],
      groupGrants: [['team:z', 'viewer', 'document:readme']],
    });
    const [held] = buildAccessGraph(env, { maxChains: 2 }).rolesOn('alice', 'document:readme');
    expect(held.paths).toEqual([chain('team:a', 'team:z'), chain('team:a', 'team:b', 'team:z')]);
  });
});

describe('can', () => {
  const env = facts({
    roles,
    instances: [['document:readme', 'acme']],
    memberships: [
      ['alice', 'team:a'],
      ['bob', 'team:b'],
    ],
    links: [['team:a', 'team:b']],
    groupGrants: [['team:b', 'editor', 'document:readme']],
    instanceRoles: [['carol', 'admin', 'document:readme']],
  });
  const graph = buildAccessGraph(env);
  it.each([
    ['alice', 'write', true],
    ['alice', 'read', true], // editor extends viewer
    ['alice', 'delete', false],
    ['alice', 'document:write', true],
    ['alice', 'folder:write', false], // another type's permission never applies
    ['bob', 'write', true],
    ['carol', 'read', true], // admin → editor → viewer
    ['dave', 'read', false],
  ] as const)('%s may %s: %s', (user, action, allowed) => {
    expect(graph.can(user, action, 'document:readme').allowed).toBe(allowed);
  });

  it('says which role and path allowed it', () => {
    expect(graph.can('alice', 'read', 'document:readme')).toEqual({
      allowed: true,
      via: [{ role: 'editor', path: chain('team:a', 'team:b') }],
    });
  });

  it('tolerates cycles in extends', () => {
    const cyclic = buildAccessGraph(
      facts({
        roles: {
          a: { permissions: ['document:read'], extends: ['b'] },
          b: { permissions: ['document:write'], extends: ['a'] },
        },
        instanceRoles: [['alice', 'a', 'document:readme']],
      }),
    );
    expect(cyclic.can('alice', 'write', 'document:readme').allowed).toBe(true);
    expect(cyclic.permissionsOf('b')).toEqual(['document:read', 'document:write']);
  });
});

describe('usersWith and membersOf', () => {
  const graph = buildAccessGraph(
    facts({
      roles,
      instances: [['document:readme', 'acme']],
      tenantRoles: [['tina', 'viewer', 'acme']],
      instanceRoles: [['carol', 'admin', 'document:readme']],
      memberships: [
        ['alice', 'team:a'],
        ['bob', 'team:b'],
        ['erin', 'team:c'],
      ],
      links: [['team:a', 'team:b']],
      groupGrants: [
        ['team:b', 'editor', 'document:readme'],
        ['team:c', 'editor', 'document:other'],
      ],
    }),
  );
  it.each([
    ['editor', ['alice', 'bob']],
    ['viewer', ['tina']],
    ['document:read', ['alice', 'bob', 'carol', 'tina']],
    ['document:delete', ['carol']],
    ['folder:read', []],
  ])('%s on document:readme', (subject, users) => {
    expect(graph.usersWith(subject, 'document:readme')).toEqual(users);
  });
  it('membersOf is transitive', () => {
    expect(graph.membersOf('team:b')).toEqual(['alice', 'bob']);
    expect(graph.membersOf('team:a')).toEqual(['alice']);
    expect(graph.membersOf('team:none')).toEqual([]);
  });
});

describe('effectiveGrants', () => {
  it('lists every (user, instance, role) once, sorted, tenant-wide roles expanded to listed instances', () => {
    const graph = buildAccessGraph(
      facts({
        instances: [
          ['document:b', 't'],
          ['document:a', 't'],
        ],
        tenantRoles: [['zoe', 'viewer', 't']],
        memberships: [['amy', 'team:x']],
        groupGrants: [['team:x', 'editor', 'document:unlisted']],
      }),
    );
    expect([...graph.effectiveGrants()]).toEqual([
      { user: 'amy', instance: 'document:unlisted', role: 'editor', paths: [chain('team:x')] },
      { user: 'zoe', instance: 'document:a', role: 'viewer', paths: [tenant('t')] },
      { user: 'zoe', instance: 'document:b', role: 'viewer', paths: [tenant('t')] },
    ]);
  });
});

describe('formatPath', () => {
  it.each([
    [
      chain('team:platform', 'team:engineering'),
      'alice → team:platform → team:engineering → editor on document:readme',
    ],
    [direct, 'alice → editor on document:readme (direct)'],
    [tenant('acme'), 'alice → editor on document:readme (tenant-wide in acme)'],
  ] as const)('%j', (path, text) => {
    expect(formatPath('alice', path, 'editor', 'document:readme')).toBe(text);
  });
});
