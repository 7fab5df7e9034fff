import { ApiError, NoApiError } from '../errors.js';
import type { ApiClient } from '../api/index.js';
import { countHistory, readHistorySince, type HistoryEvent } from '../api/read-history.js';

/**
 * How long a write may be in flight: a call that began this long before a read and is not in it yet is
 * caught by the next read (docs/plan.md, "Incremental reads"). The history's timestamps are the start of
 * each call (roster serve records a call before running it); a service that records a call only once it
 * is answered lists it later with an earlier time.
 */
export const OVERLAP_SEC = 60;

/**
 * The minute before a read (epoch seconds, both ends as the API takes them) and how many writes the history
 * listed in it just before the read began: each of those had been answered, or is among the read's calls in
 * flight, so the read holds its effect or reads it again next time. The next read counts the window again
 * (one request): the same count, nothing more to read there; another, it reads the window's calls.
 */
export interface Settled {
  fromSec: number;
  untilSec: number;
  /** -1: not counted (the answer had no `total_count`): the next read reads the window's calls. */
  count: number;
}

export interface ChangesQuery {
  /** The snapshot read from; absent for a full read, which only settles its own minute. */
  previous?: { readAt: number; settled?: Settled };
  /** The most calls worth reading: past it, a full read is as cheap. */
  maxCalls: number;
  now?: () => number;
}

export type ChangesRead =
  | {
      ok: true;
      /** Writes since the previous snapshot (none for a full read), oldest first, each once. */
      calls: HistoryEvent[];
      /** The service's time before anything was read (its `Date` header): the next snapshot's. */
      serverTime: number;
      /** This read's minute (see Settled). */
      settled: Settled;
      /** Writes of that minute still in flight (status 0 on roster serve): read again next time. */
      inFlight: HistoryEvent[];
    }
  | { ok: false; reason: string };

interface Page {
  data?: unknown[];
  total_count?: number;
}

/**
 * What changed since a snapshot, in the fewest requests: the web UI's changes (`GET /v2/activity`; any
 * of them reads everything: they are not API calls), this read's minute settled (its count and its calls
 * in flight), the previous minute counted again (paged only when its count moved), and the writes since.
 * The order matters: a call counted in this read's minute is listed by the reads after it, so its effect
 * is read now. Every way of not reading the history (403, 404, more than `maxCalls`, a failure) is a
 * reason, not an error.
 *
 * The history's reach is not asked: calls after the snapshot are not lost to retention while the snapshot
 * is younger than the history's age limit (`--refresh-max-age`, 7 days, under roster serve's 30) and
 * `maxCalls` is under its count limit (1,000 under 100,000). For the same reason a window's count cannot
 * stay equal by losing a call while gaining another.
 */
export async function readChangesSince(client: ApiClient, q: ChangesQuery): Promise<ChangesRead> {
  const now = q.now ?? Date.now;
  // The snapshot's minute; an earlier Roster's snapshot kept no count: its minute is read.
  const prev = q.previous && (q.previous.settled ?? windowBefore(q.previous.readAt, -1));
  try {
    // A full read asks only whether the activity log answers: a web UI change in the minute before it is
    // seen by the next read, which reads the activity from that minute on (and then reads in full).
    const from = prev ? prev.fromSec : Math.floor(now() / 1000);
    const activity = await client.request<Page>('GET', '/v2/activity', {
      query: { timestamp_from: from, page: 1, per_page: 1 },
      expect: (b) =>
        b !== null && typeof b === 'object' && Array.isArray((b as Page).data) ? undefined : 'an answer without data',
    });
    const date = Date.parse(activity.headers.date ?? '');
    const serverTime = Number.isFinite(date) ? date : now();
    const ui = activity.data?.total_count ?? activity.data?.data?.length ?? 0;
    if (ui > 0)
      return { ok: false, reason: `the activity log lists ${ui} change(s) made in the web UI since the snapshot` };

    const window = windowBefore(serverTime, 0);
    // This read's minute, settled before the calls since the snapshot are read (see above); unless those
    // calls cover it: then it is settled from them, in no request.
    const covered = prev !== undefined && window.fromSec >= prev.untilSec;
    const asked = covered ? undefined : await settle(client, window, q.maxCalls);
    if (asked && !asked.ok) return asked;
    if (!prev) return { ok: true, calls: [], serverTime, settled: window, inFlight: asked!.calls };

    const calls = new Map<string, HistoryEvent>();
    const counted = prev.count < 0 ? undefined : await countHistory(client, prev);
    if (counted !== prev.count) {
      const late = await readWindow(client, prev, q.maxCalls);
      if (!late.ok) return late;
      for (const c of late.calls) calls.set(c.id, c);
    }
    const since = await readHistorySince(client, {
      since: new Date((prev.untilSec - 1) * 1000),
      budget: q.maxCalls - calls.size,
      checkReach: false,
    });
    if (!since.readable) return { ok: false, reason: `the change history was not read: ${since.reason}` };
    for (const c of since.events) calls.set(c.id, c);
    const inFlight = asked ? asked.calls : settleFrom(window, since.events);
    return { ok: true, calls: [...calls.values()], serverTime, settled: window, inFlight };
  } catch (err) {
    // A 404 without the service's own code (no such route) comes as NoApiError: the same "no history".
    const answer = err instanceof NoApiError ? err.answer : err instanceof ApiError ? err : undefined;
    if (!answer) throw err;
    const { status, path } = answer.info;
    if (status === 403 || status === 404)
      return { ok: false, reason: `the change history cannot be read with this API key (${status} on ${path})` };
    return { ok: false, reason: `the change history could not be read (${answer.message})` };
  }
}

/** The minute before `time` (epoch ms), to the second before it: a call in `time`'s own second is the next read's. */
function windowBefore(time: number, count: number): Settled {
  const untilSec = Math.floor(time / 1000) - 1;
  return { fromSec: untilSec - OVERLAP_SEC, untilSec, count };
}

/** Counts the window's writes (`window.count`) and reads those in flight (none to read when it holds none). */
async function settle(client: ApiClient, window: Settled, budget: number): ReturnType<typeof readWindow> {
  window.count = (await countHistory(client, window)) ?? -1;
  return window.count === 0 ? { ok: true, calls: [] } : readWindow(client, window, budget, [0]);
}

/** The window's count and its calls in flight, from a read of the history that covers it. */
function settleFrom(window: Settled, events: readonly HistoryEvent[]): HistoryEvent[] {
  const within = events.filter((e) => {
    const sec = Math.floor(Date.parse(e.timestamp) / 1000);
    return sec >= window.fromSec && sec <= window.untilSec;
  });
  window.count = within.length;
  return within.filter((e) => e.status === 0);
}

async function readWindow(
  client: ApiClient,
  w: Settled,
  budget: number,
  statusCodes?: number[],
): Promise<{ ok: true; calls: HistoryEvent[] } | { ok: false; reason: string }> {
  const read = await readHistorySince(client, {
    since: new Date(w.fromSec * 1000),
    until: new Date(w.untilSec * 1000),
    budget,
    checkReach: false,
    ...(statusCodes ? { statusCodes } : {}),
  });
  return read.readable
    ? { ok: true, calls: read.events }
    : { ok: false, reason: `the change history was not read: ${read.reason}` };
}
