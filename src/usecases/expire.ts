import type { ConfigProblem } from '../errors.js';
import type { Plan } from '../plan/index.js';
import type { DeleteChange } from '../plan/change.js';
import { applyPlan } from '../apply/apply.js';
import type { TargetOptions } from './target.js';
import { planFromFiles } from './workflow.js';

/** A deletion of a grant that outlived its configuration's `grant_for`. */
export type ExpiredChange = DeleteChange & { expired: NonNullable<DeleteChange['expired']> };

export interface ExpireRun {
  expired: ExpiredChange[];
  /** Revoked. */
  done: string[];
  failed: { id: string; error: string }[];
}

/**
 * `roster requests expire`: revokes the grants of approved access requests whose lifetime (`grant_for` of
 * the request's configuration) is over, and nothing else, whatever else the plan would change. With
 * `dryRun`, lists them and changes nothing. The configuration's warnings go to `onWarnings`.
 */
export async function runExpire(
  paths: string[],
  opts: TargetOptions & { concurrency: number; dryRun?: boolean },
  onWarnings: (w: ConfigProblem[]) => void,
): Promise<ExpireRun> {
  const { plan, warnings, target } = await planFromFiles(paths, 'requests expire', opts, {});
  onWarnings(warnings);
  try {
    const expired = expiredChanges(plan);
    const failed: { id: string; error: string }[] = [];
    let done: string[] = [];
    if (!opts.dryRun && expired.length > 0) {
      const result = await applyPlan(expiryPlan(plan, expired), target.client, { concurrency: opts.concurrency });
      done = result.done;
      failed.push(
        ...result.failed,
        ...result.skipped.map((s) => ({ id: s.id, error: `depends on ${s.because}` })),
        // The service stopped answering: what was never tried is not revoked either.
        ...(result.stopped?.notAttempted ?? []).map((id) => ({
          id,
          error: `not attempted: ${result.stopped!.reason}`,
        })),
      );
    }
    return { expired, done, failed };
  } finally {
    await target.close();
  }
}

/** The plan's deletions of expired grants, and only those. Pure. */
export function expiredChanges(plan: Plan): ExpiredChange[] {
  return plan.changes.filter((c): c is ExpiredChange => c.action === 'delete' && c.expired !== undefined);
}

/** The plan narrowed to `expired`: what apply sends. */
function expiryPlan(plan: Plan, expired: ExpiredChange[]): Plan {
  return {
    ...plan,
    changes: expired,
    summary: { create: 0, update: 0, delete: expired.length },
    held: undefined,
    access: undefined,
  };
}
