/**
 * The shapes of the plan's access section that the streamed computation (access-stream.ts) builds and
 * access.ts completes with set rules and assertions (`PlanAccess`): in a file of their own, so that the
 * two share them without importing each other.
 */
export interface PlanAccessSummary {
  /** "+37 users gain editor on document:roadmap via team:engineering". */
  line: string;
  sign: '+' | '-';
  subject: string;
  /** The instance; absent on a tenant-wide line, which covers `instanceCount` instances. */
  instance?: string;
  /**
   * Tenant-wide lines only (`tenant` is `via`): the first `INSTANCES_LISTED` instances the line covers,
   * sorted; `instanceCount` counts them all and `instancesByType` per type. Each of the line's users
   * gains or loses `subject` on every one of them. Never every instance: a tenant-wide role covers every
   * instance of its tenant, and the section would be users × instances.
   */
  instances?: string[];
  instanceCount?: number;
  instancesByType?: Record<string, number>;
  viaKind: 'direct' | 'tenant' | 'group' | 'derived';
  via: string;
  role?: string;
  userCount: number;
  /** The first `limits.usersPerLine` users, sorted. */
  users: string[];
}

export interface PlanAccessChange {
  sign: '+' | '-';
  subject: string;
  /** The instance; absent on a change through a tenant-wide role, which covers `instances`. */
  instance?: string;
  /**
   * A change held only through a tenant-wide role, named once per role and tenant: the first
   * `INSTANCES_LISTED` instances it covers (sorted) with `instanceCount` and `instancesByType`, the
   * tenant, and the role carrying the permission (permission view). A change through a set rule
   * (`rule`): every instance it covers.
   */
  instances?: string[];
  instanceCount?: number;
  instancesByType?: Record<string, number>;
  tenant?: string;
  role?: string;
  /** A change through a set rule (attributes): the rule's key; `instances` then lists the instances it covers. */
  rule?: string;
  /** Formatted granting paths, best first (at most `limits.pathsPerChange`). */
  paths: string[];
}

/** Instances a tenant-wide line or change lists (its counts say how many it covers). */
export const INSTANCES_LISTED = 10;

export interface PlanAccessLimits {
  summaryLines: number;
  usersPerLine: number;
  changes: number;
  pathsPerChange: number;
}

export interface PlanAccessCore {
  level: 'role' | 'permission';
  /** Over every change, before capping; set rules' gains and losses included (`abac` has their own counts). */
  users: number;
  gains: number;
  losses: number;
  summary: PlanAccessSummary[];
  /** Summary lines left out. */
  omittedSummary: number;
  /** Per user, sorted by user then instance and subject. */
  byUser: { user: string; changes: PlanAccessChange[] }[];
  /** Changes left out of `byUser`. */
  omittedChanges: number;
}
