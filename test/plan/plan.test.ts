import { describe, expect, it } from 'vitest';
import { planChanges, type PlanOptions } from '../../src/plan/plan.js';
import type { DesiredState } from '../../src/types/desired.js';
import type { LiveState } from '../../src/types/live.js';
import {
  aGroup,
  aResource,
  aRole,
  aTenant,
  aUser,
  anAccessRequests,
  anInstance,
  asLive,
  brief,
  desired,
  live,
  OPTIONS,
} from './builders.js';

/** A small but complete world: one of every kind, all sections managed. */
const doc = aResource('document', ['read', 'write']);
const viewer = aRole('viewer', ['document:read']);
const editor = aRole('editor', ['document:read', 'document:write']);
const acme = aTenant('acme');
const world = () =>
  desired({
    resources: [doc],
    roles: [viewer, editor],
    tenants: [acme],
    users: [aUser('alice', { tenants: ['acme'], roles: ['viewer@acme'] }), aUser('bob', { tenants: ['acme'] })],
    instances: [anInstance('document:readme', 'acme')],
    groups: [
      aGroup('team:eng', { members: ['alice'], roles: ['editor@document:readme'] }),
      aGroup('team:platform', { members: ['bob'], memberOf: ['team:eng'] }),
    ],
    accessRequests: [anAccessRequests('default', ['editor'])],
  });

interface Row {
  name: string;
  desired: DesiredState;
  live: LiveState;
  options?: Partial<PlanOptions>;
  /** `+id` create, `~id` update, `-id` delete, in plan order. */
  expected: string[];
}

const rows: Row[] = [
  { name: 'nothing declared, nothing live', desired: desired({}), live: live(), expected: [] },
  {
    name: 'from empty: creates in dependency order',
    desired: world(),
    live: live(),
    expected: [
      '+resource:document',
      '+role:editor',
      '+role:viewer',
      '+tenant:acme',
      '+user:alice',
      '+user:bob',
      // every user is added to the tenants they declare, even where a role or membership puts them there
      '+tenant_user:alice@acme',
      '+tenant_user:bob@acme',
      '+instance:document:readme',
      '+group:team:eng',
      '+group:team:platform',
      '+assignment:alice:viewer@acme',
      '+member:alice@team:eng',
      '+member:bob@team:platform',
      '+link:team:platform@team:eng',
      '+grant:team:eng:editor@document:readme',
      '+access_requests:default',
    ],
  },
  { name: 'live equals desired: no changes', desired: world(), live: asLive(world()), expected: [] },
  {
    name: 'live equals desired, with --prune: no changes',
    desired: world(),
    live: asLive(world()),
    options: { prune: true },
    expected: [],
  },
  {
    name: 'a renamed role is one update',
    desired: desired({ roles: [aRole('viewer', ['document:read'], { name: 'Viewer' })] }),
    live: live({ roles: [viewer] }),
    expected: ['~role:viewer'],
  },
  {
    name: 'no description and an empty attribute map equal what the service answers (null, {})',
    desired: desired({ tenants: [aTenant('acme')], users: [aUser('bob')] }),
    live: live({
      tenants: [aTenant('acme', { description: undefined, attributes: {} })],
      users: [aUser('bob', { attributes: {}, email: undefined })],
    }),
    expected: [],
  },
  {
    name: 'live objects absent from the configuration stay without --prune',
    desired: desired({ roles: [viewer], tenants: [] }),
    live: live({ roles: [viewer, editor], tenants: [acme] }),
    expected: [],
  },
  {
    name: '--prune deletes them',
    desired: desired({ roles: [viewer], tenants: [] }),
    live: live({ roles: [viewer, editor], tenants: [acme] }),
    options: { prune: true },
    expected: ['-tenant:acme', '-role:editor'],
  },
  {
    name: '--prune never deletes in a section the configuration does not have',
    desired: desired({ roles: [viewer] }),
    live: live({
      roles: [viewer],
      tenants: [acme],
      users: [aUser('alice', { tenants: ['acme'] })],
      groups: [aGroup('team:eng')],
    }),
    options: { prune: true },
    expected: [],
  },
  {
    name: '--prune deletes in reverse dependency order',
    desired: desired({
      resources: [],
      roles: [],
      tenants: [],
      users: [],
      instances: [],
      groups: [],
      accessRequests: [],
    }),
    live: asLive(world()),
    options: { prune: true },
    expected: [
      '-access_requests:default',
      // group types (`team`) and the `member` role are the service's own, made with the first group
      '-group:team:eng',
      '-group:team:platform',
      '-instance:document:readme',
      '-user:alice',
      '-user:bob',
      '-tenant:acme',
      '-role:editor',
      '-role:viewer',
      '-resource:document',
    ],
  },
  {
    name: 'the service-made member role and group-type resource are never pruned',
    desired: desired({ resources: [doc], roles: [viewer], groups: [aGroup('team:eng')] }),
    live: live({
      resources: [doc, aResource('team', [])],
      roles: [viewer, aRole('member')],
      groups: [aGroup('team:eng')],
    }),
    options: { prune: true },
    expected: [],
  },
  {
    name: "the tenant 'default' every environment comes with is never pruned when undeclared; other tenants are",
    desired: desired({ tenants: [aTenant('acme')] }),
    live: live({ tenants: [aTenant('acme'), aTenant('default', { name: 'Default Tenant' }), aTenant('old')] }),
    options: { prune: true },
    expected: ['-tenant:old'],
  },
  {
    name: "a declared 'default' tenant is managed like any other",
    desired: desired({ tenants: [aTenant('default', { name: 'Main' })] }),
    live: live({ tenants: [aTenant('default', { name: 'Default Tenant' })] }),
    options: { prune: true },
    expected: ['~tenant:default'],
  },
  {
    name: 'the parts a declared object owns follow its lists without --prune',
    desired: desired({
      users: [aUser('alice', { tenants: ['acme'] })],
      groups: [aGroup('team:eng', { members: ['bob'] }), aGroup('team:platform')],
    }),
    live: live({
      users: [aUser('alice', { tenants: ['acme'], roles: ['viewer@acme'] })],
      groups: [
        aGroup('team:eng', { members: ['alice', 'bob'], roles: ['editor@document:readme'] }),
        aGroup('team:platform', { memberOf: ['team:eng'] }),
      ],
    }),
    // alice stays in acme, where her one role goes: she declares it (see below)
    expected: [
      '-link:team:platform@team:eng',
      '-grant:team:eng:editor@document:readme',
      '-member:alice@team:eng',
      '-assignment:alice:viewer@acme',
    ],
  },
  {
    name: 'a role on an instance and one on a group',
    desired: desired({
      users: [aUser('alice', { tenants: ['acme'], roles: ['viewer@document:readme', 'editor@team:eng'] })],
    }),
    live: live({ users: [aUser('alice', { tenants: ['acme'] })] }),
    expected: ['+assignment:alice:editor@team:eng', '+assignment:alice:viewer@document:readme'],
  },
  {
    name: 'an instance moved to another tenant is replaced, and what hung on it is planned again',
    desired: desired({
      instances: [anInstance('document:readme', 'globex')],
      users: [aUser('alice', { roles: [{ role: 'viewer', tenant: 'globex', on: 'document:readme' }] })],
      groups: [aGroup('team:eng', { tenant: 'globex', roles: ['editor@document:readme'] })],
    }),
    live: live({
      instances: [anInstance('document:readme', 'acme')],
      users: [aUser('alice', { roles: [{ role: 'viewer', tenant: 'acme', on: 'document:readme' }] })],
      groups: [aGroup('team:eng', { tenant: 'acme', roles: ['editor@document:readme'] })],
    }),
    expected: [
      // her role puts globex among her tenants: she is added to it
      '+tenant_user:alice@globex',
      '+instance:document:readme',
      '+group:team:eng',
      '+assignment:alice:viewer@document:readme',
      '+grant:team:eng:editor@document:readme',
      // alice was in acme only through her role on the instance
      '-tenant_user:alice@acme',
    ],
  },
  {
    name: 'instance attributes are updated in place',
    desired: desired({ instances: [anInstance('document:readme', 'acme', { level: 2 })] }),
    live: live({ instances: [anInstance('document:readme', 'acme', { level: 1 })] }),
    expected: ['~instance:document:readme'],
  },
  {
    name: 'a user is added to every tenant they declare, even one a role or a group puts them in',
    desired: desired({
      users: [aUser('alice', { tenants: ['acme'], roles: ['viewer@acme'] }), aUser('bob', { tenants: ['acme'] })],
      groups: [aGroup('team:eng', { members: ['bob'] })],
    }),
    live: live(),
    // The service counts a role or a membership only while it lasts: added, they stay when it goes.
    expected: [
      '+user:alice',
      '+user:bob',
      '+tenant_user:alice@acme',
      '+tenant_user:bob@acme',
      '+group:team:eng',
      '+assignment:alice:viewer@acme',
      '+member:bob@team:eng',
    ],
  },
  {
    name: 'leaving a tenant deletes the membership',
    desired: desired({ users: [aUser('bob', { tenants: [] })] }),
    live: live({ users: [aUser('bob', { tenants: ['acme'] })] }),
    expected: ['-tenant_user:bob@acme'],
  },
  {
    name: 'a membership in a group the configuration does not manage keeps the user in its tenant',
    // Removing bob from acme would also remove his membership of team:eng (the service drops every role
    // of a user in a tenant they leave): a deletion in a section the configuration does not have.
    desired: desired({ users: [aUser('bob', { tenants: [] })] }),
    live: live({ users: [aUser('bob')], groups: [aGroup('team:eng', { members: ['bob'] })] }),
    options: { prune: true },
    expected: [],
  },
  {
    name: 'so does one in a live group the configuration does not declare, without --prune',
    desired: desired({ users: [aUser('bob', { tenants: [] })], groups: [] }),
    live: live({ users: [aUser('bob')], groups: [aGroup('team:eng', { members: ['bob'] })] }),
    expected: [],
  },
  {
    name: 'with --prune that group goes, and bob leaves the tenant',
    desired: desired({ users: [aUser('bob', { tenants: [] })], groups: [] }),
    live: live({ users: [aUser('bob')], groups: [aGroup('team:eng', { members: ['bob'] })] }),
    options: { prune: true },
    expected: ['-group:team:eng', '-tenant_user:bob@acme'],
  },
  {
    name: 'a role going never changes the presence of a user in a tenant they declare',
    // alice was added to acme when she was first applied (she declares it): the service keeps her there
    // when her last role goes. The live state reads presence as one fact: a declared tenant the user is
    // in is taken as one they were added to (docs/plan.md, "Tenant presence").
    desired: desired({ users: [aUser('alice', { tenants: ['acme'] })] }),
    live: live({ users: [aUser('alice', { roles: ['viewer@acme'] })] }),
    expected: ['-assignment:alice:viewer@acme'],
  },
  {
    name: 'nor does a membership going (issue #15: pruning a group planned + tenant_user for its member)',
    desired: desired({ users: [aUser('alice', { tenants: ['acme'] })], groups: [aGroup('team:eng')] }),
    live: live({ users: [aUser('alice')], groups: [aGroup('team:eng', { members: ['alice'] })] }),
    expected: ['-member:alice@team:eng'],
  },
  {
    name: 'nor a group pruned with its member in it',
    desired: desired({ users: [aUser('otto', { tenants: ['acme'] })], groups: [] }),
    live: live({ users: [aUser('otto')], groups: [aGroup('team:eng', { members: ['otto'] })] }),
    options: { prune: true },
    expected: ['-group:team:eng'],
  },
  {
    name: 'access-request reviewers are updated',
    desired: desired({ accessRequests: [anAccessRequests('default', ['admin', 'editor'])] }),
    live: live({ accessRequests: [anAccessRequests('default', ['admin'])] }),
    expected: ['~access_requests:default'],
  },
  {
    name: 'a role given a permission on a new resource is updated after the resource is created',
    desired: desired({
      resources: [doc, aResource('invoice')],
      roles: [aRole('viewer', ['document:read', 'invoice:read'])],
    }),
    live: live({ resources: [doc], roles: [viewer] }),
    expected: ['+resource:invoice', '~role:viewer'],
  },
];

describe('planChanges', () => {
  it.each(rows)('$name', ({ desired: d, live: l, options, expected }) => {
    const plan = planChanges(d, l, { ...OPTIONS, ...options });
    expect(brief(plan)).toEqual(expected);
    expect(plan.summary).toEqual({
      create: expected.filter((e) => e.startsWith('+')).length,
      update: expected.filter((e) => e.startsWith('~')).length,
      delete: expected.filter((e) => e.startsWith('-')).length,
    });
  });

  it('an update carries field-level before and after', () => {
    const plan = planChanges(
      desired({
        roles: [aRole('viewer', ['document:read', 'document:write'], { name: 'Viewer', description: 'reads' })],
      }),
      live({ roles: [aRole('viewer', ['document:read'])] }),
      OPTIONS,
    );
    expect(plan.changes).toEqual([
      {
        action: 'update',
        kind: 'role',
        id: 'role:viewer',
        before: { key: 'viewer', name: 'viewer', permissions: ['document:read'] },
        after: {
          key: 'viewer',
          name: 'Viewer',
          description: 'reads',
          permissions: ['document:read', 'document:write'],
        },
        fields: [
          { field: 'name', before: 'viewer', after: 'Viewer' },
          { field: 'description', before: null, after: 'reads' },
          { field: 'permissions', before: ['document:read'], after: ['document:read', 'document:write'] },
        ],
        dependsOn: [],
      },
    ]);
  });

  it('a replaced instance says which field forced it', () => {
    const plan = planChanges(
      desired({ instances: [anInstance('document:readme', 'globex')] }),
      live({ instances: [anInstance('document:readme', 'acme')] }),
      OPTIONS,
    );
    expect(plan.changes[0]).toMatchObject({
      action: 'create',
      replaces: [{ field: 'tenant', before: 'acme', after: 'globex' }],
    });
  });

  it('creates depend on the planned changes they need, and only on those', () => {
    const plan = planChanges(world(), live({ resources: [doc], roles: [viewer, editor] }), OPTIONS);
    const deps = Object.fromEntries(plan.changes.map((c) => [c.id, c.dependsOn]));
    expect(deps).toMatchObject({
      'tenant:acme': [],
      'instance:document:readme': ['tenant:acme'],
      'group:team:eng': ['tenant:acme'],
      'assignment:alice:viewer@acme': ['tenant:acme', 'user:alice'],
      'member:alice@team:eng': ['group:team:eng', 'user:alice'],
      'link:team:platform@team:eng': ['group:team:eng', 'group:team:platform'],
      'grant:team:eng:editor@document:readme': ['group:team:eng', 'instance:document:readme'],
      'access_requests:default': [],
    });
  });

  it('is deterministic: equal inputs give equal plans and checksums, whatever the map order', () => {
    const a = planChanges(world(), live({ tenants: [aTenant('b'), aTenant('a')] }), { ...OPTIONS, prune: true });
    const b = planChanges(world(), live({ tenants: [aTenant('a'), aTenant('b')] }), { ...OPTIONS, prune: true });
    expect(b).toEqual(a);
    expect(a.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(planChanges(world(), live(), OPTIONS).checksum).not.toBe(a.checksum);
  });

  it('the checksum covers the environment and the counts, not only the changes', () => {
    const a = planChanges(world(), live(), OPTIONS);
    expect(planChanges(world(), live(), { project: 'q', environment: 'e' }).checksum).not.toBe(a.checksum);
    expect(planChanges(world(), live({ roles: [aRole('old')] }), OPTIONS)).toMatchObject({ changes: a.changes });
    expect(planChanges(world(), live({ roles: [aRole('old')] }), OPTIONS).checksum).not.toBe(a.checksum);
  });

  it('is pure: the inputs are not changed', () => {
    const d = world();
    const l = asLive(world());
    l.users.get('alice')!.roles = [];
    const before = structuredClone({ d, l });
    planChanges(d, l, { ...OPTIONS, prune: true });
    expect({ d, l }).toEqual(before);
  });

  it('counts the managed live objects for the deletion limit', () => {
    const plan = planChanges(desired({ roles: [], users: [] }), asLive(world()), OPTIONS);
    // 2 roles; 2 users with alice's one role and each user's one tenant (deleting a user removes its
    // presence too: the limit counts it, cascade.ts); tenants and groups are not managed here
    expect(plan.managedLiveCount).toBe(7);
  });
});

describe('planChanges, called again', () => {
  it('sees a desired state changed in place since the last plan (nothing is cached across calls)', () => {
    const d = desired({
      users: [aUser('bob', { tenants: ['acme'] })],
      groups: [aGroup('team:eng', { members: ['bob'] })],
    });
    const l = live({ users: [aUser('bob')], groups: [aGroup('team:eng', { members: ['bob'] })] });
    expect(brief(planChanges(d, l, OPTIONS))).toEqual([]);
    d.groups.get('team:eng')!.members = [];
    expect(brief(planChanges(d, l, OPTIONS))).toEqual(['-member:bob@team:eng']);
  });

  describe('top-level extends', () => {
    const owner = { ...aRole('owner', ['document:write']), extends: ['admin', 'viewer'] };
    const admin = { ...aRole('admin', []), extends: ['viewer'] };

    it('a role comes after the roles it extends that the plan creates, and depends on them', () => {
      const plan = planChanges(
        desired({ resources: [doc], roles: [owner, admin, viewer] }),
        live({ resources: [doc] }),
        OPTIONS,
      );
      const roles = plan.changes.filter((c) => c.kind === 'role');
      expect(roles.map((c) => c.id)).toEqual(['role:viewer', 'role:admin', 'role:owner']);
      expect(roles.find((c) => c.id === 'role:owner')!.dependsOn).toEqual(['role:admin', 'role:viewer']);
    });

    it('written, it is exact; left out, the live extends stays', () => {
      const have = live({ resources: [doc], roles: [viewer, { ...aRole('admin', []), extends: ['viewer'] }] });
      // Left out: no change.
      expect(
        brief(planChanges(desired({ resources: [doc], roles: [viewer, aRole('admin', [])] }), have, OPTIONS)),
      ).toEqual([]);
      // Written as []: cleared.
      const cleared = planChanges(
        desired({ resources: [doc], roles: [viewer, { ...aRole('admin', []), extends: [] }] }),
        have,
        OPTIONS,
      );
      expect(
        cleared.changes.map((c) => [c.id, c.action === 'update' ? c.fields.map((f) => f.field) : c.action]),
      ).toEqual([['role:admin', ['extends']]]);
      // Written and equal: no change.
      expect(
        brief(
          planChanges(
            desired({ resources: [doc], roles: [viewer, { ...aRole('admin', []), extends: ['viewer'] }] }),
            have,
            OPTIONS,
          ),
        ),
      ).toEqual([]);
    });
  });
});
