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
  /** The instance; absent on a tenant-wide line, which covers `instances`. */
  instance?: string;
  /** Tenant-wide lines only: every instance the line covers, sorted (`tenant` is `via`). */
  instances?: string[];
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
   * A change held only through a tenant-wide role, named once per role and tenant: the instances it
   * covers (sorted), the tenant, and the role carrying the permission (permission view).
   */
  instances?: string[];
  tenant?: string;
  role?: string;
  /** A change through a set rule (attributes): the rule's key; `instances` then lists the instances it covers. */
  rule?: string;
  /** Formatted granting paths, best first (at most `limits.pathsPerChange`). */
  paths: string[];
}

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
