import type { ApiClient } from '../api/index.js';
import type { RequestGrant } from '../types/live.js';
import type { DesiredState } from '../types/desired.js';
import type { LiveState } from '../types/live.js';
import type { Plan } from '../plan/types.js';
import { chooseReads, largerSizes, scopeOf, sizesOf } from './verify-scope.js';
import { overlayLive } from './verify-overlay.js';

/**
 * After an apply: does the environment now hold what the configuration describes? Two applies of
 * different configurations at the same moment each plan against the state before either wrote, and
 * their writes interleave: the environment can end in a state neither configuration describes. No
 * lock is possible through the public API without leaving an object of our own in the environment, so
 * the race is detected instead: once the writes are done, what they wrote is read again and planned
 * against the same configuration. Whichever apply reads last sees the final state; if that is not its
 * configuration, it says so (a conflict) and exits non-zero, and the next plan shows the differences.
 *
 * `changes` (the default) reads again only the objects the plan changed, and the parts of them another
 * writer could have changed (verify-scope.ts): a two-change apply costs a few reads, not a whole read of
 * the environment. Another apply that changed the same objects is a conflict; one that changed only
 * objects this apply did not touch is not seen (the next plan shows it). `full` reads the whole
 * environment again and plans against it, and so also sees those.
 */
export type VerifyMode = 'changes' | 'full';
export const VERIFY_MODES: readonly VerifyMode[] = ['changes', 'full'];

export interface Leftover {
  /** Changes a new plan would still make; empty when the environment matches the configuration. */
  ids: string[];
  /** Requests the verification sent. */
  requests: number;
  /** Whether the whole environment was read (`--verify=full`, or cheaper than the scoped reads). */
  full: boolean;
}

export async function verifyApplied(options: {
  desired: DesiredState;
  client: ApiClient;
  plan: Plan;
  /** The live state the plan was made from, and the grants of approved access requests read with it. */
  live: LiveState;
  requestGrants: readonly RequestGrant[];
  mode?: VerifyMode;
  /**
   * Reads the whole environment, when the verification does: by default through `client`. The apply hands
   * the read that keeps the next plan's snapshot (src/read/), so that the environment is not read twice.
   */
  readFull?: () => Promise<{ live: LiveState; requestGrants: readonly RequestGrant[] }>;
}): Promise<Leftover> {
  const { readLiveState } = await import('../api/read-live.js');
  const { readRequestGrants } = await import('../api/read-request-grants.js');
  const { readScoped } = await import('../api/read-scoped.js');
  const { withSharedLists } = await import('../api/index.js');
  const { planChanges } = await import('../plan/plan.js');
  const before = options.client.counters().requests;
  const scope = scopeOf(options.plan);
  const reads =
    options.mode === 'full'
      ? ({ full: true } as const)
      : chooseReads(scope, largerSizes(sizesOf(options.desired), sizesOf(options.live)));
  let live: LiveState;
  let requestGrants: readonly RequestGrant[] = options.requestGrants;
  if (reads.full && options.readFull) ({ live, requestGrants } = await options.readFull());
  else if (reads.full) {
    const reader = withSharedLists(options.client);
    [live, requestGrants] = await Promise.all([readLiveState(reader), readRequestGrants(reader)]);
  } else {
    live = overlayLive(
      options.live,
      await readScoped(options.client, { scope, reads: reads.modes, base: options.live }),
    );
  }
  const again = planChanges(options.desired, live, {
    project: options.plan.project,
    environment: options.plan.environment,
    prune: options.plan.prune,
    requestGrants,
  });
  return {
    ids: again.changes.map((c) => c.id),
    requests: options.client.counters().requests - before,
    full: reads.full,
  };
}
