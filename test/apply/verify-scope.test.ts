import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ScopedRead, ReadScope } from '../../src/api/read-scoped.js';
import { SECTIONS } from '../../src/types/desired.js';
import { overlayLive } from '../../src/apply/verify-overlay.js';
import { chooseReads, fullReadRequests, scopeOf, sizesOf } from '../../src/apply/verify-scope.js';
import type { LiveState } from '../../src/types/live.js';
import { planChanges } from '../../src/plan/plan.js';
import { buildWorld, desiredOf, sectionsArb, withDeclaredPresence, worldArb } from '../plan/arbitraries.js';
import { OPTIONS } from '../plan/builders.js';
import { applyToWorld, readWorld } from '../plan/simulate.js';

/** What readScoped would read of `after` for `scope` (src/api/read-scoped.ts): the same facets, taken from a whole read. */
function scopedReadOf(after: LiveState, scope: ReadScope): ScopedRead {
  const get = <T>(map: Map<string, T>, keys: Set<string>, make: (v: T) => unknown) =>
    new Map([...keys].map((k) => [k, map.has(k) ? make(map.get(k)!) : null]));
  return {
    ...(scope.schema ? { schema: { resources: after.resources, roles: after.roles } } : {}),
    ...(scope.configs ? { configs: after.accessRequests } : {}),
    tenants: get(after.tenants, scope.tenants, (t) => t) as ScopedRead['tenants'],
    users: get(after.users, scope.users, (u) => ({ ...u, roles: [] })) as ScopedRead['users'],
    assignments: new Map(
      [...scope.assignmentsOf].map((u) => [
        u,
        {
          roles: after.users.get(u)?.roles ?? [],
          groups: [...after.groups]
            .filter(([, g]) => g.members.includes(u))
            .map(([id, g]) => ({ id, tenant: g.tenant })),
        },
      ]),
    ),
    groups: get(after.groups, scope.groups, ({ members: _, ...g }) => g) as ScopedRead['groups'],
    instances: get(after.resourceInstances, scope.instances, ({ relations: _, ...i }) => i) as ScopedRead['instances'],
    tuples: new Map([...scope.tuplesOf].map((o) => [o, after.resourceInstances.get(o)?.relations ?? []])),
  };
}

const ids = (state: LiveState, desired: Parameters<typeof planChanges>[0], prune: boolean) =>
  planChanges(desired, state, { ...OPTIONS, prune })
    .changes.map((c) => c.id)
    .sort();

describe('verification in proportion to the change', () => {
  it('after an apply nobody else touched, what the apply changed read again over the state it planned from leaves nothing to plan', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        const world = withDeclaredPresence(buildWorld(have), desired);
        const before = readWorld(world);
        const plan = planChanges(desired, before, { ...OPTIONS, prune });
        applyToWorld(world, plan);
        const after = readWorld(world);
        expect(ids(after, desired, prune)).toEqual([]);
        expect(ids(overlayLive(before, scopedReadOf(after, scopeOf(plan))), desired, prune)).toEqual([]);
      }),
      // A fixed seed keeps `npm test` the same run each time (ROSTER_PROPERTY_SEED runs another): random runs
      // found two false conflicts, one mended (a group made again in another tenant), one excepted above.
      { numRuns: 400, seed: Number(process.env.ROSTER_PROPERTY_SEED ?? 20261125) },
    );
  });

  it('another writer after the apply: every change of this apply the other undid is a conflict, and no conflict is claimed that a whole read would not find', () => {
    fc.assert(
      fc.property(worldArb, worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, other, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        const world = withDeclaredPresence(buildWorld(have), desired);
        const before = readWorld(world);
        const plan = planChanges(desired, before, { ...OPTIONS, prune });
        applyToWorld(world, plan);
        // The other writer applies its own configuration of every section, pruning.
        applyToWorld(
          world,
          planChanges(desiredOf(buildWorld(other), [...SECTIONS]), readWorld(world), { ...OPTIONS, prune: true }),
        );
        const now = readWorld(world);
        const full = ids(now, desired, prune);
        const scoped = ids(overlayLive(before, scopedReadOf(now, scopeOf(plan))), desired, prune);
        const written = new Set(plan.changes.map((c) => c.id));
        // Seen: what the other undid of this apply's own changes.
        for (const id of full) if (written.has(id)) expect(scoped, id).toContain(id);
        // Never a conflict a whole read would not find. (Which changes it names may differ where the other
        // writer also changed objects this apply did not touch: a tenant it deleted still reads as there.)
        // One exception, documented (docs/plan.md): a resource the other writer made and gave groups, while
        // this apply changed the schema, reads as a resource to prune, its groups not being read again.
        const groupTypeUnseen = (id: string) =>
          id.startsWith('resource:') &&
          !before.resources.has(id.slice(9)) &&
          [...now.groups.values()].some((g) => g.type === id.slice(9));
        const claimed = scoped.filter((id) => !groupTypeUnseen(id));
        if (claimed.length > 0) expect(full.length, claimed.join(', ')).toBeGreaterThan(0);
      }),
      // A fixed seed keeps `npm test` the same run each time (ROSTER_PROPERTY_SEED runs another): random runs
      // found two false conflicts, one mended (a group made again in another tenant), one excepted above.
      { numRuns: 400, seed: Number(process.env.ROSTER_PROPERTY_SEED ?? 20261125) },
    );
  });

  it('reads each facet the cheaper way, and the whole environment when that is cheaper still', () => {
    const sizes = {
      resources: 3,
      roles: 5,
      tenants: 40,
      users: 10_000,
      assignments: 30_000,
      groups: 1_000,
      links: 200,
      instances: 2_000,
      tuples: 0,
      userAttributes: 0,
      tenantAttributes: 0,
      conditionSets: 0,
      setRules: 0,
    };
    const scope = (more: Partial<ReadScope>): ReadScope => ({
      schema: false,
      configs: false,
      abac: false,
      tenants: new Set(),
      users: new Set(),
      assignmentsOf: new Set(),
      groups: new Set(),
      instances: new Set(),
      tuplesOf: new Set(),
      ...more,
    });
    const hundred = new Set(Array.from({ length: 100 }, (_, i) => `u${i}`));
    // A 1% membership edit: 100 users' assignments in 3 requests.
    expect(chooseReads(scope({ assignmentsOf: hundred }), sizes)).toEqual({
      full: false,
      requests: 3,
      modes: { tenants: 'each', users: 'each', assignments: 'filtered', instances: 'each' },
    });
    // 500 users' records: the user list (100 pages) costs less than 500 reads.
    const many = new Set(Array.from({ length: 500 }, (_, i) => `u${i}`));
    expect(chooseReads(scope({ users: many }), sizes)).toMatchObject({
      full: false,
      requests: 100,
      modes: { users: 'list' },
    });
    // Everything changed (an apply from empty): one whole read.
    const all = new Set(Array.from({ length: 10_000 }, (_, i) => `u${i}`));
    const groups = new Set(Array.from({ length: 1_000 }, (_, i) => `team:g${i}`));
    expect(chooseReads(scope({ schema: true, users: all, assignmentsOf: all, groups }), sizes)).toEqual({
      full: true,
      requests: fullReadRequests(sizes),
    });
  });

  it('sizes count assignments with memberships, links and tuples', () => {
    const world = buildWorld(fc.sample(worldArb, { numRuns: 1, seed: 7 })[0]);
    const live = readWorld(world);
    const s = sizesOf(live);
    expect(s.users).toBe(live.users.size);
    expect(s.assignments).toBe(
      [...live.users.values()].reduce((n, u) => n + u.roles.length, 0) +
        [...live.groups.values()].reduce((n, g) => n + g.members.length, 0),
    );
  });
});
