/**
 * The adapter from the configuration's and the service's shapes to the access graph's facts. Pure.
 * `DesiredState` and `LiveState` share their shapes (src/plan/live.ts), so one function serves both.
 */
import type { DesiredState } from '../config/desired.js';
import type { LiveState } from '../plan/live.js';
import type { AccessFacts } from './facts.js';

/** The parts of either state the graph needs. */
export type AccessSource = Pick<DesiredState | LiveState, 'roles' | 'users' | 'resourceInstances' | 'groups'>;

/** The role the service gives a group's direct members on the group's own instance. */
const MEMBER_ROLE = 'member';

/**
 * Roles with their permissions; instances and groups (each group is an instance of its type) with their
 * tenants; users' roles, tenant-wide or on an instance; memberships, links and group grants.
 *
 * Membership is the `member` role on the group's instance. Its holders are members (not role holders in
 * the graph), except when the `member` role has permissions: then the direct members also hold it on the
 * group's instance, as `/allowed` decides (links do not carry it to parent groups' instances).
 */
export function factsFromState(state: AccessSource): AccessFacts {
  const facts: AccessFacts = { roles: [], instances: [], tenantRoles: [], instanceRoles: [], memberships: [], links: [], groupGrants: [] };
  for (const r of state.roles.values()) facts.roles.push({ key: r.key, permissions: [...r.permissions] });
  for (const [id, i] of state.resourceInstances) facts.instances.push({ id, tenant: i.tenant });
  for (const [id, g] of state.groups) facts.instances.push({ id, tenant: g.tenant });
  for (const u of state.users.values()) {
    for (const r of u.roles) {
      if (r.on !== undefined) facts.instanceRoles.push({ user: u.key, role: r.role, instance: r.on });
      else facts.tenantRoles.push({ user: u.key, role: r.role, tenant: r.tenant });
    }
  }
  const memberHasPermissions = (state.roles.get(MEMBER_ROLE)?.permissions.length ?? 0) > 0;
  for (const [id, g] of state.groups) {
    for (const user of g.members) {
      facts.memberships.push({ user, group: id });
      if (memberHasPermissions) facts.instanceRoles.push({ user, role: MEMBER_ROLE, instance: id });
    }
    for (const parent of g.memberOf) facts.links.push({ child: id, parent });
    for (const r of g.roles) facts.groupGrants.push({ group: id, role: r.role, instance: r.on });
  }
  return facts;
}
