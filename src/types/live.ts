import { emptyDesiredState, type DesiredState } from './desired.js';

/** The parts of an environment that live on the service; the desired state has the same shapes. */
export const LIVE_PARTS = ['resources', 'roles', 'tenants', 'users', 'resourceInstances', 'groups', 'accessRequests'] as const;

/**
 * The live state, as `readLiveState` returns it: the desired state's shapes, so the planner compares
 * like with like. `users[*].tenants` holds every tenant the service says the user is in (added, or
 * holding any role there); `users[*].roles` excludes group memberships, which are on the groups; and
 * `resourceInstances` excludes the instances that are groups.
 */
export type LiveState = Pick<DesiredState, (typeof LIVE_PARTS)[number]>;

export function emptyLiveState(): LiveState {
  const empty = emptyDesiredState();
  return Object.fromEntries(LIVE_PARTS.map((p) => [p, empty[p]])) as LiveState;
}

/**
 * A grant an approved access request made, as read from the service (src/api/read-request-grants.ts);
 * the planner keeps it or, once expired, deletes it (src/plan/request-grants.ts).
 */
export interface RequestGrant {
  user: string;
  role: string;
  tenant: string;
  /** `type:key` of the instance; absent when tenant-wide. */
  on?: string;
  request: GrantRequest;
}

export interface GrantRequest {
  id: string;
  /** The element configuration (`access_requests` key) it was approved through. */
  config: string;
  /** The reviewer's user key; `null` when no user was recorded (approved with an API key). */
  reviewer: string | null;
  /** When it was approved (ISO 8601). */
  approvedAt: string;
}
