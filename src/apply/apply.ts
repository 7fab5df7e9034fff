import type { ApiClient } from '../api/index.js';
import { ApiError } from '../errors.js';
import type { Change, Kind } from '../plan/change.js';
import type { Plan } from '../plan/types.js';
import { KINDS } from '../plan/change.js';
import { AlreadyThere, applyOne } from './operations.js';
import { batchKey, sendBatch } from './batches.js';

export type ApplyEvent =
  | { type: 'start'; change: Change }
  | { type: 'done'; change: Change }
  | { type: 'failed'; change: Change; error: string }
  | { type: 'skipped'; change: Change; because: string };

export interface ApplyResult {
  done: string[];
  /** Of `done`: creates that found the object already there (another apply made it at the same time). */
  alreadyThere: string[];
  failed: { id: string; error: string }[];
  skipped: { id: string; because: string }[];
  /** Set when the apply stopped early (the service stopped answering): why, and what was never tried. */
  stopped?: { reason: string; notAttempted: string[] };
}

export interface ApplyOptions {
  /** Changes carried out at once within a wave (the client also bounds requests in flight). */
  concurrency?: number;
  onEvent?: (e: ApplyEvent) => void;
  /** Largest bulk role-assignment call. */
  bulkSize?: number;
}

/** Memberships and role assignments share one wave: they go through the same bulk endpoint. */
const BULK_KINDS = new Set<Kind>(['assignment', 'member']);

/**
 * Carries out a plan: waves in dependency order (creates and updates by kind, then deletes in reverse),
 * independent changes of a wave in parallel, and in bulk calls where the API has them (batches.ts). A failed
 * change does not stop independent ones; changes that depend on it are skipped. Everything applied is
 * re-derived from live state on the next plan, so re-running apply after a failure or a kill converges.
 * A create that finds its object already there is done (another apply of the same configuration made
 * it); when the client gives up on the service (UNREACHABLE), the apply stops and says what it never tried.
 */
export async function applyPlan(plan: Plan, client: ApiClient, options: ApplyOptions = {}): Promise<ApplyResult> {
  const result: ApplyResult = { done: [], alreadyThere: [], failed: [], skipped: [] };
  const attempted = new Set<string>();
  let stoppedBy: string | undefined;
  const broken = new Set<string>();
  const emit = options.onEvent ?? (() => {});
  const concurrency = Math.max(1, options.concurrency ?? 8);

  for (const wave of waves(plan.changes)) {
    if (stoppedBy) break;
    const ready: Change[] = [];
    for (const c of wave) {
      const blocker = c.dependsOn.find((d) => broken.has(d));
      if (blocker) {
        broken.add(c.id);
        result.skipped.push({ id: c.id, because: blocker });
        emit({ type: 'skipped', change: c, because: blocker });
      } else ready.push(c);
    }
    const ok = (c: Change) => {
      result.done.push(c.id);
      emit({ type: 'done', change: c });
    };
    const fail = (c: Change, err: unknown) => {
      // The client gave up on the service (src/api/breaker.ts): nothing more can be applied now.
      if (err instanceof ApiError && err.info.errorCode === 'UNREACHABLE') stoppedBy ??= err.message;
      const error = err instanceof Error ? err.message : String(err);
      broken.add(c.id);
      result.failed.push({ id: c.id, error });
      emit({ type: 'failed', change: c, error });
    };
    const single = async (c: Change) => {
      if (stoppedBy) return;
      attempted.add(c.id);
      emit({ type: 'start', change: c });
      try {
        await applyOne(client, c);
        ok(c);
      } catch (err) {
        if (err instanceof AlreadyThere) {
          result.alreadyThere.push(c.id);
          return ok(c);
        }
        if (!(err instanceof ApiError)) throw err;
        fail(c, err);
      }
    };

    const tasks: (() => Promise<void>)[] = [];
    const batched = new Map<string, Change[]>();
    for (const c of ready) {
      const key = batchKey(c);
      if (key) (batched.get(key) ?? batched.set(key, []).get(key)!).push(c);
      else tasks.push(() => single(c));
    }
    for (const [key, chunk] of [...batched].flatMap(([key, list]) =>
      chunks(list, options.bulkSize ?? 1000).map((c) => [key, c] as const),
    )) {
      tasks.push(async () => {
        if (stoppedBy) return;
        for (const c of chunk) {
          attempted.add(c.id);
          emit({ type: 'start', change: c });
        }
        try {
          await sendBatch(client, key, chunk);
          chunk.forEach(ok);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          if (err.info.errorCode === 'UNREACHABLE') return chunk.forEach((c) => fail(c, err));
          // A bulk call is all or nothing: find the failing items one by one, so the others still land.
          for (const c of chunk) await single(c);
        }
      });
    }
    await runLimited(tasks, concurrency);
  }
  if (stoppedBy) {
    const finished = new Set([...result.done, ...result.failed.map((f) => f.id), ...result.skipped.map((s) => s.id)]);
    result.stopped = {
      reason: stoppedBy,
      notAttempted: plan.changes.filter((c) => !attempted.has(c.id) && !finished.has(c.id)).map((c) => c.id),
    };
  }
  return result;
}

/**
 * Consecutive changes of one action and kind form a wave; bulk kinds of one action share a wave. A change
 * that depends on one of its own wave (a resource role extending another the plan creates) starts the
 * next: a wave runs in parallel, so nothing in it may wait for another of its changes.
 */
function waves(changes: Change[]): Change[][] {
  const out: Change[][] = [];
  let key = '';
  let ids = new Set<string>();
  for (const c of changes) {
    const k = `${c.action === 'delete' ? 'd' : 'c'}:${BULK_KINDS.has(c.kind) ? 'bulk' : KINDS.indexOf(c.kind)}:${c.action === 'delete' ? 'del' : 'put'}`;
    if (k !== key || c.dependsOn.some((d) => ids.has(d))) {
      out.push([]);
      key = k;
      ids = new Set();
    }
    out[out.length - 1].push(c);
    ids.add(c.id);
  }
  return out;
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

async function runLimited(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
}
