import { UnsafePlanError } from '../errors.js';
import type { Plan } from './types.js';
import { deletionCount } from './cascade.js';
import { plural } from './render-common.js';
import { agree, count } from '../words.js';

export interface SafetyLimits {
  /** Most deletions allowed; default 25% of the managed live objects when more than 10 exist. */
  maxDeletes?: number;
}

/** The default deletion limit for a plan, or undefined when there is none (10 managed objects or fewer). */
export function defaultMaxDeletes(plan: Plan): number | undefined {
  return plan.managedLiveCount > 10 ? Math.floor(plan.managedLiveCount * 0.25) : undefined;
}

/**
 * Everything the plan deletes: its deletions and what goes with them (each deletion's `cascade`, the
 * memberships, grants, assignments and presence the service removes with a user, group or tenant).
 */
export function deletesOf(plan: Plan): { deletes: number; cascaded: number; total: number } {
  const { deletes, cascaded } = deletionCount(plan.changes);
  return { deletes, cascaded, total: deletes + cascaded };
}

/** "3 objects and 4 that go with them (7 in all)", or "1 object": what a plan deletes, in words. */
export function describeDeletes(d: ReturnType<typeof deletesOf>): string {
  return d.cascaded > 0
    ? `${plural(d.deletes, 'object')} and ${count(d.cascaded)} that ${agree(d.cascaded, 'goes', 'go')} with them (${count(d.total)} in all)`
    : plural(d.total, 'object');
}

/**
 * Safety lives on the plan, not in the UI: a plan that deletes more than the limit (counting what goes
 * with each deletion) is refused with a message that names the flag overriding it.
 */
export function assertSafe(plan: Plan, limits: SafetyLimits = {}): void {
  const max = limits.maxDeletes ?? defaultMaxDeletes(plan);
  if (max === undefined) return;
  const d = deletesOf(plan);
  if (d.total > max) {
    const what = describeDeletes(d);
    throw new UnsafePlanError(
      `the plan deletes ${what}, more than the limit of ${count(max)}` +
        (limits.maxDeletes === undefined
          ? ` (25% of the ${plural(plan.managedLiveCount, 'managed live object')})`
          : '') +
        `; review it, then raise the limit with --max-deletes ${d.total} if it is intended`,
      '--max-deletes',
    );
  }
}
