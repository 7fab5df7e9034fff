import type { ApiClient } from '../api/index.js';
import type { DesiredState } from '../types/desired.js';
import type { Plan } from '../plan/types.js';

/**
 * After an apply: does the environment now hold what the configuration describes? Two applies of
 * different configurations at the same moment each plan against the state before either wrote, and
 * their writes interleave: the environment can end in a state neither configuration describes. No
 * lock is possible through the public API without leaving an object of our own in the environment, so
 * the race is detected instead: the live state is read again once the writes are done and planned
 * against the same configuration. Whichever apply reads last sees the final state; if that is not its
 * configuration, it says so (a conflict) and exits non-zero, and the next plan shows the differences.
 * Two applies of the same configuration both find nothing left to do.
 */
export interface Leftover {
  /** Changes a new plan would still make; empty when the environment matches the configuration. */
  ids: string[];
}

export async function verifyApplied(options: { desired: DesiredState; client: ApiClient; plan: Plan }): Promise<Leftover> {
  const { readLiveState } = await import('../api/read-live.js');
  const { readRequestGrants } = await import('../api/read-request-grants.js');
  const { withSharedLists } = await import('../api/index.js');
  const { planChanges } = await import('../plan/plan.js');
  const reader = withSharedLists(options.client);
  const [live, requestGrants] = await Promise.all([readLiveState(reader), readRequestGrants(reader)]);
  const again = planChanges(options.desired, live, {
    project: options.plan.project,
    environment: options.plan.environment,
    prune: options.plan.prune,
    requestGrants,
  });
  return { ids: again.changes.map((c) => c.id) };
}
