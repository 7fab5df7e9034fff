import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { asLive, brief, OPTIONS } from './builders.js';
import { buildWorld, desiredOf, sectionsArb, worldArb } from './arbitraries.js';
import { applyToWorld, readWorld } from './simulate.js';

describe('planner properties', () => {
  it('applying the plan to the live state leaves nothing to plan', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const desired = desiredOf(buildWorld(want), sections);
        const world = buildWorld(have);
        const plan = planChanges(desired, readWorld(world), { ...OPTIONS, prune });
        applyToWorld(world, plan);
        expect(brief(planChanges(desired, readWorld(world), { ...OPTIONS, prune }))).toEqual([]);
      }),
      { numRuns: 400 },
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

  it('every change comes after the changes it depends on; deletes come after every create and update', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const plan = planChanges(desiredOf(buildWorld(want), sections), readWorld(buildWorld(have)), { ...OPTIONS, prune });
        const seen = new Set<string>();
        let deleting = false;
        for (const c of plan.changes) {
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
        expect(plan.changes.filter((c) => c.action === 'delete' && topLevel.includes(c.kind)).map((c) => c.id)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
