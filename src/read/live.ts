import { ConfigError } from '../errors.js';
import type { ApiClient } from '../api/index.js';
import type { LiveState, RequestGrant } from '../types/live.js';
import type { LiveReadSummary, RefreshMode } from '../types/read.js';
import { OVERLAP_SEC, readChangesSince, type Settled } from './history.js';
import { listReader, type ListFamily, type ListReader } from './lists.js';
import { loadSnapshot, writeSnapshot, writeSnapshotHead, type SnapshotHead, type SnapshotTarget } from './snapshot.js';
import { touchedBy, type HistoryCall } from './touched.js';
import type { HistoryEvent } from '../api/read-history.js';

export const DEFAULT_MAX_AGE_MS = 7 * 86_400_000;
export const DEFAULT_MAX_CALLS = 1_000;

export interface SnapshotPlace {
  file: string;
  /** The snapshot key derived from the API key (seal.ts). */
  key: Buffer;
  target: SnapshotTarget;
}

export interface LiveReadOptions {
  client: ApiClient;
  /** Absent (the embedded default): the state is read in full and no snapshot is kept. */
  snapshot?: SnapshotPlace;
  refresh?: RefreshMode;
  maxAgeMs?: number;
  maxCalls?: number;
  /** Request ids of writes this Roster made and the read sees (after an apply): not read again next time. */
  own?: readonly string[];
  /** When those writes ended (epoch ms, `now`'s clock): see `letOwnWritesAge`. */
  writesEndedAt?: number;
  /**
   * The snapshot is opened once this settles (the configuration's validation on its thread): opening it
   * builds an environment's lists at once, and both together would add their peaks (docs/performance.md).
   */
  after?: Promise<unknown>;
  now?: () => number;
}

export interface LiveReadResult {
  live: LiveState;
  requestGrants: RequestGrant[];
  summary: LiveReadSummary;
}

/**
 * The live state, read in full or from the last snapshot and what the change history says changed since
 * (docs/plan.md, "Incremental reads"); then the snapshot of this read is kept for the next one.
 */
export async function readLive(options: LiveReadOptions): Promise<LiveReadResult> {
  const { client } = options;
  const refresh = options.refresh ?? 'auto';
  const now = options.now ?? Date.now;
  const before = client.counters().requests;
  const place = options.snapshot;
  if (place) await letOwnWritesAge(options, now);
  let fallback: string | undefined;
  if (refresh !== 'full') {
    const tried = place
      ? await tryIncremental(place, options, now)
      : ({ ok: false, reason: 'the embedded service is read in full' } as const);
    if (tried.ok) {
      const { reader, since, calls, serverTime, own, settled, pending, id } = tried;
      const read = await readThrough(reader);
      const { families, objects } = reader.fresh();
      // No list read again: the lists on disk are this read's, and only the head is written.
      const kept = families.length === 0 ? id : undefined;
      const summary: LiveReadSummary = {
        mode: 'incremental',
        requests: client.counters().requests - before,
        since: new Date(since).toISOString(),
        calls,
        reread: families,
        objects,
        snapshot: save(place!, reader, { readAt: serverTime, own, settled, pending }, kept),
      };
      return { ...read, summary };
    }
    if (refresh === 'incremental')
      throw new ConfigError(`--refresh=incremental: the live state cannot be read incrementally: ${tried.reason}`);
    fallback = tried.reason;
  }
  // A full read. Its time is the service's, asked before the first list, with its minute settled; the
  // history answering says too that the next plan will be able to read it (else no snapshot is kept).
  const probe = place
    ? await readChangesSince(client, { maxCalls: options.maxCalls ?? DEFAULT_MAX_CALLS, now })
    : undefined;
  const reader = listReader(client);
  const read = await readThrough(reader);
  const snapshot: LiveReadSummary['snapshot'] =
    !place || !probe
      ? { saved: false, why: 'the embedded service keeps no snapshot' }
      : probe.ok
        ? save(place, reader, {
            readAt: probe.serverTime,
            own: [...(options.own ?? [])],
            settled: probe.settled,
            pending: probe.inFlight.map(callOf),
          })
        : { saved: false, why: probe.reason };
  return {
    ...read,
    summary: {
      mode: 'full',
      ...(fallback && place ? { fallback } : {}),
      requests: client.counters().requests - before,
      snapshot,
    },
  };
}

/**
 * The next read lists the history from two seconds before this read's second on (history.ts), and the
 * apply's own writes listed there count against its budget, though they are skipped: after more writes
 * than half the budget, a read that keeps a snapshot begins once the last of them left that span (3 s),
 * else the next plan would find more calls than its budget and read in full.
 */
async function letOwnWritesAge(options: LiveReadOptions, now: () => number): Promise<void> {
  const ended = options.writesEndedAt;
  if (ended === undefined || (options.own?.length ?? 0) * 2 <= (options.maxCalls ?? DEFAULT_MAX_CALLS)) return;
  const wait = ended + 3_000 - now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

type Tried =
  | {
      ok: true;
      reader: ListReader;
      since: number;
      calls: number;
      serverTime: number;
      own: string[];
      settled: Settled;
      pending: HistoryCall[];
      /** The snapshot's lists on disk (snapshot.ts). */
      id: string;
    }
  | { ok: false; reason: string };

async function tryIncremental(place: SnapshotPlace, options: LiveReadOptions, now: () => number): Promise<Tried> {
  await options.after?.then(
    () => {},
    () => {},
  );
  const loaded = loadSnapshot(place.file, place.key, place.target);
  if (!loaded.ok) return loaded;
  const snap = loaded.snapshot;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const age = now() - snap.readAt;
  if (age > maxAgeMs)
    return {
      ok: false,
      reason: `the snapshot is ${hours(age)} old, older than --refresh-max-age (${hours(maxAgeMs)})`,
    };
  const changes = await readChangesSince(options.client, {
    previous: { readAt: snap.readAt, ...(snap.settled ? { settled: snap.settled } : {}) },
    maxCalls: options.maxCalls ?? DEFAULT_MAX_CALLS,
    now,
  });
  if (!changes.ok) return changes;
  // Writes the snapshot already holds are not read again. `options.own` (an apply's writes, made after the
  // snapshot) are read again now, and recorded in the next snapshot, which holds them.
  const own = new Set(snap.own ?? []);
  // The next read may read the minute before this one again: the snapshot's own writes, older than that,
  // cannot be listed there and are not carried on.
  const carried = new Set([
    ...(changes.serverTime - snap.readAt < (OVERLAP_SEC + 2) * 1000 ? own : []),
    ...(options.own ?? []),
  ]);
  const stale = new Set<ListFamily>();
  // The previous read's calls in flight are read again whatever the history says of them now.
  for (const call of snap.pending ?? []) {
    const touched = touchedBy(call, place.target);
    if (touched === 'every')
      return {
        ok: false,
        reason: `a call in flight at the snapshot, ${call.method} ${call.path}, may change anything`,
      };
    for (const f of touched) stale.add(f);
  }
  let calls = 0;
  for (const call of changes.calls) {
    if (call.requestId && own.has(call.requestId)) continue;
    const touched = touchedBy(call, place.target);
    if (touched === 'every')
      return { ok: false, reason: `the change history lists ${call.method} ${call.path}, which may change anything` };
    if (touched.length > 0) calls++;
    for (const f of touched) stale.add(f);
  }
  return {
    ok: true,
    reader: listReader(options.client, snap.lists, (f) => stale.has(f)),
    since: snap.readAt,
    calls,
    serverTime: changes.serverTime,
    own: [...carried],
    settled: changes.settled,
    pending: changes.inFlight.map(callOf),
    id: loaded.id,
  };
}

/** What a call in flight keeps in the snapshot: what `touchedBy` reads. */
const callOf = (e: HistoryEvent): HistoryCall => ({
  method: e.method,
  path: e.path,
  status: e.status,
  ...(e.project !== undefined ? { project: e.project } : {}),
  ...(e.environment !== undefined ? { environment: e.environment } : {}),
});

async function readThrough(reader: ListReader): Promise<{ live: LiveState; requestGrants: RequestGrant[] }> {
  const { readLiveState } = await import('../api/read-live.js');
  const { readRequestGrants } = await import('../api/read-request-grants.js');
  const { withSharedLists } = await import('../api/index.js');
  // Both readers need the users and the element configurations: each list is read once.
  const shared = withSharedLists(reader.client);
  const [live, requestGrants] = await Promise.all([readLiveState(shared), readRequestGrants(shared)]);
  return { live, requestGrants };
}

/**
 * Writes the snapshot of what `reader` read: its head alone when `kept` names the lists on disk it was all
 * answered from. A snapshot that cannot be written costs the next plan a full read, not this one.
 */
function save(
  place: SnapshotPlace,
  reader: ListReader,
  at: Pick<SnapshotHead, 'readAt' | 'own' | 'settled' | 'pending'>,
  kept?: string,
): LiveReadSummary['snapshot'] {
  const head: SnapshotHead = { format: 2, target: place.target, ...at };
  try {
    if (kept) writeSnapshotHead(place.file, place.key, head, kept);
    else writeSnapshot(place.file, place.key, { ...head, lists: reader.lists() });
    return { saved: true };
  } catch (err) {
    return {
      saved: false,
      why: `${place.file} cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    };
  }
}

const hours = (ms: number) =>
  ms >= 86_400_000 ? `${Math.round(ms / 86_400_000)} d` : `${Math.round(ms / 3_600_000)} h`;
