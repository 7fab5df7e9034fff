import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { assertSafe, deletesOf } from '../../src/plan/safety.js';
import { renderPlanMarkdown, renderPlanText } from '../../src/plan/index.js';
import type { DesiredState, Section } from '../../src/types/desired.js';
import type { DeleteChange } from '../../src/plan/change.js';
import type { Plan } from '../../src/plan/types.js';
import { UnsafePlanError } from '../../src/errors.js';
import {
  aGroup,
  aResource,
  aRole,
  aTenant,
  aUser,
  anInstance,
  asLive,
  brief,
  desired,
  live,
  OPTIONS,
  type StateInput,
} from './builders.js';

/**
 * Issue 21, the pure parts: undeclared live objects are always listed (with what they grant), the
 * configuration's `authoritative:` deletes them without --prune, and a deletion lists (and the limit
 * counts) what goes with it.
 */

/** A small company: a tenant-wide admin, nested groups, roles on instances. */
const COMPANY: StateInput = {
  resources: [aResource('document', ['read', 'share', 'write'])],
  roles: [
    aRole('admin', ['document:read', 'document:share', 'document:write']),
    aRole('editor', ['document:read', 'document:write']),
    aRole('viewer', ['document:read']),
  ],
  tenants: [aTenant('acme')],
  users: [
    aUser('joan', { tenants: ['acme'], roles: ['admin@acme'] }),
    aUser('ann', { tenants: ['acme'] }),
    aUser('bob', { tenants: ['acme'] }),
    aUser('cy', { tenants: ['acme'], roles: ['viewer@document:budget'] }),
  ],
  instances: [anInstance('document:roadmap', 'acme'), anInstance('document:budget', 'acme')],
  groups: [
    aGroup('team:company', { roles: ['viewer@document:roadmap'] }),
    aGroup('team:product', { members: ['ann', 'bob'], memberOf: ['team:company'], roles: ['editor@document:roadmap'] }),
    aGroup('team:finance', { members: ['ann', 'cy'], memberOf: ['team:company'], roles: ['editor@document:budget'] }),
  ],
};

const LIVE = live(COMPANY);

/** The company's configuration, edited, with `authoritative:` as given. */
function config(edit: (s: StateInput) => StateInput, authoritative?: boolean | Section[]): DesiredState {
  const d = desired(edit(structuredClone(COMPANY)));
  return authoritative === undefined ? d : { ...d, authoritative };
}

const without = <T extends { key: string }>(xs: T[] | undefined, key: string) =>
  (xs ?? []).filter((x) => x.key !== key);
const noJoan = (s: StateInput) => ({ ...s, users: without(s.users, 'joan') });
const noFinance = (s: StateInput) => ({ ...s, groups: (s.groups ?? []).filter((g) => g.key !== 'finance') });
const renamed = (s: StateInput) => ({
  ...s,
  groups: (s.groups ?? []).map((g) => (g.key === 'product' ? { ...g, key: 'product-mgmt' } : g)),
});

const deletion = (plan: Plan, id: string) =>
  plan.changes.find((c): c is DeleteChange => c.action === 'delete' && c.id === id);

describe('undeclared live objects and authoritative sections', () => {
  it.each([
    // scenario, configuration, authoritative, prune, expected changes, undeclared (id fate)
    {
      scenario: 'joan removed: kept, listed',
      edit: noJoan,
      authoritative: undefined,
      prune: false,
      changes: [],
      undeclared: ['user:joan kept'],
    },
    {
      scenario: 'joan removed, users authoritative: deleted',
      edit: noJoan,
      authoritative: ['users'] as Section[],
      prune: false,
      changes: ['-user:joan'],
      undeclared: ['user:joan deleted'],
    },
    {
      scenario: 'joan removed, authoritative: true',
      edit: noJoan,
      authoritative: true,
      prune: false,
      changes: ['-user:joan'],
      undeclared: ['user:joan deleted'],
    },
    {
      scenario: 'joan removed, only groups authoritative: kept',
      edit: noJoan,
      authoritative: ['groups'] as Section[],
      prune: false,
      changes: [],
      undeclared: ['user:joan kept'],
    },
    {
      scenario: 'joan removed, --prune',
      edit: noJoan,
      authoritative: undefined,
      prune: true,
      changes: ['-user:joan'],
      undeclared: ['user:joan deleted'],
    },
    {
      scenario: 'authoritative: false is no deletion',
      edit: noJoan,
      authoritative: false,
      prune: false,
      changes: [],
      undeclared: ['user:joan kept'],
    },
    {
      scenario: 'renamed group: the old one listed',
      edit: renamed,
      authoritative: undefined,
      prune: false,
      changes: [
        '+group:team:product-mgmt',
        '+member:ann@team:product-mgmt',
        '+member:bob@team:product-mgmt',
        '+link:team:product-mgmt@team:company',
        '+grant:team:product-mgmt:editor@document:roadmap',
      ],
      undeclared: ['group:team:product kept'],
    },
    {
      scenario: 'renamed group, authoritative: the old one deleted',
      edit: renamed,
      authoritative: true,
      prune: false,
      changes: [
        '+group:team:product-mgmt',
        '+member:ann@team:product-mgmt',
        '+member:bob@team:product-mgmt',
        '+link:team:product-mgmt@team:company',
        '+grant:team:product-mgmt:editor@document:roadmap',
        '-group:team:product',
      ],
      undeclared: ['group:team:product deleted'],
    },
  ])('$scenario', ({ edit, authoritative, prune, changes, undeclared }) => {
    const plan = planChanges(config(edit, authoritative), LIVE, { ...OPTIONS, prune });
    expect(brief(plan)).toEqual(changes);
    expect(plan.undeclared?.objects.map((o) => `${o.id} ${o.fate}`)).toEqual(undeclared);
  });

  it('lists what an undeclared object still grants', () => {
    const plan = planChanges(config(noJoan), LIVE, OPTIONS);
    expect(plan.undeclared).toEqual({
      total: 1,
      deleted: 0,
      omitted: 0,
      objects: [
        {
          id: 'user:joan',
          kind: 'user',
          fate: 'kept',
          access: ['admin on 2 instances (document:budget, document:roadmap) (tenant-wide in acme)'],
          omittedAccess: 0,
        },
      ],
    });
    const group = planChanges(config(noFinance), LIVE, OPTIONS).undeclared?.objects[0];
    // Only what the group grants: joan's tenant-wide admin grants nothing on teams (issue 28).
    expect(group?.access).toEqual([
      'editor on document:budget to 2 users (ann, cy)',
      'viewer on document:roadmap to 2 users (ann, cy)',
    ]);
  });

  it.each([
    {
      kind: 'a role',
      edit: (s: StateInput) => ({ ...s, roles: without(s.roles, 'viewer') }),
      id: 'role:viewer',
      access: ['held by 3 users (ann, bob, cy) on 2 instances', 'permits document:read'],
    },
    {
      kind: 'an instance',
      edit: (s: StateInput) => ({ ...s, instances: (s.instances ?? []).filter((i) => i.key !== 'budget') }),
      id: 'instance:document:budget',
      access: ['admin on it to 1 user (joan)', 'editor on it to 2 users (ann, cy)', 'viewer on it to 1 user (cy)'],
    },
    {
      kind: 'a tenant',
      edit: (s: StateInput) => ({ ...s, tenants: [] }),
      id: 'tenant:acme',
      access: ['4 users (ann, bob, cy, …) in it; 5 instances and groups', 'admin tenant-wide to 1 user (joan)'],
    },
    {
      kind: 'a resource',
      edit: (s: StateInput) => ({ ...s, resources: [] }),
      id: 'resource:document',
      access: ['2 instances of this type', 'its actions are permitted by roles admin, editor, viewer'],
    },
  ])('$kind says what it grants', ({ edit, id, access }) => {
    const object = planChanges(config(edit), LIVE, OPTIONS).undeclared?.objects.find((o) => o.id === id);
    expect(object?.access).toEqual(access);
  });

  it('says so in text and Markdown, where "No changes" no longer claims the environment matches', () => {
    const plan = planChanges(config(noJoan), LIVE, OPTIONS);
    const text = renderPlanText(plan);
    expect(text).toContain('No changes.\n');
    expect(text).not.toContain('matches the configuration');
    expect(text).toContain(
      'Live, not in the configuration: 1 object; 1 kept, with the access they grant (--prune, or `authoritative:` in the configuration, deletes them)\n  ? user:joan (kept)\n      admin on 2 instances (document:budget, document:roadmap) (tenant-wide in acme)\n',
    );
    expect(renderPlanMarkdown(plan)).toContain(
      '| ? | `user:joan` | kept | admin on 2 instances (document:budget, document:roadmap) (tenant-wide in acme) |',
    );
  });

  it('a configuration that declares everything lists nothing, and the service-made objects are never listed', () => {
    const withService = live({
      ...COMPANY,
      roles: [...COMPANY.roles!, aRole('member')],
      tenants: [...COMPANY.tenants!, aTenant('default')],
      resources: [...COMPANY.resources!, aResource('team', [])],
    });
    const plan = planChanges(
      config((s) => s, true),
      withService,
      OPTIONS,
    );
    expect(brief(plan)).toEqual([]);
    expect(plan.undeclared).toBeUndefined();
  });

  it('authoritative is in the plan and its checksum', () => {
    const a = planChanges(config(noJoan, ['users']), LIVE, OPTIONS);
    const b = planChanges(config(noJoan), LIVE, { ...OPTIONS, prune: true });
    expect(a.authoritative).toEqual(['users']);
    expect(b.authoritative).toBeUndefined();
    expect(brief(a)).toEqual(brief(b));
    expect(a.checksum).not.toBe(b.checksum);
    expect(renderPlanText(a).split('\n')[0]).toBe('Plan for p/e (authoritative: users)');
  });
});

describe('cascades', () => {
  it.each([
    {
      scenario: 'a group',
      edit: noFinance,
      id: 'group:team:finance',
      cascade: [
        'grant:team:finance:editor@document:budget',
        'link:team:finance@team:company',
        'member:ann@team:finance',
        'member:cy@team:finance',
      ],
    },
    {
      scenario: 'a user',
      edit: (s: StateInput) => ({
        ...s,
        users: without(s.users, 'cy'),
        groups: (s.groups ?? []).map((g) => ({ ...g, members: g.members.filter((m) => m !== 'cy') })),
      }),
      id: 'user:cy',
      cascade: ['assignment:cy:viewer@document:budget', 'tenant_user:cy@acme'],
    },
    {
      scenario: 'a parent group: its grants, links from its children',
      edit: (s: StateInput) => ({
        ...s,
        groups: (s.groups ?? []).filter((g) => g.key !== 'company').map((g) => ({ ...g, memberOf: [] })),
      }),
      id: 'group:team:company',
      cascade: ['grant:team:company:viewer@document:roadmap'],
    },
    {
      scenario: 'an instance: the roles on it',
      edit: (s: StateInput) => ({
        ...s,
        instances: (s.instances ?? []).filter((i) => i.key !== 'budget'),
        users: (s.users ?? []).map((u) => ({ ...u, roles: u.roles.filter((r) => r.on !== 'document:budget') })),
        groups: (s.groups ?? []).map((g) => ({ ...g, roles: g.roles.filter((r) => r.on !== 'document:budget') })),
      }),
      id: 'instance:document:budget',
      cascade: [],
    },
  ])('$scenario', ({ edit, id, cascade }) => {
    const plan = planChanges(config(edit, true), LIVE, OPTIONS);
    expect(deletion(plan, id)?.cascade ?? []).toEqual(cascade);
  });

  it('a tenant takes its instances, groups, presence and assignments, each listed once', () => {
    const plan = planChanges(desired({ tenants: [], resources: COMPANY.resources, roles: COMPANY.roles }), LIVE, {
      ...OPTIONS,
      prune: true,
    });
    const cascade = deletion(plan, 'tenant:acme')?.cascade ?? [];
    expect(cascade).toContain('instance:document:budget');
    expect(cascade).toContain('group:team:product');
    expect(cascade).toContain('member:ann@team:product');
    expect(cascade).toContain('tenant_user:joan@acme');
    expect(cascade).toContain('assignment:joan:admin@acme');
    expect(new Set(cascade).size).toBe(cascade.length);
  });

  it('what the plan deletes itself is not listed again, nor what an earlier deletion took', () => {
    // The group's member also goes as a user: the membership is listed under the group (deleted first).
    const edit = (s: StateInput) => ({ ...noFinance(s), users: without(s.users, 'cy') });
    const plan = planChanges(config(edit, true), LIVE, OPTIONS);
    const all = plan.changes.flatMap((c) => (c.action === 'delete' ? [c.id, ...(c.cascade ?? [])] : []));
    expect(new Set(all).size).toBe(all.length);
    expect(deletion(plan, 'group:team:finance')?.cascade).toContain('member:cy@team:finance');
    expect(deletion(plan, 'user:cy')?.cascade).toEqual(['assignment:cy:viewer@document:budget', 'tenant_user:cy@acme']);
  });

  it('the delete limit counts the cascade, and says so', () => {
    const plan = planChanges(config(noFinance, ['groups']), LIVE, OPTIONS);
    expect(deletesOf(plan)).toEqual({ deletes: 1, cascaded: 4, total: 5 });
    expect(() => assertSafe(plan, { maxDeletes: 4 })).toThrow(UnsafePlanError);
    expect(() => assertSafe(plan, { maxDeletes: 4 })).toThrow(
      'the plan deletes 1 object and 4 that go with them (5 in all), more than the limit of 4; review it, then raise the limit with --max-deletes 5 if it is intended',
    );
    expect(() => assertSafe(plan, { maxDeletes: 5 })).not.toThrow();
    expect(renderPlanText(plan)).toContain(
      '  - group:team:finance\n      with it: 2 memberships, 1 group grant, 1 group link\n        grant:team:finance:editor@document:budget',
    );
    expect(renderPlanText(plan)).toContain('0 to create, 0 to update, 1 to delete (and 4 that go with them).');
    expect(renderPlanMarkdown(plan)).toContain(
      '> ⚠️ Applying this plan deletes 1 object and 4 that go with them (5 in all); within the default delete limit of',
    );
    expect(renderPlanMarkdown(plan)).toContain(
      '| - | `group:team:finance` | with it: 2 memberships, 1 group grant, 1 group link |',
    );
  });

  it('a plan read back as live after a complete apply deletes nothing and lists nothing', () => {
    const d = config((s) => s, true);
    const plan = planChanges(d, asLive(d), OPTIONS);
    expect(plan.changes).toEqual([]);
    expect(plan.undeclared).toBeUndefined();
  });
});
