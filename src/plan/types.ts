/**
 * The plan: plain, serialisable data. Text, JSON and Markdown renderers and the applier all take this
 * value; nothing renders itself. Its changes are a closed union keyed by a stable identity (change.ts).
 */

import type { RequestKind } from '../api/pacing.js';
import type { LiveReadSummary } from '../types/read.js';
import type { PlanAccess } from './access.js';
import type { PlanReplay } from './replay.js';
import type { Change } from './change.js';
import type { PlanHeld } from './request-grants.js';
import type { PlanUndeclared } from './undeclared.js';

export interface Plan {
  /** Version of this format (docs/plan.md, "The plan value"). */
  formatVersion: 1;
  /** Keys of the project and environment (resolved from ids when the API key gave only ids). */
  project: string;
  environment: string;
  /**
   * Where the plan was made: `the embedded service (./.roster)` or the remote host (never a path or a
   * credential). Shown in the header and the confirmation; not covered by the checksum (apply --plan
   * compares it with its own target instead).
   */
  target?: string;
  prune: boolean;
  /**
   * Sections the configuration declares authoritative (`authoritative:`, docs/config.md): their undeclared
   * live objects are deleted without --prune. Absent when none.
   */
  authoritative?: string[];
  /** Sections of the configuration, whose objects the plan manages. */
  managed: string[];
  changes: Change[];
  summary: { create: number; update: number; delete: number };
  /** sha256 of the plan (every field but itself; checksum.ts), printed in every format: what was reviewed is what is applied. */
  checksum: string;
  /** sha256 of the live state the plan was computed from: a saved plan is refused once it changed. */
  liveFingerprint: string;
  /** Live objects the plan counts as managed (for the deletion limit). */
  managedLiveCount: number;
  /**
   * Grants of approved access requests the configuration does not declare: kept, not changes
   * (request-grants.ts). Absent when there are none.
   */
  held?: PlanHeld;
  /**
   * Live objects of managed sections the configuration does not declare, deleted by this plan or kept,
   * with the access each grants (undeclared.ts). Absent when there are none. Derived: outside the checksum.
   */
  undeclared?: PlanUndeclared;
  /** Access changes (who gains and loses which role), when computed. */
  access?: PlanAccess;
  /** Recent decisions decided again after the plan (`plan --replay`, replay.ts). Derived: outside the checksum. */
  replay?: PlanReplay;
  /** What applying the plan costs against the public service, when computed (src/apply/estimate.ts). */
  cost?: PlanCost;
  /** How the live state was read: in full or incrementally, and what it sent (src/read/). Outside the checksum. */
  read?: LiveReadSummary;
}

/** Requests an apply sends, per rate-limit class, and the seconds its pacing needs at those limits. */
export interface PlanCost {
  requests: number;
  /** `request` counts every one; `write`, `delete`, `schemaWrite` and `bulk` the ones in those classes. */
  byClass: Partial<Record<'request' | 'write' | 'delete' | 'schemaWrite' | 'bulk', number>>;
  /**
   * The same requests, each counted once, by what it is (`bulk write`, `delete`, ...): the cost line's
   * words. The classes overlap (a bulk delete is a write, a delete and a bulk call); these do not.
   * Absent in a plan saved before they were counted.
   */
  kinds?: Partial<Record<RequestKind, number>>;
  /** At least this long (round trips add to it). */
  seconds: number;
  /**
   * Reads the apply then sends to verify its writes, estimated (src/apply/verify-scope.ts): what it
   * changed, or the whole environment when that costs less. Not in `requests`; absent when not estimated.
   */
  verify?: number;
  /** Whose limits: the public service's published ones, or limits given to the estimate. */
  limits: 'public' | 'given';
  /**
   * False when the apply will not be paced (a loopback service such as a local `roster serve`, or
   * `--pacing none`): the time is then what the public service's limits would need, not what to expect.
   */
  paced?: boolean;
}
