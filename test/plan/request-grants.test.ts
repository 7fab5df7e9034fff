import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planChanges } from '../../src/plan/plan.js';
import { classifyRequestGrants } from '../../src/plan/request-grants.js';
import { type RequestGrant } from '../../src/types/live.js';
import { planAdoption } from '../../src/plan/adopt.js';
import { renderPlanMarkdown, renderPlanText } from '../../src/plan/index.js';
import { checksumPlan } from '../../src/plan/checksum.js';
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
  brief,
  desired,
  live,
  OPTIONS,
} from './builders.js';

/**
 * Grants of approved access requests in the planner, table-driven on small worlds. The clock is an
 * input: NOW, and approvals a given number of hours before it.
 */
const NOW = new Date('2030-06-01T12:00:00.000Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000).toISOString();
const aGrant = (
  user: string,
  role: string,
  where: string,
  more: { config?: string; ago?: number; id?: string; reviewer?: string | null } = {},
): RequestGrant => ({
  user,
  role,
  tenant: where.includes(':') ? 'acme' : where,
  ...(where.includes(':') ? { on: where } : {}),
  request: {
    id: more.id ?? `r-${user}-${role}`,
    config: more.config ?? 'default',
    reviewer: more.reviewer === undefined ? 'bob' : more.reviewer,
    approvedAt: hoursAgo(more.ago ?? 1),
  },
});

const base = {
  resources: [aResource('repo', ['read', 'write'])],
  roles: [aRole('reader', ['repo:read']), aRole('maintainer', ['repo:write']), aRole('admin')],
  tenants: [aTenant('acme')],
  instances: [anInstance('repo:web', 'acme'), anInstance('repo:api', 'acme')],
  accessRequests: [
    anAccessRequests('default', ['admin']),
    { ...anAccessRequests('oncall', ['admin']), grantFor: '12h' },
  ],
};
const mindy = (...roles: string[]) => aUser('mindy', { tenants: ['acme'], roles: ['reader@repo:web', ...roles] });
/** The configuration declares mindy with `reader@repo:web`; live she also holds `live`. */
const world = (
  liveRoles: string[],
  more: {
    users?: ReturnType<typeof aUser>[];
    liveUsers?: ReturnType<typeof aUser>[];
    sections?: DesiredState['sections'];
  } = {},
) => {
  const d = desired({ ...base, users: [mindy(), ...(more.users ?? [])] });
  if (more.sections) d.sections = more.sections;
  const l = live({ ...base, users: [mindy(...liveRoles), ...(more.liveUsers ?? [])] });
  return { d, l };
};
const plan = (d: DesiredState, l: LiveState, grants: RequestGrant[], prune = false) =>
  planChanges(d, l, { ...OPTIONS, prune, requestGrants: grants, now: NOW });

describe('held grants', () => {
  it.each<{ name: string; live: string[]; grants: RequestGrant[]; prune?: boolean; changes: string[]; held: string[] }>(
    [
      {
        name: 'without requests, an undeclared role is deleted (as before)',
        live: ['maintainer@repo:web'],
        grants: [],
        changes: ['-assignment:mindy:maintainer@repo:web'],
        held: [],
      },
      {
        name: 'an approved request holds it',
        live: ['maintainer@repo:web'],
        grants: [aGrant('mindy', 'maintainer', 'repo:web')],
        changes: [],
        held: ['assignment:mindy:maintainer@repo:web'],
      },
      {
        name: 'with --prune too',
        live: ['maintainer@repo:web'],
        grants: [aGrant('mindy', 'maintainer', 'repo:web')],
        prune: true,
        changes: [],
        held: ['assignment:mindy:maintainer@repo:web'],
      },
      {
        name: 'tenant-wide grants match tenant-wide',
        live: ['admin@acme'],
        grants: [aGrant('mindy', 'admin', 'acme')],
        changes: [],
        held: ['assignment:mindy:admin@acme'],
      },
      {
        name: 'another instance, role or user does not match',
        live: ['maintainer@repo:web'],
        grants: [
          aGrant('mindy', 'maintainer', 'repo:api'),
          aGrant('mindy', 'reader', 'repo:api'),
          aGrant('bob', 'maintainer', 'repo:web'),
          aGrant('mindy', 'maintainer', 'acme'),
        ],
        changes: ['-assignment:mindy:maintainer@repo:web'],
        held: [],
      },
      {
        name: 'a grant removed since (not live) is not created again',
        live: [],
        grants: [aGrant('mindy', 'maintainer', 'repo:web')],
        changes: [],
        held: [],
      },
      {
        name: "a declared grant is the configuration's, not held",
        live: ['reader@repo:web'],
        grants: [aGrant('mindy', 'reader', 'repo:web')],
        changes: [],
        held: [],
      },
    ],
  )('$name', ({ live: roles, grants, prune, changes, held }) => {
    const { d, l } = world(roles);
    const p = plan(d, l, grants, prune);
    expect(brief(p)).toEqual(changes);
    expect(p.held?.grants.map((g) => g.id) ?? []).toEqual(held);
  });

  it('lists the request, reviewer and approval date; the newest of several approvals', () => {
    const { d, l } = world(['maintainer@repo:web']);
    const p = plan(d, l, [
      aGrant('mindy', 'maintainer', 'repo:web', { id: 'old', ago: 30 }),
      aGrant('mindy', 'maintainer', 'repo:web', { id: 'new', ago: 2, reviewer: 'carol' }),
    ]);
    expect(p.held).toEqual({
      grants: [
        {
          id: 'assignment:mindy:maintainer@repo:web',
          kind: 'assignment',
          user: 'mindy',
          role: 'maintainer',
          tenant: 'acme',
          on: 'repo:web',
          request: { id: 'new', config: 'default', reviewer: 'carol', approvedAt: hoursAgo(2) },
        },
      ],
      kept: [],
    });
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0 });
  });

  it('with --prune, what the grant hangs on is not deleted either, and says why', () => {
    const d = desired({ resources: [], roles: [], tenants: [], users: [], instances: [], accessRequests: [] });
    const l = live({
      ...base,
      users: [
        aUser('ursula', { tenants: ['acme'], roles: ['maintainer@repo:web'] }),
        aUser('victor', { tenants: ['acme'] }),
      ],
    });
    const p = plan(d, l, [aGrant('ursula', 'maintainer', 'repo:web')], true);
    const id = 'assignment:ursula:maintainer@repo:web';
    // Everything else is pruned: victor, the other instance, the roles nothing holds through a request.
    expect(brief(p)).toEqual([
      '-access_requests:default',
      '-access_requests:oncall',
      '-instance:repo:api',
      '-user:victor',
      '-role:admin',
      '-role:reader',
    ]);
    expect(p.held?.kept).toEqual(
      ['instance:repo:web', 'resource:repo', 'role:maintainer', 'tenant:acme', 'user:ursula'].map((k) => ({
        id: k,
        because: [id],
      })),
    );
  });

  it('a user leaving a tenant would drop the grant: that deletion is withheld too', () => {
    // mindy is declared in no tenant but through her role; her request grant is in globex.
    const d = desired({ ...base, tenants: [aTenant('acme'), aTenant('globex')], users: [mindy()] });
    const l = live({
      ...base,
      tenants: [aTenant('acme'), aTenant('globex')],
      users: [aUser('mindy', { tenants: ['acme', 'globex'], roles: ['reader@repo:web', 'admin@globex'] })],
    });
    const p = plan(d, l, [aGrant('mindy', 'admin', 'globex')]);
    expect(brief(p)).toEqual([]);
    expect(p.held?.kept).toEqual([{ id: 'tenant_user:mindy@globex', because: ['assignment:mindy:admin@globex'] }]);
  });

  it('a configuration without a users section holds every request grant, and never plans users', () => {
    const { d, l } = world(['maintainer@repo:web'], { sections: new Set(['roles', 'tenants']) });
    const p = plan(d, l, [aGrant('mindy', 'maintainer', 'repo:web')], true);
    expect(brief(p)).toEqual([]);
    expect(p.held?.grants.map((g) => g.id)).toEqual(['assignment:mindy:maintainer@repo:web']);
  });
});

describe('group memberships (a request for the member role on a group)', () => {
  const groups = (members: string[]) => [aGroup('team:eng', { members })];
  const membership = (more: { config?: string; ago?: number } = {}) => aGrant('mindy', 'member', 'team:eng', more);
  const worldWith = (declared: string[], liveMembers: string[]) => ({
    d: desired({ ...base, users: [mindy()], groups: groups(declared) }),
    l: live({ ...base, users: [mindy()], groups: groups(liveMembers) }),
  });

  it.each<{
    name: string;
    declared: string[];
    live: string[];
    grants: RequestGrant[];
    changes: string[];
    held: string[];
  }>([
    {
      name: 'without a request, an undeclared member is removed',
      declared: [],
      live: ['mindy'],
      grants: [],
      changes: ['-member:mindy@team:eng'],
      held: [],
    },
    {
      name: 'an approved request holds the membership',
      declared: [],
      live: ['mindy'],
      grants: [membership()],
      changes: [],
      held: ['member:mindy@team:eng'],
    },
    {
      name: "a declared member is the configuration's",
      declared: ['mindy'],
      live: ['mindy'],
      grants: [membership()],
      changes: [],
      held: [],
    },
    {
      name: 'expired: removed',
      declared: [],
      live: ['mindy'],
      grants: [membership({ config: 'oncall', ago: 13 })],
      changes: ['-member:mindy@team:eng'],
      held: [],
    },
  ])('$name', ({ declared, live: members, grants, changes, held }) => {
    const { d, l } = worldWith(declared, members);
    const p = plan(d, l, grants, true);
    expect(brief(p)).toEqual(changes);
    expect(p.held?.grants.map((g) => `${g.kind} ${g.id}`) ?? []).toEqual(held.map((h) => `member ${h}`));
  });

  it('the group is not pruned under a held membership; adopt reports it rather than editing members', () => {
    const d = desired({ ...base, users: [mindy()], groups: [] });
    const l = live({ ...base, users: [mindy()], groups: groups(['mindy']) });
    const p = plan(d, l, [membership()], true);
    expect(brief(p)).toEqual([]);
    expect(p.held?.kept).toEqual([{ id: 'group:team:eng', because: ['member:mindy@team:eng'] }]);
    const a = planAdoption(d, classifyRequestGrants(d, l, [membership()], NOW));
    expect(a.skipped.map((x) => x.reason)).toEqual([
      'a group membership: add "mindy" to the members of group "team:eng" by hand',
    ]);
  });
});

describe('expired grants (grant_for)', () => {
  it.each<{ name: string; grants: RequestGrant[]; changes: string[]; held: string[] }>([
    {
      name: 'older than grant_for: deleted',
      grants: [aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', ago: 13 })],
      changes: ['-assignment:mindy:maintainer@repo:web'],
      held: [],
    },
    {
      name: 'younger: held, with its expiry',
      grants: [aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', ago: 11 })],
      changes: [],
      held: ['assignment:mindy:maintainer@repo:web'],
    },
    {
      name: 'a configuration without grant_for never expires',
      grants: [aGrant('mindy', 'maintainer', 'repo:web', { config: 'default', ago: 10_000 })],
      changes: [],
      held: ['assignment:mindy:maintainer@repo:web'],
    },
    {
      name: 'one unexpired approval among expired ones keeps it',
      grants: [
        aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', ago: 20 }),
        aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', ago: 1, id: 'renewed' }),
      ],
      changes: [],
      held: ['assignment:mindy:maintainer@repo:web'],
    },
    {
      name: 'a configuration no longer declared gives no lifetime',
      grants: [aGrant('mindy', 'maintainer', 'repo:web', { config: 'gone', ago: 100 })],
      changes: [],
      held: ['assignment:mindy:maintainer@repo:web'],
    },
  ])('$name', ({ grants, changes, held }) => {
    const { d, l } = world(['maintainer@repo:web']);
    const p = plan(d, l, grants);
    expect(brief(p)).toEqual(changes);
    expect(p.held?.grants.map((g) => g.id) ?? []).toEqual(held);
  });

  it("the deletion carries why; an undeclared user's expired grant is deleted although nothing else would touch the user", () => {
    const { d, l } = world([], { liveUsers: [aUser('ursula', { tenants: ['acme'], roles: ['reader@repo:api'] })] });
    const p = plan(d, l, [aGrant('ursula', 'reader', 'repo:api', { config: 'oncall', ago: 13, id: 'r9' })]);
    expect(p.changes).toEqual([
      {
        action: 'delete',
        kind: 'assignment',
        id: 'assignment:ursula:reader@repo:api',
        dependsOn: [],
        before: { user: 'ursula', role: 'reader', tenant: 'acme', on: 'repo:api' },
        expired: {
          request: { id: 'r9', config: 'oncall', reviewer: 'bob', approvedAt: hoursAgo(13) },
          grantFor: '12h',
          expiredAt: hoursAgo(1),
        },
        // Her only role in acme: the service then no longer lists her in it.
        cascade: ['tenant_user:ursula@acme'],
      },
    ]);
    expect(renderPlanText(p)).toContain(
      `  - assignment:ursula:reader@repo:api expired access request (approved ${hoursAgo(13)} by bob; grant_for 12h of oncall, expired ${hoursAgo(1)}; request r9)`,
    );
  });

  it('the held grant shows when it expires', () => {
    const { d, l } = world(['maintainer@repo:web']);
    const p = plan(d, l, [aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', ago: 2 })]);
    expect(p.held?.grants[0].expiresAt).toBe(hoursAgo(-10));
  });

  it('a declared grant never expires', () => {
    const { d, l } = world(['maintainer@repo:web'], {});
    d.users.get('mindy')!.roles.push({ role: 'maintainer', tenant: 'acme', on: 'repo:web' });
    expect(brief(plan(d, l, [aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', ago: 1000 })]))).toEqual([]);
  });

  it('property: the expiry is exactly grant_for after the newest approval of each grant', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 48 * 60 }), { minLength: 1, maxLength: 4 }), (minutesAgo) => {
        const { d, l } = world(['maintainer@repo:web']);
        const grants = minutesAgo.map((m, i) => ({
          ...aGrant('mindy', 'maintainer', 'repo:web', { config: 'oncall', id: `r${i}` }),
          request: {
            id: `r${i}`,
            config: 'oncall',
            reviewer: 'bob',
            approvedAt: new Date(NOW.getTime() - m * 60_000).toISOString(),
          },
        }));
        const c = classifyRequestGrants(d, l, grants, NOW);
        const expired = Math.min(...minutesAgo) >= 12 * 60;
        expect(c.expired.size).toBe(expired ? 1 : 0);
        expect(c.held.length).toBe(expired ? 0 : 1);
      }),
    );
  });
});

describe('the plan value and its renderings', () => {
  it('held is covered by the checksum; a plan without it keeps the same checksum as before', () => {
    const { d, l } = world(['maintainer@repo:web']);
    const withHeld = plan(d, l, [aGrant('mindy', 'maintainer', 'repo:web')]);
    expect(checksumPlan({ ...withHeld, held: undefined })).not.toBe(withHeld.checksum);
    expect(checksumPlan(withHeld)).toBe(withHeld.checksum);
    const none = plan(d, live({ ...base, users: [mindy()] }), []);
    expect(none.held).toBeUndefined();
    expect('held' in none).toBe(false);
  });

  it('text and markdown list the held grants and the deletions withheld for them', () => {
    const d = desired({ ...base, users: [mindy()] });
    const l = live({ ...base, users: [mindy('maintainer@repo:web')] });
    const p = plan(d, l, [
      aGrant('mindy', 'maintainer', 'repo:web', { id: 'r1', ago: 3 }),
      aGrant('mindy', 'maintainer', 'repo:web', { id: 'r0', ago: 5, reviewer: null }),
    ]);
    const text = renderPlanText(p);
    expect(text).toContain('No changes.\n');
    expect(text).toContain('Held through approved access requests: 1 grant the configuration does not declare');
    expect(text).toContain(
      `  = assignment:mindy:maintainer@repo:web\n      request r1, approved ${hoursAgo(3)} by bob (default)\n`,
    );
    const md = renderPlanMarkdown(p);
    expect(md).toContain('#### Held through approved access requests');
    expect(md).toContain(
      `| \`assignment:mindy:maintainer@repo:web\` | \`r1\` (default) | ${hoursAgo(3)} | bob | never |`,
    );
  });
});

describe('adoption', () => {
  it('adopts grants whose user, role, tenant and instance are declared; reports the others with the reason', () => {
    const { d, l } = world(['maintainer@repo:web', 'admin@acme'], {
      liveUsers: [aUser('ursula', { tenants: ['acme'], roles: ['reader@repo:api'] })],
    });
    l.users
      .get('mindy')!
      .roles.push(
        { role: 'ghost', tenant: 'acme' },
        { role: 'reader', tenant: 'acme', on: 'repo:gone' },
        { role: 'reader', tenant: 'acme', on: 'repo:api' },
      );
    const grants = [
      aGrant('mindy', 'maintainer', 'repo:web'),
      aGrant('mindy', 'admin', 'acme'),
      aGrant('mindy', 'ghost', 'acme'),
      aGrant('mindy', 'reader', 'repo:gone'),
      aGrant('mindy', 'reader', 'repo:api', { config: 'oncall', ago: 20 }),
      aGrant('ursula', 'reader', 'repo:api'),
      aGrant('mindy', 'owner', 'repo:web'),
    ];
    l.users.get('mindy')!.roles.push({ role: 'owner', tenant: 'acme', on: 'repo:web' });
    const a = planAdoption(d, classifyRequestGrants(d, l, grants, NOW));
    expect(a.adopt.map((g) => g.id)).toEqual(['assignment:mindy:admin@acme', 'assignment:mindy:maintainer@repo:web']);
    expect(a.skipped.map((s) => `${s.id}: ${s.reason}`)).toEqual([
      'assignment:mindy:ghost@acme: role "ghost" is not declared in the configuration',
      'assignment:mindy:owner@repo:web: role "owner" is not declared in the configuration (neither as a role of repo nor as a top-level role)',
      `assignment:mindy:reader@repo:api: expired at ${hoursAgo(8)} (grant_for 12h of oncall): roster requests expire (or roster apply) revokes it`,
      'assignment:mindy:reader@repo:gone: resource instance "repo:gone" is not declared in the configuration',
      'assignment:ursula:reader@repo:api: user "ursula" is not declared in the configuration',
    ]);
  });
});
