import { UnsafePlanError } from '../errors.js';
import type { Plan } from './types.js';
import { plural } from './render-common.js';

export interface SafetyLimits {
  /** Most deletions allowed; default 25% of the managed live objects when more than 10 exist. */
  maxDeletes?: number;
}

/** The default deletion limit for a plan, or undefined when there is none (10 managed objects or fewer). */
export function defaultMaxDeletes(plan: Plan): number | undefined {
  return plan.managedLiveCount > 10 ? Math.floor(plan.managedLiveCount * 0.25) : undefined;
}

/**
 * Safety lives on the plan, not in the UI: a plan that deletes more than the limit is refused with a
 * message that names the flag overriding it.
 */
export function assertSafe(plan: Plan, limits: SafetyLimits = {}): void {
  const max = limits.maxDeletes ?? defaultMaxDeletes(plan);
  if (max === undefined) return;
  if (plan.summary.delete > max) {
    throw new UnsafePlanError(
      `the plan deletes ${plural(plan.summary.delete, 'object')}, more than the limit of ${max}` +
        (limits.maxDeletes === undefined ? ` (25% of the ${plural(plan.managedLiveCount, 'managed live object')})` : '') +
        `; review it, then raise the limit with --max-deletes ${plan.summary.delete} if it is intended`,
      '--max-deletes',
    );
  }
}
