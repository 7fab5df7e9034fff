import type {
  DesiredAccessRequestConfig, DesiredGroup, DesiredResource, DesiredResourceInstance, DesiredRole, DesiredTenant, DesiredUser,
} from '../config/desired.js';

/**
 * The live state, as `readLiveState` returns it: the same shapes as the desired state, so the planner
 * compares like with like. `users[*].tenants` holds every tenant the service says the user is in
 * (added, or holding any role there); `users[*].roles` excludes group memberships, which are on the groups.
 */
export interface LiveState {
  resources: Map<string, DesiredResource>;
  roles: Map<string, DesiredRole>;
  tenants: Map<string, DesiredTenant>;
  users: Map<string, DesiredUser>;
  /** By `type:key`; instances that are groups are not here but in `groups`. */
  resourceInstances: Map<string, DesiredResourceInstance>;
  groups: Map<string, DesiredGroup>;
  accessRequests: Map<string, DesiredAccessRequestConfig>;
}

export function emptyLiveState(): LiveState {
  return {
    resources: new Map(),
    roles: new Map(),
    tenants: new Map(),
    users: new Map(),
    resourceInstances: new Map(),
    groups: new Map(),
    accessRequests: new Map(),
  };
}

/** The role that makes a user a member of a group; the service creates it with the first group. */
export const MEMBER_ROLE = 'member';
