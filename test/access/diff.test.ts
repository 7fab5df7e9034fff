import { describe, expect, it } from 'vitest';
import { buildAccessGraph, diffAccess, formatSummaryEntry, type AccessFacts } from '../../src/access/index.js';
import { chain, direct, facts, type FactsInput } from './builders.js';

const roles = { viewer: ['document:read'], editor: { permissions: ['document:write'], extends: ['viewer'] } };
const diff = (a: FactsInput, b: FactsInput, permissions = false) =>
  diffAccess(buildAccessGraph(facts({ roles, ...a })), buildAccessGraph(facts({ roles, ...b })), { permissions });

describe('diffAccess', () => {
  const base: FactsInput = {
    memberships: [['alice', 'team:platform'], ['bob', 'team:engineering']],
    links: [['team:platform', 'team:engineering']],
  };

  it('a new group grant: every transitive member gains, with the path in after', () => {
    const d = diff(base, { ...base, groupGrants: [['team:engineering', 'editor', 'document:roadmap']] });
    expect(d.level).toBe('role');
    expect(d.changes).toEqual([
      { sign: '+', user: 'alice', instance: 'document:roadmap', subject: 'editor', via: [{ role: 'editor', path: chain('team:platform', 'team:engineering') }] },
      { sign: '+', user: 'bob', instance: 'document:roadmap', subject: 'editor', via: [{ role: 'editor', path: chain('team:engineering') }] },
    ]);
    expect(d.summary).toEqual([
      { sign: '+', subject: 'editor', instance: 'document:roadmap', viaKind: 'group', via: 'team:engineering', users: ['alice', 'bob'] },
    ]);
    expect(d.summary.map(formatSummaryEntry)).toEqual(['+2 users gain editor on document:roadmap via team:engineering']);
    expect(d.users).toEqual(['alice', 'bob']);
  });

  it('a removed link: members of the child lose, with the path in before', () => {
    const grants: FactsInput['groupGrants'] = [['team:engineering', 'editor', 'document:roadmap']];
    const d = diff({ ...base, groupGrants: grants }, { ...base, links: [], groupGrants: grants });
    expect(d.changes).toEqual([
      { sign: '-', user: 'alice', instance: 'document:roadmap', subject: 'editor', via: [{ role: 'editor', path: chain('team:platform', 'team:engineering') }] },
    ]);
    expect(d.summary.map(formatSummaryEntry)).toEqual(['-1 user loses editor on document:roadmap via team:engineering']);
  });

  it('a role still held through another path is no change', () => {
    const d = diff(
      { memberships: [['alice', 'team:a'], ['alice', 'team:b']], groupGrants: [['team:a', 'editor', 'document:x'], ['team:b', 'editor', 'document:x']] },
      { memberships: [['alice', 'team:b']], groupGrants: [['team:a', 'editor', 'document:x'], ['team:b', 'editor', 'document:x']] },
    );
    expect(d.changes).toEqual([]);
    expect(d.summary).toEqual([]);
  });

  it('gains and losses of one user are sorted by instance, subject, then + before -', () => {
    const d = diff(
      { instanceRoles: [['alice', 'viewer', 'document:b'], ['alice', 'viewer', 'document:a']] },
      { instanceRoles: [['alice', 'editor', 'document:a'], ['alice', 'viewer', 'document:c']] },
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
      { sign: '+', user: 'alice', instance: 'document:a', subject: 'document:write', via: [{ role: 'editor', path: direct }] },
    ]);
    expect(d.summary.map(formatSummaryEntry)).toEqual(['+1 user gains document:write on document:a via direct assignment (editor)']);
  });

  it('the permission view follows changed role definitions', () => {
    const env = (r: AccessFacts['roles']) => ({ ...facts({ instanceRoles: [['alice', 'viewer', 'document:a']] }), roles: r });
    const d = diffAccess(
      buildAccessGraph(env([{ key: 'viewer', permissions: ['document:read'] }])),
      buildAccessGraph(env([{ key: 'viewer', permissions: ['document:read', 'document:comment'] }])),
      { permissions: true },
    );
    expect(d.changes.map((c) => c.subject)).toEqual(['document:comment']);
  });

  it('a moved instance: tenant-wide holders of both tenants are compared', () => {
    const d = diff(
      { instances: [['document:a', 't1']], tenantRoles: [['alice', 'viewer', 't1'], ['bob', 'viewer', 't2']] },
      { instances: [['document:a', 't2']], tenantRoles: [['alice', 'viewer', 't1'], ['bob', 'viewer', 't2']] },
    );
    expect(d.summary.map(formatSummaryEntry)).toEqual([
      '+1 user gains viewer on document:a via tenant-wide role in t2',
      '-1 user loses viewer on document:a via tenant-wide role in t1',
    ]);
  });

  it('summary: largest group first, each change counted under its best path', () => {
    const d = diff(
      { memberships: [['a', 'team:x'], ['b', 'team:x'], ['c', 'team:y'], ['d', 'team:x']] },
      {
        memberships: [['a', 'team:x'], ['b', 'team:x'], ['c', 'team:y'], ['d', 'team:x']],
        groupGrants: [['team:x', 'viewer', 'document:d'], ['team:y', 'viewer', 'document:d']],
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
