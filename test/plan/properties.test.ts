import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { asLive, brief, OPTIONS } from './builders.js';
import { SECTIONS, type DesiredState } from '../../src/types/desired.js';
import { KINDS, type Change } from '../../src/plan/change.js';
import {
  buildWorld,
  desiredOf,
  membersArb,
  sectionsArb,
  withDeclaredPresence,
  withMembers,
  worldArb,
} from './arbitraries.js';
import { applyToWorld, emptyWorld, readWorld } from './simulate.js';

describe('planner properties', () => {
  it('applying the plan to the live state leaves nothing to plan', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        // Live as Roster leaves it: users added to the declared tenants they are in (below: any live state).
        const world = withDeclaredPresence(buildWorld(have), desired);
        const plan = planChanges(desired, readWorld(world), { ...OPTIONS, prune });
        applyToWorld(world, plan);
        expect(brief(planChanges(desired, readWorld(world), { ...OPTIONS, prune }))).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('changes come in dependency order: unlinks, creates by kind then identity, deletes by kind reversed then identity', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        const plan = planChanges(desired, readWorld(buildWorld(have)), { ...OPTIONS, prune });
        const rank = (c: Change) => (c.action === 'delete' && c.kind === 'link' ? 0 : c.action === 'delete' ? 2 : 1);
        const level = (c: Change) => KINDS.indexOf(c.kind);
        for (let i = 1; i < plan.changes.length; i++) {
          const [a, b] = [plan.changes[i - 1], plan.changes[i]];
          expect(rank(a) <= rank(b), `${a.id} before ${b.id}`).toBe(true);
          if (rank(a) !== rank(b) || rank(a) === 0) continue;
          // Roles (and condition sets) extending others of the plan come after them: within a kind, by depth first.
          if (a.kind === b.kind && ['role', 'resource_role', 'condition_set'].includes(a.kind)) continue;
          const byLevel = rank(a) === 1 ? level(a) - level(b) : level(b) - level(a);
          expect(byLevel < 0 || (byLevel === 0 && a.id < b.id), `${a.id} before ${b.id}`).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('from any live state, a second apply converges, and the first misses only presence that roles alone held', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        const world = buildWorld(have);
        applyToWorld(world, planChanges(desired, readWorld(world), { ...OPTIONS, prune }));
        // A user in a declared tenant only through roles or memberships (made outside Roster) reads as
        // added to it: when this apply removes the last of those, they leave it, and are added again.
        const second = planChanges(desired, readWorld(world), { ...OPTIONS, prune });
        for (const c of second.changes) {
          expect(c.kind === 'tenant_user' && c.action === 'create', c.id).toBe(true);
          const f = fieldsOf(c);
          expect(desired.users.get(f.user)?.tenants, c.id).toContain(f.tenant);
        }
        applyToWorld(world, second);
        expect(brief(planChanges(desired, readWorld(world), { ...OPTIONS, prune }))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('after an apply, a membership-only edit plans membership changes and never a tenant change of a declared tenant', () => {
    fc.assert(
      fc.property(worldArb, membersArb, fc.boolean(), (want, members, prune) => {
        const first = desiredOf(buildWorld(want), [...SECTIONS]);
        const world = emptyWorld();
        applyToWorld(world, planChanges(first, readWorld(world), OPTIONS));
        const edited = withMembers(first, members);
        const plan = planChanges(edited, readWorld(world), { ...OPTIONS, prune });
        for (const c of plan.changes) {
          if (c.kind === 'member') continue;
          // The one other change: a user leaving a tenant they do not declare, with their last membership
          // there (which alone held them: the removal finds nothing left to remove).
          expect(`${c.action} ${c.kind}`, c.id).toBe('delete tenant_user');
          const f = fieldsOf(c);
          expect(edited.users.get(f.user)!.tenants, c.id).not.toContain(f.tenant);
        }
        applyToWorld(world, plan);
        expect(brief(planChanges(edited, readWorld(world), { ...OPTIONS, prune }))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("where members declare their groups' tenants (issue #15), a membership-only edit plans only membership changes", () => {
    fc.assert(
      fc.property(worldArb, membersArb, fc.boolean(), (want, members, prune) => {
        const all = desiredOf(buildWorld(want), [...SECTIONS]);
        const declaring = (d: DesiredState, pairs: [string, string][]) =>
          withMembers(
            d,
            pairs.filter(([u, g]) => d.users.get(u)?.tenants.includes(d.groups.get(g)?.tenant ?? '')),
          );
        const first = declaring(
          all,
          [...all.groups].flatMap(([g, grp]) => grp.members.map((u): [string, string] => [u, g])),
        );
        const world = emptyWorld();
        applyToWorld(world, planChanges(first, readWorld(world), OPTIONS));
        const plan = planChanges(declaring(first, members), readWorld(world), { ...OPTIONS, prune });
        expect(plan.changes.filter((c) => c.kind !== 'member').map((c) => c.id)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('a desired state read back as live plans nothing, with or without --prune', () => {
    fc.assert(
      fc.property(worldArb, sectionsArb, fc.boolean(), (want, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        expect(brief(planChanges(desired, asLive(desired), { ...OPTIONS, prune }))).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('every change comes after the changes it depends on; deletes come after every create and update, but link removals, which come first', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const plan = planChanges(desiredOf(buildWorld(want), sections), readWorld(buildWorld(have)), {
          ...OPTIONS,
          prune,
        });
        const seen = new Set<string>();
        let deleting = false;
        // A link turned around (A in B, now B in A) would be a cycle if its removal came after the new link.
        const unlinking = plan.changes.findIndex((c) => !(c.action === 'delete' && c.kind === 'link'));
        const unlinks = unlinking < 0 ? plan.changes : plan.changes.slice(0, unlinking);
        for (const c of unlinks) seen.add(c.id);
        for (const c of plan.changes.slice(unlinks.length)) {
          expect(c.action === 'delete' && c.kind === 'link', `${c.id} after the link removals`).toBe(false);
          for (const d of c.dependsOn) expect(seen, `${c.id} depends on ${d}`).toContain(d);
          if (c.action === 'delete') deleting = true;
          else expect(deleting, `${c.id} after a delete`).toBe(false);
          seen.add(c.id);
        }
        expect(new Set(plan.changes.map((c) => c.id)).size).toBe(plan.changes.length);
      }),
      { numRuns: 300 },
    );
  });

  it('without --prune, nothing top-level is deleted that the configuration does not replace', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, (want, have, sections) => {
        const plan = planChanges(desiredOf(buildWorld(want), sections), readWorld(buildWorld(have)), OPTIONS);
        const topLevel = ['resource', 'role', 'tenant', 'user', 'instance', 'group', 'access_requests'];
        expect(plan.changes.filter((c) => c.action === 'delete' && topLevel.includes(c.kind)).map((c) => c.id)).toEqual(
          [],
        );
      }),
      { numRuns: 200 },
    );
  });
});

const fieldsOf = (c: Change) => (c.action === 'delete' ? c.before : c.after) as { user: string; tenant: string };
