import { ConfigError } from '../../errors.js';
import type { Plan } from '../../plan/index.js';
import type { DeleteChange } from '../../plan/change.js';
import { expiredNote } from '../../plan/render-held.js';
import type { TargetOptions } from '../../usecases/target.js';
import { planFromFiles } from '../../usecases/workflow.js';
import { printWarnings } from '../report.js';
import { count, plural } from '../../words.js';

export interface ExpireCommandOptions extends Omit<TargetOptions, 'concurrency'> {
  dryRun?: boolean;
  format: string;
  concurrency?: string;
}

/** A deletion of a grant that outlived its configuration's `grant_for`. */
type ExpiredChange = DeleteChange & { expired: NonNullable<DeleteChange['expired']> };

/**
 * `roster requests expire [PATH...]`: revokes the grants of approved access requests whose lifetime
 * (`grant_for` of the request's configuration) is over, and nothing else, whatever else the plan would
 * change. Made for a schedule (the workflow's `expire` job, with the CI key): no confirmation, since it
 * can only take away what an approval gave for a limited time; a run with nothing expired changes
 * nothing. Exit 1 when a revocation failed.
 */
export async function expireCommand(paths: string[], opts: ExpireCommandOptions): Promise<void> {
  if (opts.format !== 'text' && opts.format !== 'json')
    throw new ConfigError(`--format must be text or json, got '${opts.format}'`);
  const concurrency = opts.concurrency === undefined ? 8 : Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new ConfigError(`--concurrency must be a whole number of at least 1, got '${opts.concurrency}'`);
  const { plan, warnings, target } = await planFromFiles(paths, 'requests expire', { ...opts, concurrency }, {});
  printWarnings(warnings);
  try {
    const expired = expiredChanges(plan);
    const failed: { id: string; error: string }[] = [];
    let done: string[] = [];
    if (!opts.dryRun && expired.length > 0) {
      const { applyPlan } = await import('../../apply/apply.js');
      const result = await applyPlan(expiryPlan(plan, expired), target.client, { concurrency });
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
    process.stdout.write(
      opts.format === 'json'
        ? renderExpiryJson(expired, done, failed, opts.dryRun === true)
        : renderExpiryText(expired, done, failed, opts.dryRun === true),
    );
    if (failed.length > 0) process.exitCode = 1;
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

export function renderExpiryText(
  expired: ExpiredChange[],
  done: string[],
  failed: { id: string; error: string }[],
  dryRun: boolean,
): string {
  if (expired.length === 0)
    return 'No grant of an approved access request has outlived its grant_for: nothing to revoke.\n';
  const lines = [
    dryRun
      ? `Would revoke ${expiredGrants(expired.length)} (nothing was changed; run without --dry-run to revoke):`
      : `Revoked ${count(done.length)} of ${expiredGrants(expired.length)}:`,
  ];
  for (const c of expired) lines.push(`  - ${c.id}`, `      ${expiredNote(c.expired)}`);
  for (const f of failed) lines.push(`  failed ${f.id}: ${f.error}`);
  if (failed.length > 0)
    lines.push('Run roster requests expire again: it reads the live state anew and revokes what is left.');
  return lines.join('\n') + '\n';
}

function renderExpiryJson(
  expired: ExpiredChange[],
  done: string[],
  failed: { id: string; error: string }[],
  dryRun: boolean,
): string {
  const grants = expired.map((c) => ({ id: c.id, ...c.before, expired: c.expired, revoked: done.includes(c.id) }));
  return JSON.stringify({ dryRun, grants, failed }, null, 2) + '\n';
}

const expiredGrants = (n: number) => plural(n, 'expired grant');
