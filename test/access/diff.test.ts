import { describe, expect, it } from 'vitest';
import { buildAccessGraph, diffAccess, formatSummaryEntry, type AccessFacts } from '../../src/access/index.js';
import { chain, direct, facts, type FactsInput } from './builders.js';

const roles = { viewer: ['document:read'], editor: { permissions: ['document:write'], extends: ['viewer'] } };
const diff = (a: FactsInput, b: FactsInput, permissions = false) =>
  diffAccess(buildAccessGraph(facts({ roles, ...a })), buildAccessGraph(facts({ roles, ...b })), { permissions });

describe('diffAccess', () => {
  const base: FactsInput = {
    memberships: [
      ['alice', 'team:platform'],
      ['bob', 'team:engineering'],
    ],
    links: [['team:platform', 'team:engineering']],
  };

  it('a new group grant: every transitive member gains, with the path in after', () => {
    const d = diff(base, { ...base, groupGrants: [['team:engineering', 'editor', 'document:roadmap']] });
    expect(d.level).toBe('role');
    expect(d.changes).toEqual([
      {
        sign: '+',
        user: 'alice',
        instance: 'document:roadmap',
        subject: 'editor',
        via: [{ role: 'editor', path: chain('team:platform', 'team:engineering') }],
      },
      {
        sign: '+',
        user: 'bob',
        instance: 'document:roadmap',
        subject: 'editor',
        via: [{ role: 'editor', path: chain('team:engineering') }],
      },
    ]);
    expect(d.summary).toEqual([
      {
        sign: '+',
        subject: 'editor',
        instance: 'document:roadmap',
        viaKind: 'group',
        via: 'team:engineering',
        users: ['alice', 'bob'],
      },
    ]);
    expect(d.summary.map(formatSummaryEntry)).toEqual([
      '+2 users gain editor on document:roadmap via team:engineering',
    ]);
    expect(d.users).toEqual(['alice', 'bob']);
  });

  it('a removed link: members of the child lose, with the path in before', () => {
    const grants: FactsInput['groupGrants'] = [['team:engineering', 'editor', 'document:roadmap']];
    const d = diff({ ...base, groupGrants: grants }, { ...base, links: [], groupGrants: grants });
    expect(d.changes).toEqual([
      {
        sign: '-',
        user: 'alice',
        instance: 'document:roadmap',
        subject: 'editor',
        via: [{ role: 'editor', path: chain('team:platform', 'team:engineering') }],
      },
    ]);
    expect(d.summary.map(formatSummaryEntry)).toEqual([
      '-1 user loses editor on document:roadmap via team:engineering',
    ]);
  });

  it('a role still held through another path is no change', () => {
    const d = diff(
      {
        memberships: [
          ['alice', 'team:a'],
          ['alice', 'team:b'],
        ],
        groupGrants: [
          ['team:a', 'editor', 'document:x'],
          ['team:b', 'editor', 'document:x'],
        ],
      },
      {
        memberships: [['alice', 'team:b']],
        groupGrants: [
          ['team:a', 'editor', 'document:x'],
          ['team:b', 'editor', 'document:x'],
        ],
      },
    );
    expect(d.changes).toEqual([]);
    expect(d.summary).toEqual([]);
  });

  it('gains and losses of one user are sorted by instance, subject, then + before -', () => {
    const d = diff(
      {
        instanceRoles: [
          ['alice', 'viewer', 'document:b'],
          ['alice', 'viewer', 'document:a'],
        ],
      },
      {
        instanceRoles: [
          ['alice', 'editor', 'document:a'],
          ['alice', 'viewer', 'document:c'],
        ],
      },
    );
    expect(d.changes.map((c) => `${c.sign}${c.instance}#${c.subject}`)).toEqual([
      '+document:a#editor',
      '-document:a#viewer',
      '-document:b#viewer',
      '+document:c#viewer',
    ]);
    expect(d.changes[0].via).toEqual([{ role: 'editor', path: direct }]);
  });

  it('the permission view: a role change that keeps read only reports write', () => {
    const d = diff(
      { instanceRoles: [['alice', 'viewer', 'document:a']] },
      { instanceRoles: [['alice', 'editor', 'document:a']] },
      true,
    );
    expect(d.level).toBe('permission');
    expect(d.changes).toEqual([
      {
        sign: '+',
        user: 'alice',
        instance: 'document:a',
        subject: 'document:write',
        via: [{ role: 'editor', path: direct }],
      },
    ]);
    expect(d.summary.map(formatSummaryEntry)).toEqual([
      '+1 user gains document:write on document:a via direct assignment (editor)',
    ]);
  });

  it('the permission view follows changed role definitions', () => {
    const env = (r: AccessFacts['roles']) => ({
      ...facts({ instanceRoles: [['alice', 'viewer', 'document:a']] }),
      roles: r,
    });
    const d = diffAccess(
      buildAccessGraph(env([{ key: 'viewer', permissions: ['document:read'] }])),
      buildAccessGraph(env([{ key: 'viewer', permissions: ['document:read', 'document:comment'] }])),
      { permissions: true },
    );
    expect(d.changes.map((c) => c.subject)).toEqual(['document:comment']);
  });

  it('a moved instance: tenant-wide holders of both tenants are compared', () => {
    const d = diff(
      {
        instances: [['document:a', 't1']],
        tenantRoles: [
          ['alice', 'viewer', 't1'],
          ['bob', 'viewer', 't2'],
        ],
      },
      {
        instances: [['document:a', 't2']],
        tenantRoles: [
          ['alice', 'viewer', 't1'],
          ['bob', 'viewer', 't2'],
        ],
      },
    );
    expect(d.summary.map(formatSummaryEntry)).toEqual([
      '+1 user gains viewer tenant-wide in t2, on document:a',
      '-1 user loses viewer tenant-wide in t1, on document:a',
    ]);
  });

  it('summary: largest group first, each change counted under its best path', () => {
    const d = diff(
      {
        memberships: [
          ['a', 'team:x'],
          ['b', 'team:x'],
          ['c', 'team:y'],
          ['d', 'team:x'],
        ],
      },
      {
        memberships: [
          ['a', 'team:x'],
          ['b', 'team:x'],
          ['c', 'team:y'],
          ['d', 'team:x'],
        ],
        groupGrants: [
          ['team:x', 'viewer', 'document:d'],
          ['team:y', 'viewer', 'document:d'],
        ],
        instanceRoles: [['a', 'viewer', 'document:d']],
      },
    );
    expect(d.summary.map(formatSummaryEntry)).toEqual([
      '+2 users gain viewer on document:d via team:x',
      '+1 user gains viewer on document:d via direct assignment',
      '+1 user gains viewer on document:d via team:y',
    ]);
  });
});

describe('diffAccess with role derivations over tuples', () => {
  const rebac = (
    input: FactsInput,
    tuples: [string, string, string][],
    derivations: AccessFacts['derivations'],
  ): AccessFacts => ({
    ...facts(input),
    relationships: tuples.map(([subject, relation, object]) => ({ subject, relation, object })),
    derivations,
  });
  const parentDerives = [{ role: 'folder#viewer', from: 'folder#viewer', relation: 'parent' }];

  it('a tuple added: the holders of a role on its subject gain what it derives, and nobody else is compared', () => {
    const input: FactsInput = {
      roles: { 'folder#viewer': ['folder:read'] },
      instances: [
        ['folder:a', 't'],
        ['folder:b', 't'],
      ],
      instanceRoles: [
        ['alice', 'folder#viewer', 'folder:a'],
        ['bob', 'folder#viewer', 'folder:b'],
      ],
    };
    const before = buildAccessGraph(rebac(input, [], parentDerives));
    const after = buildAccessGraph(rebac(input, [['folder:a', 'parent', 'folder:b']], parentDerives));
    expect(after.usersReaching(['folder:a'])).toEqual(['alice']);
    const d = diffAccess(before, after);
    expect(d.changes.map((c) => `${c.sign}${c.user} ${c.subject} ${c.instance}`)).toEqual([
      '+alice folder#viewer folder:b',
    ]);
    expect(d.changes[0].via[0].path).toMatchObject({ kind: 'derived', subject: 'folder:a', relation: 'parent' });
  });

  it('a role held tenant-wide that grants nothing on the type is not gained when it is also derived there: it was held already', () => {
    // The same (instance, role) in the same tenant-wide source before and after: only how it is held changes.
    const input: FactsInput = {
      roles: { 'folder#viewer': [] },
      instances: [
        ['folder:a', 't'],
        ['folder:b', 't'],
      ],
      tenantRoles: [['alice', 'folder#viewer', 't']],
    };
    const d = diffAccess(
      buildAccessGraph(rebac(input, [], parentDerives)),
      buildAccessGraph(rebac(input, [['folder:a', 'parent', 'folder:b']], parentDerives)),
    );
    expect(d.changes.map((c) => `${c.sign}${c.user} ${c.subject} ${c.instance}`)).toEqual([]);
  });

  it("a derivation removed: everyone who derived through it loses, a group's members alike", () => {
    const input: FactsInput = {
      roles: { 'folder#viewer': ['folder:read'] },
      instances: [
        ['folder:a', 't'],
        ['folder:b', 't'],
      ],
      memberships: [
        ['carol', 'team:x'],
        ['dan', 'team:x'],
      ],
      groupGrants: [['team:x', 'folder#viewer', 'folder:a']],
    };
    const tuples: [string, string, string][] = [['folder:a', 'parent', 'folder:b']];
    const d = diffAccess(
      buildAccessGraph(rebac(input, tuples, parentDerives)),
      buildAccessGraph(rebac(input, tuples, [])),
    );
    expect(d.changes.map((c) => `${c.sign}${c.user} ${c.subject} ${c.instance}`)).toEqual([
      '-carol folder#viewer folder:b',
      '-dan folder#viewer folder:b',
    ]);
  });
});
