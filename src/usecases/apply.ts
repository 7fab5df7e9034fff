import { ApiError, ConfigError, UnsafePlanError } from '../errors.js';
import type { ConfigProblem } from '../errors.js';
import { openTarget, pdpOf, type Target, type TargetOptions } from './target.js';
import type { LiveState } from '../types/live.js';
import { planFromFiles, readLive, type RefreshOptions } from './workflow.js';
import type { LiveReadSummary } from '../types/read.js';
import { readPlanFile } from './plan-file.js';
import type { Plan } from '../plan/index.js';
import { agree, plural } from '../words.js';
import { verifyApplied, type VerifyMode } from '../apply/verify.js';
import {
  decisionReportLines,
  planDecisionChecks,
  verifyDecisions,
  type DecisionChecks,
} from '../apply/verify-decisions.js';
import type { AbacDiff } from '../access/abac/diff.js';
import type { AccessGraph } from '../access/index.js';
import { applyPlan, type ApplyEvent } from '../apply/apply.js';
import type { ApplyOutcome } from '../apply/summary.js';
import { readLiveState } from '../api/read-live.js';
import { fingerprintLive } from '../plan/checksum.js';
import { assertSafe } from '../plan/safety.js';
import { readSummaryLine } from '../plan/render-read.js';
import { readDecisions } from '../api/read-decisions.js';
import { accessGraphs } from '../plan/access.js';

export { VERIFY_MODES, type VerifyMode } from '../apply/verify.js';

/** What `roster apply` does, its options parsed (cli/commands/apply.ts parses them). */
export interface ApplyInput extends TargetOptions {
  paths: string[];
  /** A plan saved by `roster plan --out`, applied as it was reviewed (instead of `paths`). */
  planFile?: string;
  prune?: boolean;
  allowFailingAssertions?: boolean;
  accessPermissions?: boolean;
  maxDeletes?: number;
  /** false: do not ask the decision point after the writes. */
  verifyDecisions?: boolean;
  decisionWaitMs?: number;
  verify?: VerifyMode;
  refresh?: RefreshOptions;
}

/** Where the apply reports as it goes: the command renders these, a test records them. */
export interface ApplyView {
  warnings(warnings: ConfigProblem[]): void;
  /** The plan, shown before the safety check: a refusal asks the user to review what it would delete. */
  plan(plan: Plan): void;
  /** `--allow-failing-assertions` applies although assertions fail: `what` fail, named by `names`. */
  failingAllowed(what: string, names: string[]): void;
  /** Resolves to apply, throws (UnsafePlanError) to refuse. */
  confirm(plan: Plan, where: string): Promise<void>;
  /** The writes begin: each change's event goes to `onEvent`; `finish` when they end, thrown or not. */
  progress(total: number): Promise<{ onEvent(e: ApplyEvent): void; finish(): Promise<void> }>;
}

/** What the apply did: nothing to change (`outcome.total` 0), or the outcome and what was checked after. */
export interface ApplyRun {
  plan: Plan;
  outcome: ApplyOutcome;
  /** The line saying whether the next plan's snapshot was kept. */
  snapshot?: string;
  /** The decision check's report lines, or why the decision point could not be asked. */
  decisions?: { lines: string[]; error?: string };
}

/**
 * `roster apply`: plan (or read a saved plan and refuse it if the live state moved on), show it, enforce
 * the configuration's assertions on the state after it, check safety, confirm, apply, verify the writes
 * and ask the decision point about the access they changed.
 */
export async function runApply(input: ApplyInput, view: ApplyView): Promise<ApplyRun> {
  const saved = input.planFile ? readPlanFile(input.planFile) : undefined;
  // A saved plan names its environment; flags naming another would apply it where it was not reviewed.
  if (saved && ((input.project && input.project !== saved.project) || (input.env && input.env !== saved.environment))) {
    throw new ConfigError(
      `the plan in ${input.planFile} is for ${saved.project}/${saved.environment}, not ${input.project ?? saved.project}/${input.env ?? saved.environment}; run roster plan for that environment`,
    );
  }
  // The access section and the assertions are computed as `roster plan` computes them. The decision check
  // after the writes samples its checks on the access section's graphs, while they exist: built again after
  // the writes, they cost seconds and hundreds of MB at 100,000 users.
  let sampled: DecisionChecks | undefined;
  const withGraphs =
    !saved && input.verifyDecisions !== false
      ? (before: AccessGraph, after: AccessGraph, abac?: AbacDiff) =>
          void (sampled = planDecisionChecks(before, after, undefined, abac))
      : undefined;
  let fromFiles = saved
    ? undefined
    : await planFromFiles(input.paths, 'apply', input, {
        prune: input.prune,
        access: { permissions: input.accessPermissions, withGraphs },
        refresh: input.refresh,
      });
  if (fromFiles) view.warnings(fromFiles.warnings);
  const target =
    fromFiles?.target ?? (await openTarget(input, { project: saved!.project, environment: saved!.environment }));
  try {
    // The live state the plan starts from: the decision check compares before and after it.
    let liveBefore = saved ? await liveForSavedPlan(input, saved, target) : fromFiles?.live;
    const plan = saved ?? fromFiles!.plan;
    view.plan(plan);
    enforceAssertions(plan, input.allowFailingAssertions, view);
    assertSafe(plan, { maxDeletes: input.maxDeletes });
    if (plan.changes.length === 0) {
      const result = { done: [], alreadyThere: [], failed: [], skipped: [] };
      return { plan, outcome: { total: 0, seconds: 0, result } };
    }
    await view.confirm(plan, target.where);

    const { result, seconds, writesEndedAt } = await writeShown(plan, target, input, view);
    const complete = result.failed.length === 0 && !result.stopped;
    const { leftover, unverified, kept } =
      fromFiles && complete
        ? await verifyWrites(fromFiles, plan, target, input, writesEndedAt)
        : { leftover: undefined, unverified: undefined, kept: undefined };
    // A conflict (the verification found the environment changed by another writer) or writes left
    // unverified already fail the apply: the decision point is not asked, nor waited for, about access the
    // plan no longer describes (it would wait out --decision-wait for an agreement that cannot come).
    const conflicted = (leftover?.ids.length ?? 0) > 0 || unverified !== undefined;
    const checked =
      input.verifyDecisions !== false && liveBefore && complete && !conflicted
        ? await checkDecisions(target, plan, liveBefore, input.decisionWaitMs, sampled)
        : undefined;
    const outcome = { total: plan.changes.length, seconds, result, leftover, unverified };
    // The next plan starts from what the writes left (src/read/): read back incrementally from this plan's
    // snapshot and the history, which lists the writes just made. That read holds an environment's lists
    // and the live state made of them: what the plan was made from (the desired and live states, the
    // sampled checks) is let go first (docs/performance.md, "Plans after an apply").
    fromFiles = liveBefore = sampled = undefined;
    const snapshot = kept
      ? `snapshot after the apply: from the verification's read: ${readSummaryLine(kept)}`
      : await snapshotAfterApply(target, input.refresh ?? {}, writesEndedAt);
    return { plan, outcome: { ...outcome, decisions: checked?.verification }, snapshot, decisions: checked };
  } finally {
    await target.close();
  }
}

/** A saved plan applies only where it was made, and only to the live state it was made from: that state. */
async function liveForSavedPlan(input: ApplyInput, saved: Plan, target: Target): Promise<LiveState> {
  if (saved.target !== undefined && saved.target !== target.where) {
    throw new ConfigError(
      `the plan in ${input.planFile} was made on ${saved.target}, not ${target.where}; run roster plan against ${target.where}`,
    );
  }
  const live = await readLiveState(target.client);
  if (fingerprintLive(live) !== saved.liveFingerprint) {
    throw new ConfigError(
      `the plan in ${input.planFile} is stale: the live environment changed since it was made; run roster plan again`,
    );
  }
  return live;
}

/** The writes, with the view's progress; `finish` even when applyPlan throws. */
async function writeShown(plan: Plan, target: Target, input: ApplyInput, view: ApplyView) {
  const shown = await view.progress(plan.changes.length);
  const started = Date.now();
  let result: Awaited<ReturnType<typeof applyPlan>>;
  try {
    result = await applyPlan(plan, target.client, {
      concurrency: input.concurrency ?? target.concurrency,
      onEvent: (e) => shown.onEvent(e),
    });
  } finally {
    // Even when applyPlan throws, so that the error is printed below the live view's last frame.
    await shown.finish();
  }
  const writesEndedAt = Date.now();
  return { result, seconds: (writesEndedAt - started) / 1000, writesEndedAt };
}

/**
 * Everything applied: read again what the apply changed, to catch another apply that ran at the same time
 * (src/apply/verify.ts). A saved plan has no configuration to compare with. A verification that reads the
 * whole environment (from empty, or --verify=full) keeps the next plan's snapshot from that read (`kept`):
 * the read-back after would read it all again, and hold it again.
 */
async function verifyWrites(
  fromFiles: NonNullable<Awaited<ReturnType<typeof planFromFiles>>>,
  plan: Plan,
  target: Target,
  input: ApplyInput,
  writesEndedAt: number,
) {
  let unverified: string | undefined;
  let kept: LiveReadSummary | undefined;
  const readFull = target.snapshot
    ? async () => {
        const own = target.client.writtenRequestIds?.() ?? [];
        const read = await readLive(target, { ...input.refresh, mode: 'full' }, own, undefined, writesEndedAt);
        kept = read.summary;
        return read;
      }
    : undefined;
  const leftover = await verifyApplied({
    desired: fromFiles.desired,
    client: target.client,
    plan,
    live: fromFiles.live,
    requestGrants: fromFiles.requestGrants,
    mode: input.verify ?? 'changes',
    ...(readFull ? { readFull } : {}),
  }).catch((err: unknown) => {
    // The writes are done and the summary is due: a read that still fails after its retries
    // leaves the writes unverified, which is an error of its own (exit 4, docs/plan.md).
    if (!(err instanceof ApiError)) throw err;
    unverified = err.message;
    return undefined;
  });
  return { leftover, unverified, kept };
}

/**
 * After the writes, the state they left is read (from the plan's snapshot and the change history, which
 * lists them) and kept as the next plan's snapshot, with the request ids of the writes: they are in it,
 * and the next plan does not read again what they touched. A read that fails leaves the old snapshot, which
 * the next plan brings up to date from the history. Returns the line saying what it did.
 */
async function snapshotAfterApply(
  target: Target,
  refresh: RefreshOptions,
  writesEndedAt: number,
): Promise<string | undefined> {
  if (!target.snapshot) return undefined;
  try {
    const own = target.client.writtenRequestIds?.() ?? [];
    const mode = refresh.mode === 'full' ? 'full' : 'auto';
    const read = await readLive(target, { ...refresh, mode }, own, undefined, writesEndedAt);
    return `snapshot after the apply: ${readSummaryLine(read.summary)}`;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return `snapshot after the apply not kept: ${err.message}`;
  }
}

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
  const graphs = sampled ? undefined : accessGraphs(live, plan.changes);
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

/**
 * Assertions (docs/check.md) failing on the state after the plan refuse it before anything is written,
 * as they fail `roster plan`. `--allow-failing-assertions` applies anyway, and the view says so loudly.
 * A saved plan carries the result it was saved with (`plan --out` saves none that fails, and a saved plan
 * applies only to the live state it was made from).
 */
function enforceAssertions(plan: Plan, allow: boolean | undefined, view: ApplyView): void {
  const result = plan.access?.assertions;
  const failed = result?.failed ?? 0;
  if (failed === 0) return;
  const what = `${plural(failed, 'assertion')} of the configuration ${agree(failed, 'fails', 'fail')} on the state after this plan`;
  if (!allow) {
    throw new UnsafePlanError(
      `${what} (see above): nothing was applied; fix the configuration, or pass --allow-failing-assertions to apply anyway`,
      '--allow-failing-assertions',
    );
  }
  view.failingAllowed(
    what,
    result!.failures.map((f) => `${f.place ? `${f.place}: ` : ''}${f.name}`),
  );
}
