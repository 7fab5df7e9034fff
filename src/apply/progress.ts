import type { ApplyEvent } from './apply.js';
import type { Change } from '../plan/types.js';

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

/**
 * The per-change log for logs and CI, bounded: every change done is a line, but failures and skips stop
 * being listed one by one after `max` of each (the summary counts them; `--format json` lists them).
 */
export function boundedEventLog(write: (line: string) => void, max = 20): (e: ApplyEvent) => void {
  const shown = { failed: 0, skipped: 0 };
  return (e) => {
    const line = eventLine(e);
    if (!line) return;
    if (e.type === 'failed' || e.type === 'skipped') {
      const n = ++shown[e.type];
      if (n > max) return;
      if (n === max) return write(`${line}\n(further ${e.type === 'failed' ? 'failures' : 'skips'} are counted in the summary, not listed here)`);
    }
    write(line);
  };
}
