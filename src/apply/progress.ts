import type { ApplyEvent } from './apply.js';
import type { Change } from '../plan/change.js';
import { duration, plural } from '../plan/render-common.js';

/**
 * Up to this many changes, each finished change gets a line (on the terminal and in logs); above it
 * only failures do, and the counts: 9,117 lines cost more than the apply (4.5 s instead of 1.2 s) and
 * nobody reads them. `--format json` of the plan lists every change.
 */
export const PER_CHANGE_LINES = 200;
/** Failures listed as they happen in a big apply; the summary says how many there were. */
export const FAILURE_LINES = 20;

/** Progress of an apply as plain state: what finished, what is in flight, counts and an ETA. */
export interface ProgressState {
  total: number;
  done: number;
  failed: number;
  skipped: number;
  inFlight: Map<string, Change>;
  startedAt: number;
}

export function newProgress(total: number, now: number): ProgressState {
  return { total, done: 0, failed: 0, skipped: 0, inFlight: new Map(), startedAt: now };
}

export function advance(state: ProgressState, e: ApplyEvent): void {
  if (e.type === 'start') state.inFlight.set(e.change.id, e.change);
  else {
    state.inFlight.delete(e.change.id);
    state[e.type === 'done' ? 'done' : e.type === 'failed' ? 'failed' : 'skipped']++;
  }
}

/** Seconds left at the pace so far, or undefined before anything finished. */
export function etaSeconds(state: ProgressState, now: number): number | undefined {
  const finished = state.done + state.failed + state.skipped;
  if (finished === 0) return undefined;
  const rate = finished / Math.max(1, now - state.startedAt);
  return Math.ceil((state.total - finished) / rate / 1000);
}

const VERB = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/** One line per finished change, for logs and CI. */
export function eventLine(e: ApplyEvent): string | undefined {
  switch (e.type) {
    case 'start':
      return undefined;
    case 'done':
      return `${VERB[e.change.action]} ${e.change.id}`;
    case 'failed':
      return `FAILED ${e.change.action} ${e.change.id}: ${e.error}`;
    case 'skipped':
      return `skipped ${e.change.action} ${e.change.id} (depends on ${e.because})`;
  }
}

/** `6/9,117 done, 1 failed · about 15 min left`: the ETA in the plan's own wording (render-common.ts). */
export function progressLine(state: ProgressState, now: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const eta = etaSeconds(state, now);
  const left = state.total - state.done - state.failed - state.skipped;
  return (
    `${n(state.done)}/${n(state.total)} done${state.failed ? `, ${n(state.failed)} failed` : ''}${state.skipped ? `, ${n(state.skipped)} skipped` : ''}` +
    (eta !== undefined && left > 0 ? ` · ${duration(eta)} left` : '')
  );
}

/** The line a finished change gets, if any, in an apply of `total` changes (see PER_CHANGE_LINES). */
export function shownLine(e: ApplyEvent, state: ProgressState): string | undefined {
  if (state.total <= PER_CHANGE_LINES) return eventLine(e);
  if (e.type !== 'failed' || state.failed > FAILURE_LINES) return undefined;
  return eventLine(e) + (state.failed === FAILURE_LINES ? ` (further failures: in the summary)` : '');
}

/**
 * Progress for a log (no terminal, or CI): the lines of shownLine, and for a big apply a count line at
 * most every `everyMs`, so a log shows the apply moving without a line per change.
 */
export function createLogProgress(total: number, write: (line: string) => void, now: () => number, everyMs = 10_000) {
  const state = newProgress(total, now());
  let last = now();
  return {
    state,
    onEvent(e: ApplyEvent): void {
      advance(state, e);
      const line = shownLine(e, state);
      if (line) write(line);
      if (total > PER_CHANGE_LINES && e.type !== 'start' && now() - last >= everyMs) {
        last = now();
        write(progressLine(state, last));
      }
    },
  };
}

/** What an interrupted apply says: how far it got, and that running it again converges. */
export function interruptedLine(state: ProgressState): string {
  const failed = state.failed ? `, ${plural(state.failed, 'failure')}` : '';
  return (
    `Interrupted: ${state.done.toLocaleString('en-US')} of ${plural(state.total, 'change')} applied${failed}; ` +
    'changes in flight may or may not have landed. Run apply again to converge: it plans from the live state.'
  );
}
