import type { ApiClient } from '../api/index.js';
import { ApiError } from '../errors.js';
import type { Change, Kind, Plan } from '../plan/types.js';
import { KINDS } from '../plan/types.js';
import { applyOne } from './operations.js';
import { batchKey, sendBatch } from './batches.js';

export type ApplyEvent =
  | { type: 'start'; change: Change }
  | { type: 'done'; change: Change }
  | { type: 'failed'; change: Change; error: string }
  | { type: 'skipped'; change: Change; because: string };

export interface ApplyResult {
  done: string[];
  failed: { id: string; error: string }[];
  skipped: { id: string; because: string }[];
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
 */
export async function applyPlan(plan: Plan, client: ApiClient, options: ApplyOptions = {}): Promise<ApplyResult> {
  const result: ApplyResult = { done: [], failed: [], skipped: [] };
  const broken = new Set<string>();
  const emit = options.onEvent ?? (() => {});
  const concurrency = Math.max(1, options.concurrency ?? 8);

  for (const wave of waves(plan.changes)) {
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
      const error = err instanceof Error ? err.message : String(err);
      broken.add(c.id);
      result.failed.push({ id: c.id, error });
      emit({ type: 'failed', change: c, error });
    };
    const single = async (c: Change) => {
      emit({ type: 'start', change: c });
      try {
        await applyOne(client, c);
        ok(c);
      } catch (err) {
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
    for (const [key, chunk] of [...batched].flatMap(([key, list]) => chunks(list, options.bulkSize ?? 1000).map((c) => [key, c] as const))) {
      tasks.push(async () => {
        for (const c of chunk) emit({ type: 'start', change: c });
        try {
          await sendBatch(client, key, chunk);
          chunk.forEach(ok);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          // A bulk call is all or nothing: find the failing items one by one, so the others still land.
          for (const c of chunk) await single(c);
        }
      });
    }
    await runLimited(tasks, concurrency);
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
