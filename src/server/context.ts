import type { Db } from './store/db.js';
import type { DecisionLog } from './decision-log.js';

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
}

export const newId = (): string => crypto.randomUUID();

declare module 'fastify' {
  interface FastifyRequest {
    env: EnvContext;
    keyScope: KeyScope;
  }
}

export type KeyScope = { kind: 'org' } | { kind: 'env'; project: string; env: string };
