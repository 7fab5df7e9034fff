import { ApiError, ConfigError, UnsafePlanError } from '../../errors.js';
import { openTarget, pdpOf, type Target, type TargetOptions } from '../target.js';
import type { LiveState } from '../../types/live.js';
import { parseDuration } from '../../types/duration.js';
import { planFromFiles, printWarnings, readLive } from '../workflow.js';
import { refreshOptions, type RefreshFlags } from '../refresh-flags.js';
import { writePlanText } from '../render-plan.js';
import { readPlanFile } from '../plan-file.js';
import { ask, isInteractive } from '../prompt.js';
import { isCi } from '../../ci.js';
import type { Plan } from '../../plan/index.js';
import type { RefreshOptions } from '../workflow.js';
import { agree, plural } from '../../words.js';
import type { VerifyMode } from '../../apply/verify.js';
import type { DecisionChecks } from '../../apply/verify-decisions.js';
import type { AbacDiff } from '../../access/abac/diff.js';
import type { AccessGraph } from '../../access/index.js';

export interface ApplyCommandOptions extends Omit<TargetOptions, 'concurrency'>, RefreshFlags {
  plan?: string;
  prune?: boolean;
  yes?: boolean;
  /** Apply although assertions of the configuration fail on the state after the plan (printed loudly). */
  allowFailingAssertions?: boolean;
  accessPermissions?: boolean;
  concurrency?: string;
  maxDeletes?: string;
  /** text (default) or json: the outcome with every id, on stdout (the plan then goes to stderr). */
  format?: string;
  /** false with --no-verify-decisions: do not ask the decision point after the writes. */
  verifyDecisions?: boolean;
  /** `--decision-wait`: how long the decision point may take to agree (a duration); default 15s. */
  decisionWait?: string;
  /** What is read again after the writes (src/apply/verify.ts): `changes` (default) or `full`. */
  verify?: string;
}

/**
 * `roster apply`: plan (or read a saved plan and refuse it if the live state moved on), show it with its
 * access section, enforce the configuration's assertions on the state after it, check safety, confirm,
 * apply with progress, summarise. Exit 1 when any change failed.
 */
export async function applyCommand(paths: string[], opts: ApplyCommandOptions): Promise<void> {
  if (opts.plan && paths.length > 0) throw new ConfigError('give configuration paths or --plan FILE, not both');
  // A saved plan is applied as it was reviewed: pruning is decided when it is made (roster plan --prune --out).
  if (opts.plan && opts.prune)
    throw new ConfigError(
      `--prune does not go with --plan: the saved plan already says whether it prunes; make it with roster plan --prune --out ${opts.plan}`,
    );
  // Unset: the target's default, by whether it is paced (target.ts `inFlightDefault`).
  const concurrency = opts.concurrency ? positive(opts.concurrency, '--concurrency') : undefined;
  const format = opts.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new ConfigError(`--format must be text or json, got '${format}'`);
  const out = (text: string) => (format === 'json' ? process.stderr : process.stdout).write(text);
  const maxDeletes = opts.maxDeletes !== undefined ? nonNegative(opts.maxDeletes, '--max-deletes') : undefined;
  const decisionWaitMs = opts.decisionWait !== undefined ? waitOf(opts.decisionWait) : undefined;
  const refresh = refreshOptions(opts);
  const { VERIFY_MODES } = await import('../../apply/verify.js');
  const verify = (opts.verify ?? 'changes') as VerifyMode;
  if (!VERIFY_MODES.includes(verify))
    throw new ConfigError(`--verify must be ${VERIFY_MODES.join(' or ')}, got '${opts.verify}'`);
  const saved = opts.plan ? readPlanFile(opts.plan) : undefined;
  // A saved plan names its environment; flags naming another would apply it where it was not reviewed.
  if (saved && ((opts.project && opts.project !== saved.project) || (opts.env && opts.env !== saved.environment))) {
    throw new ConfigError(
      `the plan in ${opts.plan} is for ${saved.project}/${saved.environment}, not ${opts.project ?? saved.project}/${opts.env ?? saved.environment}; run roster plan for that environment`,
    );
  }
  // The access section (who gains and loses access) and the assertions on the state after the plan,
  // exactly as `roster plan` computes them: what was reviewed on the pull request is what apply checks.
  // The decision check after the writes samples its checks on the access section's graphs, while they
  // exist: built again after the writes, they cost seconds and hundreds of MB at 100,000 users.
  const decisionChecks =
    !saved && opts.verifyDecisions !== false ? await import('../../apply/verify-decisions.js') : undefined;
  let sampled: DecisionChecks | undefined;
  const withGraphs =
    decisionChecks &&
    ((before: AccessGraph, after: AccessGraph, abac?: AbacDiff) =>
      void (sampled = decisionChecks.planDecisionChecks(before, after, undefined, abac)));
  const fromFiles = saved
    ? undefined
    : await planFromFiles(
        paths,
        'apply',
        { ...opts, concurrency },
        { prune: opts.prune, access: { permissions: opts.accessPermissions, withGraphs }, refresh },
      );
  if (fromFiles) printWarnings(fromFiles.warnings);
  const target =
    fromFiles?.target ??
    (await openTarget({ ...opts, concurrency }, { project: saved!.project, environment: saved!.environment }));
  try {
    let plan: Plan;
    // The live state the plan starts from: the decision check compares before and after it.
    let liveBefore = fromFiles?.live;
    if (saved) {
      const { readLiveState } = await import('../../api/read-live.js');
      const { fingerprintLive } = await import('../../plan/checksum.js');
      if (saved.target !== undefined && saved.target !== target.where) {
        throw new ConfigError(
          `the plan in ${opts.plan} was made on ${saved.target}, not ${target.where}; run roster plan against ${target.where}`,
        );
      }
      liveBefore = await readLiveState(target.client);
      if (fingerprintLive(liveBefore) !== saved.liveFingerprint) {
        throw new ConfigError(
          `the plan in ${opts.plan} is stale: the live environment changed since it was made; run roster plan again`,
        );
      }
      plan = saved;
    } else {
      plan = fromFiles!.plan;
    }
    // The plan is shown before the safety check: a refusal asks the user to review what it would delete.
    writePlanText(plan, out);
    enforceAssertions(plan, opts);
    const { assertSafe } = await import('../../plan/safety.js');
    assertSafe(plan, { maxDeletes });
    if (plan.changes.length === 0) {
      // A script reading stdout gets an outcome every time, nothing to change included (issue #41).
      if (format === 'json')
        process.stdout.write(
          (await import('../../apply/summary.js')).applyJson({
            total: 0,
            seconds: 0,
            result: { done: [], alreadyThere: [], failed: [], skipped: [] },
          }),
        );
      return;
    }
    await confirm(plan, opts, target.where);

    const { applyPlan } = await import('../../apply/apply.js');
    const { createLogProgress, interruptedLine } = await import('../../apply/progress.js');
    const live =
      process.stderr.isTTY === true && !isCi()
        ? (await import('../ui/apply-progress.js')).renderApplyProgress(plan.changes.length)
        : undefined;
    // Counted here too, whatever shows progress, for the summary of an interrupted apply.
    const log = createLogProgress(
      plan.changes.length,
      live ? () => {} : (line) => process.stderr.write(line + '\n'),
      Date.now,
    );
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
        concurrency: concurrency ?? target.concurrency,
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
    const seconds = (Date.now() - started) / 1000;
    // Everything applied: read again what the apply changed, to catch another apply that ran at the same
    // time (src/apply/verify.ts). A saved plan has no configuration to compare with.
    const { verifyApplied } = await import('../../apply/verify.js');
    let unverified: string | undefined;
    const leftover =
      fromFiles && result.failed.length === 0 && !result.stopped
        ? await verifyApplied({
            desired: fromFiles.desired,
            client: target.client,
            plan,
            live: fromFiles.live,
            requestGrants: fromFiles.requestGrants,
            mode: verify,
          }).catch((err: unknown) => {
            // The writes are done and the summary is due: a read that still fails after its retries
            // leaves the writes unverified, which is an error of its own (exit 4, docs/plan.md).
            if (!(err instanceof ApiError)) throw err;
            unverified = err.message;
            return undefined;
          })
        : undefined;
    const { applyExitCode, applyJson, renderApplySummary, UNVERIFIED_EXIT } = await import('../../apply/summary.js');
    const checked =
      opts.verifyDecisions !== false && liveBefore && result.failed.length === 0 && !result.stopped
        ? await checkDecisions(target, plan, liveBefore, decisionWaitMs, sampled)
        : undefined;
    const outcome = {
      total: plan.changes.length,
      seconds,
      result,
      leftover,
      unverified,
      decisions: checked?.verification,
    };
    // The next plan starts from what the writes left (src/read/): read back incrementally from this plan's
    // snapshot and the history, which lists the writes just made.
    const snapshot = await snapshotAfterApply(target, refresh);
    process.stdout.write(format === 'json' ? applyJson(outcome) : '\n' + renderApplySummary(outcome));
    if (snapshot) process.stderr.write(snapshot + '\n');
    if (format === 'json') process.stderr.write('\n' + renderApplySummary(outcome));
    if (checked?.lines.length) out(checked.lines.join('\n') + '\n');
    if (unverified)
      process.stderr.write(
        `error: the writes are done but could not be verified (another apply at the same time would go unseen): ${unverified}\n`,
      );
    if (checked?.error)
      process.stderr.write(`error: the writes are done, but the decision point could not be asked: ${checked.error}\n`);
    const disagreed = (checked?.verification?.disagreements.length ?? 0) > 0;
    process.exitCode = unverified
      ? UNVERIFIED_EXIT
      : checked?.error
        ? 1
        : applyExitCode(outcome) || (disagreed ? DECISIONS_DISAGREE : 0);
  } finally {
    await target.close();
  }
}

/**
 * After the writes, the state they left is read (from the plan's snapshot and the change history, which
 * lists them) and kept as the next plan's snapshot, with the request ids of the writes: they are in it,
 * and the next plan does not read again what they touched. A read that fails leaves the old snapshot, which
 * the next plan brings up to date from the history. Returns the line saying what it did.
 */
async function snapshotAfterApply(target: Target, refresh: RefreshOptions): Promise<string | undefined> {
  if (!target.snapshot) return undefined;
  try {
    const own = target.client.writtenRequestIds?.() ?? [];
    const read = await readLive(target, { ...refresh, mode: refresh.mode === 'full' ? 'full' : 'auto' }, own);
    const { readSummaryLine } = await import('../../plan/render-read.js');
    return `snapshot after the apply: ${readSummaryLine(read.summary)}`;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return `snapshot after the apply not kept: ${err.message}`;
  }
}

/** Exit code when everything applied but the decision point disagrees with the plan (docs/plan.md). */
export const DECISIONS_DISAGREE = 3;

/**
 * Asks the decision point about the access the plan changed (src/apply/verify-decisions.ts). Its own
 * failure (no decision point at that URL, the PDP unreachable) is reported after the summary, never
 * instead of it: the writes are done.
 */
async function checkDecisions(
  target: Target,
  plan: Plan,
  live: LiveState,
  waitMs: number | undefined,
  sampled: DecisionChecks | undefined,
) {
  const { planDecisionChecks, verifyDecisions, decisionReportLines } = await import('../../apply/verify-decisions.js');
  const { readDecisions } = await import('../../api/read-decisions.js');
  const graphs = sampled ? undefined : (await import('../../plan/access.js')).accessGraphs(live, plan.changes);
  const { checks, total, undecided } = sampled ?? planDecisionChecks(graphs!.before, graphs!.after);
  if (total === 0 && !undecided) return undefined;
  const pdp = pdpOf(target);
  try {
    const verification = await verifyDecisions({
      checks,
      total,
      undecided,
      waitMs,
      ask: (c) => readDecisions(pdp.client, target, c, pdp),
    });
    // Named as the other lines name the target: the embedded service's port is random and says nothing.
    const where = pdp.via ? new URL(pdp.url).host : target.kind === 'embedded' ? 'the embedded service' : target.where;
    return { verification, lines: decisionReportLines(verification, where) };
  } catch (err) {
    if (!(err instanceof ApiError) && !(err instanceof ConfigError)) throw err;
    return { error: err.message, lines: [] };
  }
}

function waitOf(text: string): number {
  const trimmed = text.trim();
  const parsed = /^[0-9]+$/.test(trimmed) ? { ok: true as const, ms: Number(trimmed) * 1000 } : parseDuration(trimmed);
  if (!parsed.ok || parsed.ms > 600_000)
    throw new ConfigError(`--decision-wait must be seconds or a duration up to 10m (0, 15s, 2m), got '${text}'`);
  return parsed.ms;
}

/**
 * Assertions (docs/check.md) failing on the state after the plan refuse it before anything is written,
 * as they fail `roster plan`. `--allow-failing-assertions` applies anyway, and says so on stderr in a
 * block no log reader can miss. A saved plan carries the result it was saved with (`plan --out` saves
 * none that fails, and a saved plan applies only to the live state it was made from).
 */
export function enforceAssertions(plan: Plan, opts: Pick<ApplyCommandOptions, 'allowFailingAssertions'>): void {
  const result = plan.access?.assertions;
  const failed = result?.failed ?? 0;
  if (failed === 0) return;
  const what = `${plural(failed, 'assertion')} of the configuration ${agree(failed, 'fails', 'fail')} on the state after this plan`;
  if (!opts.allowFailingAssertions) {
    throw new UnsafePlanError(
      `${what} (see above): nothing was applied; fix the configuration, or pass --allow-failing-assertions to apply anyway`,
      '--allow-failing-assertions',
    );
  }
  const bar = '!'.repeat(78);
  const names = result!.failures.map((f) => `!!   ${f.place ? `${f.place}: ` : ''}${f.name}`);
  process.stderr.write(
    ['', bar, `!! WARNING: --allow-failing-assertions: applying although ${what}:`, ...names, bar, ''].join('\n') +
      '\n',
  );
}

/**
 * Anything non-interactive needs --yes; pruning on a terminal needs the environment's key typed. Both
 * prompts name the project and environment by key and where they are, and who gains and loses access.
 */
async function confirm(plan: Plan, opts: ApplyCommandOptions, where: string): Promise<void> {
  if (opts.yes) return;
  if (!isInteractive())
    throw new UnsafePlanError('not on a terminal: pass --yes to apply without a confirmation', '--yes');
  const scope = `${plan.project}/${plan.environment} on ${where}`;
  const users = plan.access?.users;
  const access =
    users === undefined
      ? ''
      : users === 0
        ? " (nobody's access changes)"
        : ` (${plural(users, 'user')} ${agree(users, 'gains or loses', 'gain or lose')} access: see above)`;
  // Deleting what the configuration does not declare (--prune, or its `authoritative:`) needs the key typed.
  if ((plan.prune || (plan.authoritative?.length ?? 0) > 0) && plan.summary.delete > 0) {
    const answer = await ask(
      `This plan deletes ${plural(plan.summary.delete, 'object')} in ${scope}${access}. Type the environment's key (${plan.environment}) to apply: `,
    );
    if (answer !== plan.environment) throw new UnsafePlanError('not confirmed: nothing was applied', '--yes');
    return;
  }
  const answer = await ask(`Apply ${plural(plan.changes.length, 'change')} to ${scope}${access}? [y/N] `);
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
