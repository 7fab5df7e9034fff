/**
 * The access-request rules, independent of storage and HTTP. Statuses are the specification's:
 * `null` (pending), `approved`, `deny`, `cancel`. Only a pending request changes state, and each
 * transition has one kind of actor.
 */
export type StoredStatus = null | 'approved' | 'deny' | 'cancel';
export type Transition = 'approve' | 'deny' | 'cancel' | 'update';

export interface Actor {
  /** `null` for the environment's administrator (an API key, not a user). */
  userId: string | null;
  isRequester: boolean;
  isModerator: boolean;
  /**
   * The caller is the environment's administrator: an API key on the `/v2/elements/.../access_requests`
   * operations, which name no user (docs/access-requests.md). It sees every request of the configuration
   * and may take every transition; only the request's state still decides.
   */
  isAdministrator?: boolean;
}

export type Verdict =
  { ok: true } | { ok: false; code: 'NOT_FOUND' | 'FORBIDDEN_ACCESS' | 'CONFLICT'; message: string };

/** Who may see a request: its requester and its moderators. Anyone else gets 404, so nothing leaks. */
export function canSee(actor: Actor): boolean {
  return actor.isAdministrator === true || actor.isRequester || actor.isModerator;
}

export function checkTransition(status: StoredStatus, transition: Transition, actor: Actor): Verdict {
  if (!canSee(actor)) return { ok: false, code: 'NOT_FOUND', message: 'access request not found' };
  // The administrator is no user: neither someone else's requester nor a requester reviewing their own.
  const denied = actor.isAdministrator === true ? undefined : authorityDenied(transition, actor);
  if (denied) return { ok: false, code: 'FORBIDDEN_ACCESS', message: denied };
  if (status !== null) {
    return { ok: false, code: 'CONFLICT', message: `access request is no longer pending (status: ${status})` };
  }
  return { ok: true };
}

function authorityDenied(transition: Transition, actor: Actor): string | undefined {
  if (transition === 'cancel')
    return actor.isRequester ? undefined : 'only the requesting user may cancel an access request';
  if (!actor.isModerator) return `only a reviewer of this access request may ${transition} it`;
  // A requester who is also a reviewer of the tenant still may not review their own request.
  if (actor.isRequester) return `a reviewer may not ${transition} their own access request`;
  return undefined;
}

export const NEXT_STATUS: Record<Exclude<Transition, 'update'>, Exclude<StoredStatus, null>> = {
  approve: 'approved',
  deny: 'deny',
  cancel: 'cancel',
};

/** Status filter values: both the specification's and the public API's spellings. `undefined`: unknown. */
export function parseStatusFilter(value: string): StoredStatus | undefined {
  switch (value.toLowerCase()) {
    case 'null':
    case 'pending':
      return null;
    case 'approved':
      return 'approved';
    case 'deny':
    case 'denied':
      return 'deny';
    case 'cancel':
    case 'canceled':
    case 'cancelled':
      return 'cancel';
    default:
      return undefined;
  }
}

/** Reviewer levels: holders of a role mapped to LEVEL_1 or LEVEL_2 review requests in their tenant. */
export const REVIEWER_LEVELS = ['LEVEL_1', 'LEVEL_2'] as const;

export function reviewerRoles(rolesToLevels: Record<string, string[]>): string[] {
  return [...new Set(REVIEWER_LEVELS.flatMap((l) => rolesToLevels[l] ?? []))].sort();
}
