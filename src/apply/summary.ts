import type { ApplyResult } from './apply.js';
import type { Leftover } from './verify.js';
import type { DecisionVerification } from './verify-decisions.js';
import { agree, count, plural } from '../words.js';

/**
 * The end of an apply as text: one summary line, then the first failures and skips, bounded (a run
 * against a busy environment can fail thousands of changes); `--format json` carries every id. Pure.
 */
export const MAX_LISTED = 10;

export interface ApplyOutcome {
  total: number;
  seconds: number;
  result: ApplyResult;
  /** After the writes, what a new plan would still change (verify.ts); absent when not checked. */
  leftover?: Leftover;
  /** After the writes, what the decision point decides of the access the plan changed (verify-decisions.ts). */
  decisions?: DecisionVerification;
  /** Why the writes could not be verified (a read that still failed after its retries); absent when they were, or were not checked. */
  unverified?: string;
}

/** Exit code of an apply whose writes are done but whose verification could not finish (docs/plan.md). */
export const UNVERIFIED_EXIT = 4;

export function renderApplySummary({ total, seconds, result, leftover }: ApplyOutcome): string {
  const lines: string[] = [];
  const parts = [
    result.failed.length ? `${count(result.failed.length)} failed` : '',
    result.skipped.length ? `${count(result.skipped.length)} skipped` : '',
    result.stopped ? `${count(result.stopped.notAttempted.length)} not attempted` : '',
  ].filter(Boolean);
  lines.push(
    `Applied ${count(result.done.length)} of ${plural(total, 'change')} in ${seconds.toFixed(1)}s${parts.length ? `, ${parts.join(', ')}` : ''}.`,
  );
  if (result.alreadyThere.length > 0) {
    lines.push(
      `  ${count(result.alreadyThere.length)} of them were already there (another apply of the same configuration made them at the same time?)`,
    );
  }
  if (result.stopped) lines.push(`Stopped: ${result.stopped.reason}.`);
  if (leftover)
    lines.push(
      `  Verified with ${plural(leftover.requests, 'read')} ${leftover.full ? 'of the whole environment' : 'of what the apply changed'}.`,
    );
  listed(
    lines,
    result.failed.map((f) => `  failed ${f.id}: ${f.error}`),
    'failed',
  );
  listed(
    lines,
    result.skipped.map((s) => `  skipped ${s.id}: depends on ${s.because}`),
    'skipped',
  );
  if (result.stopped) {
    lines.push(
      'Nothing was rolled back. Run apply again when the service answers: it re-plans from the live state and converges.',
    );
  } else if (result.failed.length > 0) {
    lines.push('Fix the failures and run apply again: it re-plans from the live state and converges.');
  } else if (leftover && leftover.ids.length > 0) {
    lines.push(
      `Conflict: the environment changed while this apply ran (another apply or a change by hand?): ${count(leftover.ids.length)} ` +
        `${agree(leftover.ids.length, 'change', 'changes')} would still be needed to match this configuration` +
        ` (${leftover.ids.slice(0, 3).join(', ')}${leftover.ids.length > 3 ? ', ...' : ''}).`,
    );
    lines.push('Run roster plan to see the environment as it is now, decide which configuration wins, and apply it.');
  }
  return lines.join('\n') + '\n';
}

/** The first few of a list, and a count of the rest. */
function listed(lines: string[], items: string[], what: string): void {
  lines.push(...items.slice(0, MAX_LISTED));
  if (items.length > MAX_LISTED)
    lines.push(`  and ${count(items.length - MAX_LISTED)} more ${what} (--format json lists them all)`);
}

/** Exit code of an apply: 0 when everything applied and the environment matches, else 1. */
export function applyExitCode({ result, leftover }: ApplyOutcome): number {
  return result.failed.length > 0 || result.stopped || (leftover?.ids.length ?? 0) > 0 ? 1 : 0;
}

/** The same outcome as data, every id included. */
export function applyJson({ total, seconds, result, leftover, decisions, unverified }: ApplyOutcome): string {
  return (
    JSON.stringify(
      {
        total,
        seconds,
        applied: result.done,
        alreadyThere: result.alreadyThere,
        failed: result.failed,
        skipped: result.skipped,
        ...(result.stopped ? { stopped: result.stopped } : {}),
        ...(leftover
          ? {
              conflict: leftover.ids.length > 0,
              leftover: leftover.ids,
              verification: { requests: leftover.requests, full: leftover.full },
            }
          : {}),
        ...(unverified ? { unverified } : {}),
        ...(decisions ? { decisions } : {}),
      },
      null,
      2,
    ) + '\n'
  );
}
