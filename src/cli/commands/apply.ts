import { ConfigError } from '../../errors.js';
import type { TargetOptions } from '../../usecases/target.js';
import { parseDuration } from '../../types/duration.js';
import { refreshOptions, type RefreshFlags } from '../refresh-flags.js';
import { applyView } from '../apply-view.js';
import { runApply, VERIFY_MODES, type VerifyMode } from '../../usecases/apply.js';
import { applyExitCode, applyJson, renderApplySummary, UNVERIFIED_EXIT } from '../../apply/summary.js';

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

/** Exit code when everything applied but the decision point disagrees with the plan (docs/plan.md). */
export const DECISIONS_DISAGREE = 3;

/** `roster apply` (src/usecases/apply.ts): parse, run, print the outcome. Exit 1 when any change failed. */
export async function applyCommand(paths: string[], opts: ApplyCommandOptions): Promise<void> {
  if (opts.plan && paths.length > 0) throw new ConfigError('give configuration paths or --plan FILE, not both');
  // A saved plan is applied as it was reviewed: pruning is decided when it is made (roster plan --prune --out).
  if (opts.plan && opts.prune)
    throw new ConfigError(
      `--prune does not go with --plan: the saved plan already says whether it prunes; make it with roster plan --prune --out ${opts.plan}`,
    );
  // Unset: the target's default, by whether it is paced (target.ts `inFlightDefault`).
  const concurrency = opts.concurrency ? whole(opts.concurrency, '--concurrency', 1) : undefined;
  const format = opts.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new ConfigError(`--format must be text or json, got '${format}'`);
  const out = (text: string) => (format === 'json' ? process.stderr : process.stdout).write(text);
  const maxDeletes = opts.maxDeletes !== undefined ? whole(opts.maxDeletes, '--max-deletes', 0) : undefined;
  const decisionWaitMs = opts.decisionWait !== undefined ? waitOf(opts.decisionWait) : undefined;
  const refresh = refreshOptions(opts);
  const verify = (opts.verify ?? 'changes') as VerifyMode;
  if (!VERIFY_MODES.includes(verify))
    throw new ConfigError(`--verify must be ${VERIFY_MODES.join(' or ')}, got '${opts.verify}'`);
  const input = { ...opts, paths, planFile: opts.plan, concurrency, maxDeletes, decisionWaitMs, refresh, verify };
  const { outcome, snapshot, decisions: checked } = await runApply(input, applyView(opts, out));
  if (outcome.total === 0) {
    // A script reading stdout gets an outcome every time, nothing to change included (issue #41).
    if (format === 'json') process.stdout.write(applyJson(outcome));
    return;
  }
  process.stdout.write(format === 'json' ? applyJson(outcome) : '\n' + renderApplySummary(outcome));
  if (snapshot) process.stderr.write(snapshot + '\n');
  if (format === 'json') process.stderr.write('\n' + renderApplySummary(outcome));
  if (checked?.lines.length) out(checked.lines.join('\n') + '\n');
  const { unverified } = outcome;
  if (unverified)
    process.stderr.write(
      `error: the writes are done but could not be verified (another apply at the same time would go unseen): ${unverified}\n`,
    );
  if (checked?.error)
    process.stderr.write(`error: the writes are done, but the decision point could not be asked: ${checked.error}\n`);
  const disagreed = (outcome.decisions?.disagreements.length ?? 0) > 0;
  process.exitCode = unverified
    ? UNVERIFIED_EXIT
    : checked?.error
      ? 1
      : applyExitCode(outcome) || (disagreed ? DECISIONS_DISAGREE : 0);
}

function waitOf(text: string): number {
  const trimmed = text.trim();
  const parsed = /^[0-9]+$/.test(trimmed) ? { ok: true as const, ms: Number(trimmed) * 1000 } : parseDuration(trimmed);
  if (!parsed.ok || parsed.ms > 600_000)
    throw new ConfigError(`--decision-wait must be seconds or a duration up to 10m (0, 15s, 2m), got '${text}'`);
  return parsed.ms;
}

function whole(v: string, flag: string, least: 0 | 1): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < least)
    throw new ConfigError(`${flag} must be a whole number${least ? ' of at least 1' : ''}, got '${v}'`);
  return n;
}
