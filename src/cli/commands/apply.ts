import { ConfigError, UnsafePlanError } from '../../errors.js';
import { openTarget, type TargetOptions } from '../target.js';
import { planFromFiles, printWarnings } from '../workflow.js';
import { renderPlan } from '../render-plan.js';
import { readPlanFile } from '../plan-file.js';
import { ask, isInteractive } from '../prompt.js';
import type { Plan } from '../../plan/index.js';
import { plural } from '../../plan/render-common.js';

export interface ApplyCommandOptions extends Omit<TargetOptions, 'concurrency'> {
  plan?: string;
  prune?: boolean;
  yes?: boolean;
  concurrency?: string;
  maxDeletes?: string;
}

/**
 * `roster apply`: plan (or read a saved plan and refuse it if the live state moved on), check safety,
 * show, confirm, apply with progress, summarise. Exit 1 when any change failed.
 */
export async function applyCommand(paths: string[], opts: ApplyCommandOptions): Promise<void> {
  if (opts.plan && paths.length > 0) throw new ConfigError('give configuration paths or --plan FILE, not both');
  // A saved plan is applied as it was reviewed: pruning is decided when it is made (roster plan --prune --out).
  if (opts.plan && opts.prune) throw new ConfigError(`--prune does not go with --plan: the saved plan already says whether it prunes; make it with roster plan --prune --out ${opts.plan}`);
  const concurrency = opts.concurrency ? positive(opts.concurrency, '--concurrency') : 8;
  const maxDeletes = opts.maxDeletes !== undefined ? nonNegative(opts.maxDeletes, '--max-deletes') : undefined;
  const saved = opts.plan ? readPlanFile(opts.plan) : undefined;
  // A saved plan names its environment; flags naming another would apply it where it was not reviewed.
  if (saved && ((opts.project && opts.project !== saved.project) || (opts.env && opts.env !== saved.environment))) {
    throw new ConfigError(`the plan in ${opts.plan} is for ${saved.project}/${saved.environment}, not ${opts.project ?? saved.project}/${opts.env ?? saved.environment}; run roster plan for that environment`);
  }
  const fromFiles = saved ? undefined : await planFromFiles(paths, 'apply', { ...opts, concurrency }, { prune: opts.prune });
  if (fromFiles) printWarnings(fromFiles.warnings);
  const target = fromFiles?.target ?? (await openTarget({ ...opts, concurrency }, { project: saved!.project, environment: saved!.environment }));
  try {
    let plan: Plan;
    if (saved) {
      const { readLiveState } = await import('../../api/read-live.js');
      const { fingerprintLive } = await import('../../plan/checksum.js');
      if (fingerprintLive(await readLiveState(target.client)) !== saved.liveFingerprint) {
        throw new ConfigError(`the plan in ${opts.plan} is stale: the live environment changed since it was made; run roster plan again`);
      }
      plan = saved;
    } else {
      plan = fromFiles!.plan;
    }
    // The plan is shown before the safety check: a refusal asks the user to review what it would delete.
    process.stdout.write(renderPlan(plan, 'text'));
    const { assertSafe } = await import('../../plan/safety.js');
    assertSafe(plan, { maxDeletes });
    if (plan.changes.length === 0) return;
    await confirm(plan, opts);

    const { applyPlan } = await import('../../apply/apply.js');
    const { createLogProgress, interruptedLine } = await import('../../apply/progress.js');
    const live = process.stderr.isTTY === true && !process.env.CI ? (await import('../ui/apply-progress.js')).renderApplyProgress(plan.changes.length) : undefined;
    // Counted here too, whatever shows progress, for the summary of an interrupted apply.
    const log = createLogProgress(plan.changes.length, live ? () => {} : (line) => process.stderr.write(line + '\n'), Date.now);
    const onInterrupt = () => {
      void (live?.finish() ?? Promise.resolve()).finally(() => {
        process.stdout.write(`\n${interruptedLine(log.state)}\n`);
        process.exit(130);
      });
    };
    process.once('SIGINT', onInterrupt);
    process.once('SIGTERM', onInterrupt);
    const started = Date.now();
    let result: Awaited<ReturnType<typeof applyPlan>>;
    try {
      result = await applyPlan(plan, target.client, {
        concurrency,
        onEvent: (e) => {
          log.onEvent(e);
          live?.onEvent(e);
        },
      });
    } finally {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
      // Unmounted even when applyPlan throws, so that the error is printed below the live view's last frame.
      await live?.finish();
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(`\nApplied ${result.done.length.toLocaleString('en-US')} of ${plural(plan.changes.length, 'change')} in ${seconds}s` +
      `${result.failed.length ? `, ${result.failed.length} failed` : ''}${result.skipped.length ? `, ${result.skipped.length} skipped` : ''}.\n`);
    for (const f of result.failed) process.stdout.write(`  failed ${f.id}: ${f.error}\n`);
    for (const s of result.skipped) process.stdout.write(`  skipped ${s.id}: depends on ${s.because}\n`);
    if (result.failed.length > 0) {
      process.stdout.write('Fix the failures and run apply again: it re-plans from the live state and converges.\n');
      process.exitCode = 1;
    }
  } finally {
    await target.close();
  }
}

/** Anything non-interactive needs --yes; pruning on a terminal needs the environment's name typed. */
async function confirm(plan: Plan, opts: ApplyCommandOptions): Promise<void> {
  if (opts.yes) return;
  if (!isInteractive()) throw new UnsafePlanError('not on a terminal: pass --yes to apply without a confirmation', '--yes');
  if (plan.prune && plan.summary.delete > 0) {
    const answer = await ask(`This plan deletes ${plural(plan.summary.delete, 'object')}. Type the environment name (${plan.environment}) to apply: `);
    if (answer !== plan.environment) throw new UnsafePlanError('not confirmed: nothing was applied', '--yes');
    return;
  }
  const answer = await ask(`Apply ${plural(plan.changes.length, 'change')} to ${plan.project}/${plan.environment}? [y/N] `);
  if (!/^y(es)?$/i.test(answer)) throw new UnsafePlanError('not confirmed: nothing was applied', '--yes');
}

function positive(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${flag} must be a whole number of at least 1, got '${v}'`);
  return n;
}

function nonNegative(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${flag} must be a whole number, got '${v}'`);
  return n;
}
