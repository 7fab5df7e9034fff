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
