import { DEFAULT_TENANT } from '../rules/names.js';
/**
 * The decision log: every decision `POST /allowed` and `POST /allowed/bulk` answer, kept in the store
 * and served as the public audit logs (routes/audit-logs.ts). docs/server.md, "Decision log".
 *
 * Off the request path: a decision is pushed onto an in-memory queue (a few microseconds) and written in
 * batches, one transaction each, at most `flushMs` later or as soon as `flushAt` are waiting. A normal
 * stop (`app.close()`: SIGTERM, SIGINT) writes what is queued; a crash loses at most the queued decisions
 * (the last `flushMs`, at most `flushAt` plus what arrived during a write). Reads through this process
 * write the queue first, so they see every decision this process answered.
 */
import { monotonicIds } from './new-id.js';
import type { Db } from './store/db.js';
import type { DecisionLog } from './context.js';
import { pruneDecisions, writeDecisions, type DecisionRow } from './repo/decision-log.js';

export interface DecisionLogOptions {
  /** Decisions older than this are deleted; default 30 days. */
  maxAgeMs?: number;
  /** At most this many decisions are kept, the newest; default 1,000,000. */
  maxCount?: number;
  /** Longest a decision waits in memory before it is written; default 1 s. */
  flushMs?: number;
  /** Write as soon as this many are waiting; default 1,000. */
  flushAt?: number;
  /** How often the retention bound is enforced (after a write); default 1 minute. */
  pruneEveryMs?: number;
}

export const DECISION_LOG_DEFAULTS: Required<DecisionLogOptions> = {
  maxAgeMs: 30 * 86_400_000,
  maxCount: 1_000_000,
  flushMs: 1000,
  flushAt: 1000,
  pruneEveryMs: 60_000,
};

/**
 * Queued decisions beyond this while the store cannot be written (PostgreSQL away) are dropped, oldest
 * first, and counted in the warning: the log must never take the server's memory.
 */
const MAX_QUEUED = 100_000;

interface Pending {
  id: string;
  envId: string;
  ts: string;
  query: string;
  body: unknown;
  decision: boolean;
}

export type { DecisionLog };

export function createDecisionLog(
  db: Db,
  now: () => Date,
  options: DecisionLogOptions = {},
  warn: (message: string) => void = () => {},
): DecisionLog {
  const o = { ...DECISION_LOG_DEFAULTS, ...options };
  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let lastPrune = 0;
  let dropped = 0;
  let closed = false;
  const ids = monotonicIds();

  const schedule = () => {
    if (timer || writing) return;
    timer = setTimeout(() => void flush().catch(() => {}), o.flushMs);
    // A queued write must not keep a finished process alive; close() writes it.
    timer.unref();
  };

  const prune = async () => {
    lastPrune = Date.now();
    return pruneDecisions(db, { before: new Date(now().getTime() - o.maxAgeMs).toISOString(), keep: o.maxCount });
  };

  const writeOnce = async () => {
    const batch = queue;
    queue = [];
    try {
      await writeDecisions(db, batch.map(toRow));
    } catch (err) {
      // Kept for the next write (rows are written by id, once); bounded.
      queue = [...batch, ...queue];
      if (queue.length > MAX_QUEUED) {
        dropped += queue.length - MAX_QUEUED;
        queue = queue.slice(queue.length - MAX_QUEUED);
      }
      warn(
        `decision log: could not write ${batch.length} decision(s), kept for the next attempt${dropped ? ` (${dropped} dropped so far)` : ''}: ${(err as Error).message}`,
      );
      throw err;
    }
    if (Date.now() - lastPrune >= o.pruneEveryMs) await prune();
  };

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    // One write at a time; what arrives during one is written by the next.
    while (writing) await writing.catch(() => {});
    if (queue.length === 0) return;
    writing = writeOnce().finally(() => {
      writing = undefined;
      if (queue.length >= o.flushAt) void flush().catch(() => {});
      else if (queue.length > 0) schedule();
    });
    return writing;
  }

  return {
    record(envId, query, body, decision) {
      // After close (the store is closing; fastify has finished the requests in flight): nothing to write to.
      if (closed) return;
      const at = now();
      queue.push({ id: ids.next(at.getTime()), envId, ts: at.toISOString(), query, body, decision });
      if (queue.length >= o.flushAt && !writing) void flush().catch(() => {});
      else schedule();
    },
    flush,
    prune,
    async close() {
      try {
        await flush();
      } finally {
        closed = true;
        if (timer) clearTimeout(timer);
        timer = undefined;
      }
    },
  };
}

/** The stored row: the check normalised to objects, so that readers find `input.resource.key` in one place. */
function toRow(p: Pending): DecisionRow {
  const body = (p.body ?? {}) as { user?: unknown; action?: unknown; resource?: unknown; context?: unknown };
  const user = typeof body.user === 'string' ? { key: body.user } : ((body.user ?? {}) as { key?: string });
  let resource: { type?: string; key?: string | null; tenant?: string | null };
  if (typeof body.resource === 'string') {
    // `type:key`, or a type alone (repo/common.ts's splitRef is not imported: it would close an import cycle).
    const i = body.resource.indexOf(':');
    resource = i < 0 ? { type: body.resource } : { type: body.resource.slice(0, i), key: body.resource.slice(i + 1) };
  } else resource = (body.resource ?? {}) as typeof resource;
  const input = { ...body, user, resource };
  return {
    id: p.id,
    envId: p.envId,
    ts: p.ts,
    query: p.query,
    user: String(user.key ?? ''),
    action: String(body.action ?? ''),
    type: String(resource.type ?? ''),
    key: resource.key ?? null,
    // A check without an instance decides in the tenant named, else `default` (repo/allowed.ts).
    tenant: resource.tenant ?? (resource.key ? null : DEFAULT_TENANT),
    decision: p.decision,
    input: JSON.stringify(input),
  };
}
