import type { Db } from './store/db.js';

/** Where a request acts: resolved from the path's project/environment (key or id) and the caller's key. */
export interface EnvContext {
  orgId: string;
  projectId: string;
  projectKey: string;
  envId: string;
  envKey: string;
}

/** What every route module receives: the store and the clock (tests may fix the clock). */
export interface ServerDeps {
  db: Db;
  now: () => Date;
  orgId: string;
  /** Where /allowed records its decisions (decision-log.ts); absent when the log is off. */
  decisionLog?: DecisionLog;
  /** The change history (api-history.ts); absent when it is off (`GET /v2/history` then answers 404). */
  apiHistory?: ApiHistory;
}

/** The change history's handle (made by api-history.ts, which records through fastify hooks). */
export interface ApiHistory {
  /** Enforces the retention bound now; returns how many calls were deleted. */
  prune(): Promise<number>;
  /** Whether only the organisation key may read it (api-history.ts). */
  orgKeyOnly: boolean;
  /** Waits for a retention pass in progress. */
  close(): Promise<void>;
}

/** Where /allowed records its decisions (made by decision-log.ts; declared here, where routes receive it). */
export interface DecisionLog {
  /** Queues one decision; `body` is the check as the caller sent it. Synchronous and cheap. */
  record(envId: string, query: 'permit/root' | 'permit/bulk', body: unknown, decision: boolean): void;
  /** Writes every queued decision (and enforces the retention bound when due). */
  flush(): Promise<void>;
  /** Enforces the retention bound now; returns how many were deleted. */
  prune(): Promise<number>;
  /** Stops the timer and writes what is queued. */
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    env: EnvContext;
    keyScope: KeyScope;
  }
}

export type KeyScope = { kind: 'org' } | { kind: 'env'; project: string; env: string };
