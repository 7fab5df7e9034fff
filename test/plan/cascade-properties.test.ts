/**
 * The delete limit counts what a plan removes: every part the service removes when the plan is applied
 * (as after.ts models the service's cascades) is a deletion of the plan or listed under one, once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { liveAfter } from '../../src/plan/after.js';
import { ids } from '../../src/plan/identity.js';
import type { LiveState } from '../../src/types/live.js';
import { buildWorld, desiredOf, sectionsArb, worldArb } from './arbitraries.js';
import { readWorld } from './simulate.js';
import { OPTIONS } from './builders.js';

/** Identities of everything a live state holds: objects and parts. */
function identities(s: LiveState): Set<string> {
  const out = new Set<string>();
  for (const k of s.resources.keys()) out.add(ids.resource(k));
  for (const k of s.roles.keys()) out.add(ids.role(k));
  for (const k of s.tenants.keys()) out.add(ids.tenant(k));
  for (const u of s.users.values()) {
    out.add(ids.user(u.key));
    for (const t of u.tenants) out.add(ids.tenantUser(u.key, t));
    for (const r of u.roles) out.add(ids.assignment(u.key, r.role, r.on ?? r.tenant));
  }
  for (const ref of s.resourceInstances.keys()) out.add(ids.instance(ref));
  for (const [ref, g] of s.groups) {
    out.add(ids.group(ref));
    for (const m of g.members) out.add(ids.member(m, ref));
    for (const r of g.roles) out.add(ids.grant(ref, r.role, r.on));
    for (const p of g.memberOf) out.add(ids.link(ref, p));
  }
  for (const k of s.accessRequests.keys()) out.add(ids.accessRequests(k));
  return out;
}

describe('cascade properties', () => {
  it('everything applying removes is a deletion or in exactly one cascade', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, prune) => {
        const live = readWorld(buildWorld(have));
        const plan = planChanges(desiredOf(buildWorld(want), sections), live, { ...OPTIONS, prune });
        // A replaced instance or group is deleted and created again by one change: out of scope here.
        fc.pre(!plan.changes.some((c) => c.action === 'create' && c.replaces));
        const after = identities(liveAfter(live, plan.changes));
        const removed = [...identities(live)].filter((id) => !after.has(id));
        const listed = plan.changes.flatMap((c) => (c.action === 'delete' ? [c.id, ...(c.cascade ?? [])] : []));
        expect(new Set(listed).size).toBe(listed.length);
        const announced = new Set(listed);
        expect(removed.filter((id) => !announced.has(id))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
