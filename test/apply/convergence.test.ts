import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { SECTIONS } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import { buildWorld, desiredOf, membersArb, sectionsArb, withMembers, worldArb } from '../plan/arbitraries.js';
import { brief } from '../plan/builders.js';
import { startEnv, type Env } from './helpers.js';

/**
 * The planner's convergence property again, on the real server instead of the in-memory model
 * (test/plan/simulate.ts): apply a random configuration, then a random edit of it (some sections,
 * with or without --prune); every change succeeds and the next plan is empty. Each run uses its own
 * project of one server.
 */
// Fifty applies on a busy machine may take well over the default 30 s.
describe('convergence on the real server', { timeout: 120_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({
      projects: [
        ...Array.from({ length: 100 }, (_, i) => `run${i}`),
        ...Array.from({ length: 100 }, (_, i) => `members${i}`),
      ],
    });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('apply, edit, apply: no failures, and nothing left to plan', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(worldArb, worldArb, sectionsArb, fc.boolean(), async (first, second, sections, prune) => {
        const project = `run${run++}`;
        const { client } = env.client(project);
        const options = { project, environment: 'e', prune };
        for (const desired of [desiredOf(buildWorld(first), [...SECTIONS]), desiredOf(buildWorld(second), sections)]) {
          const result = await applyPlan(planChanges(desired, await readLiveState(client), options), client);
          expect(result.failed).toEqual([]);
          expect(result.skipped).toEqual([]);
          expect(brief(planChanges(desired, await readLiveState(client), options))).toEqual([]);
        }
      }),
      { numRuns: 25 },
    );
  });

  // Issue #15: removing a membership planned `+ tenant_user` for a user it was the last hold on a tenant
  // they declare. A membership-only edit plans memberships, and at most the departure of a user from a
  // tenant they do not declare (their last membership there gone).
  it('apply, then a membership-only edit: only membership changes, and nothing left to plan', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(worldArb, membersArb, fc.boolean(), async (choices, members, prune) => {
        const project = `members${run++}`;
        const { client } = env.client(project);
        const options = { project, environment: 'e', prune };
        const first = desiredOf(buildWorld(choices), [...SECTIONS]);
        expect((await applyPlan(planChanges(first, await readLiveState(client), options), client)).failed).toEqual([]);
        const edited = withMembers(first, members);
        const plan = planChanges(edited, await readLiveState(client), options);
        for (const c of plan.changes) {
          if (c.kind === 'member') continue;
          expect(`${c.action} ${c.kind}`, c.id).toBe('delete tenant_user');
          const f = (c.action === 'delete' ? c.before : c.after) as { user: string; tenant: string };
          expect(edited.users.get(f.user)!.tenants, c.id).not.toContain(f.tenant);
        }
        const result = await applyPlan(plan, client);
        expect(result.failed).toEqual([]);
        expect(brief(planChanges(edited, await readLiveState(client), options))).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });
});
