/**
 * The adapter from the configuration's and the service's shapes to the access graph's facts. Pure.
 * `DesiredState` and `LiveState` share their shapes (src/types/live.ts), so one function serves both.
 */
import type { DesiredState } from '../types/desired.js';
import type { LiveState } from '../types/live.js';
import { MEMBER_ROLE } from '../types/names.js';
import { resolveRoleKey, type AccessFacts } from './facts.js';

/** The parts of either state the graph needs. */
export type AccessSource = Pick<DesiredState | LiveState, 'roles' | 'users' | 'resourceInstances' | 'groups'> &
  Partial<Pick<DesiredState | LiveState, 'resources'>>;

/**
 * Roles with their permissions; instances and groups (each group is an instance of its type) with their
 * tenants; users' roles, tenant-wide or on an instance; memberships, links and group grants.
 *
 * Membership is the `member` role on the group's instance. Its holders are members (not role holders in
 * the graph), except when the `member` role has permissions or a derivation derives from it: then the
 * direct members also hold it on the group's instance, as `/allowed` decides; with a derivation from it,
 * so do the members through links. A group given `member` on another group is linked into it (the
 * service makes its members members of the other), besides holding the role there.
 */
export function factsFromState(state: AccessSource): AccessFacts {
  const facts: AccessFacts = { roles: [], instances: [], tenantRoles: [], instanceRoles: [], memberships: [], links: [], groupGrants: [] };
  for (const r of state.roles.values()) facts.roles.push({ key: r.key, permissions: [...r.permissions], ...(r.extends?.length ? { extends: [...r.extends] } : {}) });
  // Resource roles by identity `type#key`, their actions qualified, their `extends` within the resource.
  const resourceRoles = new Set<string>();
  for (const res of state.resources?.values() ?? []) for (const r of res.roles ?? []) resourceRoles.add(`${res.key}#${r.key}`);
  const on = (role: string, instance: string) => (resourceRoles.size === 0 ? role : resolveRoleKey(role, instance, (id) => resourceRoles.has(id)));
  for (const res of state.resources?.values() ?? []) {
    for (const r of res.roles ?? []) {
      facts.roles.push({ key: `${res.key}#${r.key}`, permissions: r.permissions.map((a) => `${res.key}:${a}`), extends: r.extends.map((e) => `${res.key}#${e}`) });
      for (const d of r.grantedTo ?? []) {
        // The deriving role is named on its resource as a role on an instance is: `team#member`, when
        // the group type has no resource role `member`, is the top-level role the memberships hold.
        const from = on(d.role, `${d.on}:`);
        (facts.derivations ??= []).push({ role: `${res.key}#${r.key}`, from, relation: d.via, ...(d.noDirectRolesOnObject ? { noDirect: true } : {}) });
      }
    }
  }
  for (const [object, i] of state.resourceInstances) {
    for (const t of i.relations ?? []) (facts.relationships ??= []).push({ subject: t.subject, relation: t.relation, object });
  }
  for (const [id, i] of state.resourceInstances) facts.instances.push({ id, tenant: i.tenant });
  for (const [id, g] of state.groups) facts.instances.push({ id, tenant: g.tenant });
  for (const u of state.users.values()) {
    for (const r of u.roles) {
      if (r.on !== undefined) facts.instanceRoles.push({ user: u.key, role: on(r.role, r.on), instance: r.on });
      else facts.tenantRoles.push({ user: u.key, role: r.role, tenant: r.tenant });
    }
  }
  const permissionsOf = new Map(facts.roles.map((r) => [r.key, r.permissions.length]));
  const derivedFrom = new Set(facts.derivations?.map((d) => d.from));
  for (const [id, g] of state.groups) {
    const member = on(MEMBER_ROLE, id);
    // The membership role matters as a role when it grants something itself or something derives from it.
    const memberHeld = (permissionsOf.get(member) ?? 0) > 0 || derivedFrom.has(member);
    for (const user of g.members) {
      facts.memberships.push({ user, group: id });
      if (memberHeld) facts.instanceRoles.push({ user, role: member, instance: id });
    }
    // Members through links hold it too (api-notes, "Groups": "for every purpose").
    if (derivedFrom.has(member)) facts.groupGrants.push({ group: id, role: member, instance: id });
    for (const parent of g.memberOf) facts.links.push({ child: id, parent });
    for (const r of g.roles) {
      const role = on(r.role, r.on);
      facts.groupGrants.push({ group: id, role, instance: r.on });
      // A group given the membership role on another group is linked into it, as the service reads it.
      if (state.groups.has(r.on) && role === on(MEMBER_ROLE, r.on)) facts.links.push({ child: id, parent: r.on });
    }
  }
  return facts;
}
