/**
 * The adapter from the configuration's and the service's shapes to the access graph's facts. Pure.
 * `DesiredState` and `LiveState` share their shapes (src/types/live.ts), so one function serves both.
 */
import type { DesiredState } from '../types/desired.js';
import type { LiveState } from '../types/live.js';
import { MEMBER_ROLE } from '../rules/names.js';
import { membershipEdge } from '../rules/groups.js';
import { extendsOf, qualifiedPermissions } from '../rules/roles.js';
import { setRuleKey } from '../types/abac.js';
import { resolveRoleKey, type AbacFacts, type AccessFacts } from './facts.js';
import { abacFromState } from './abac/model.js';
import { buildRoleIndex } from './roles.js';
import type { JsonObject } from './conditions/index.js';

/** The parts of either state the graph needs (the ABAC parts only when the state has set rules). */
export type AccessSource = Pick<DesiredState | LiveState, 'roles' | 'users' | 'resourceInstances' | 'groups'> &
  Partial<
    Pick<
      DesiredState | LiveState,
      'resources' | 'tenants' | 'userAttributes' | 'tenantAttributes' | 'conditionSets' | 'setRules'
    >
  >;

/**
 * Roles with their permissions; instances and groups (each group is an instance of its type) with their
 * tenants; users' roles, tenant-wide or on an instance; memberships, links and group grants.
 *
 * Membership is the `member` role on the group's instance. Its holders are members (not role holders in
 * the graph), except when the `member` role grants something or a derivation derives from it: then the
 * direct members also hold it on the group's instance, as `/allowed` decides, and so do the members
 * through links. A group given `member` on another group is linked into it (the
 * service makes its members members of the other), besides holding the role there.
 */
export function factsFromState(state: AccessSource): AccessFacts {
  const facts: AccessFacts = {
    roles: [],
    instances: [],
    tenantRoles: [],
    instanceRoles: [],
    memberships: [],
    links: [],
    groupGrants: [],
  };
  for (const r of state.roles.values())
    facts.roles.push({
      key: r.key,
      permissions: [...r.permissions],
      ...(r.extends?.length ? { extends: [...r.extends] } : {}),
    });
  // Resource roles by identity `type#key`, their actions qualified, their `extends` within the resource.
  const resourceRoles = new Set<string>();
  for (const res of state.resources?.values() ?? [])
    for (const r of res.roles ?? []) resourceRoles.add(`${res.key}#${r.key}`);
  const on = (role: string, instance: string) =>
    resourceRoles.size === 0 ? role : resolveRoleKey(role, instance, (id) => resourceRoles.has(id));
  for (const res of state.resources?.values() ?? []) {
    for (const r of res.roles ?? []) {
      facts.roles.push({
        key: `${res.key}#${r.key}`,
        permissions: qualifiedPermissions(res.key, r.permissions),
        extends: extendsOf({ resource: res.key, extends: r.extends }, (type, key) => `${type}#${key}`),
      });
      for (const d of r.grantedTo ?? []) {
        // The deriving role is named on its resource as a role on an instance is: `team#member`, when
        // the group type has no resource role `member`, is the top-level role the memberships hold.
        const from = on(d.role, `${d.on}:`);
        (facts.derivations ??= []).push({
          role: `${res.key}#${r.key}`,
          from,
          relation: d.via,
          ...(d.noDirectRolesOnObject ? { noDirect: true } : {}),
        });
      }
    }
  }
  for (const [object, i] of state.resourceInstances) {
    for (const t of i.relations ?? [])
      (facts.relationships ??= []).push({ subject: t.subject, relation: t.relation, object });
  }
  for (const [id, i] of state.resourceInstances) facts.instances.push({ id, tenant: i.tenant });
  for (const [id, g] of state.groups) facts.instances.push({ id, tenant: g.tenant });
  for (const u of state.users.values()) {
    for (const r of u.roles) {
      if (r.on !== undefined) facts.instanceRoles.push({ user: u.key, role: on(r.role, r.on), instance: r.on });
      else facts.tenantRoles.push({ user: u.key, role: r.role, tenant: r.tenant });
    }
  }
  const roleIndex = buildRoleIndex(facts.roles);
  const derivedFrom = new Set(facts.derivations?.map((d) => d.from));
  for (const [id, g] of state.groups) {
    const member = on(MEMBER_ROLE, id);
    // The membership role matters as a role when it grants something (itself or through `extends`) or
    // something derives from it.
    const memberHeld = roleIndex.permissionsOf(member).size > 0 || derivedFrom.has(member);
    for (const user of g.members) {
      facts.memberships.push({ user, group: id });
      if (memberHeld) facts.instanceRoles.push({ user, role: member, instance: id });
    }
    // Members through links (and through `member` given on the group) hold it too (api-notes, "Groups":
    // "for every purpose"; rules/groups.ts).
    if (memberHeld) facts.groupGrants.push({ group: id, role: member, instance: id });
    for (const parent of g.memberOf) facts.links.push({ child: id, parent });
    for (const r of g.roles) {
      const role = on(r.role, r.on);
      facts.groupGrants.push({ group: id, role, instance: r.on });
      // A group given the membership role on another group is linked into it, as the service reads it.
      if (membershipEdge(r.role, state.groups.has(r.on))) facts.links.push({ child: id, parent: r.on });
    }
  }
  if (state.setRules?.size) facts.abac = abacFacts(state);
  return facts;
}

/** The ABAC model and the stored facts its checks see (see `AbacFacts`). */
function abacFacts(state: AccessSource): AbacFacts {
  const view = abacFromState({
    resources: state.resources ?? new Map(),
    userAttributes: state.userAttributes ?? new Map(),
    tenantAttributes: state.tenantAttributes ?? new Map(),
    conditionSets: state.conditionSets ?? new Map(),
    setRules: state.setRules ?? new Map(),
  });
  const users = new Map<string, AbacFacts['users'] extends ReadonlyMap<string, infer U> ? U : never>();
  const userTenants = new Map<string, string[]>();
  const addTenant = (user: string, tenant: string) => {
    const list = userTenants.get(user);
    if (!list) userTenants.set(user, [tenant]);
    else if (!list.includes(tenant)) list.push(tenant);
  };
  for (const u of state.users.values()) {
    users.set(u.key, {
      ...(u.email ? { email: u.email } : {}),
      ...(u.first_name ? { first_name: u.first_name } : {}),
      ...(u.last_name ? { last_name: u.last_name } : {}),
      attributes: (u.attributes ?? {}) as JsonObject,
    });
    for (const r of u.roles) addTenant(u.key, r.tenant);
  }
  // Membership is a role assignment in the group's tenant (the `member` role on the group).
  for (const g of state.groups.values()) for (const m of g.members) addTenant(m, g.tenant);
  for (const list of userTenants.values()) list.sort();
  const tenants = new Map<string, JsonObject>();
  for (const t of state.tenants?.values() ?? []) tenants.set(t.key, (t.attributes ?? {}) as JsonObject);
  const instances = new Map<string, JsonObject>();
  for (const [id, i] of state.resourceInstances) instances.set(id, (i.attributes ?? {}) as JsonObject);
  for (const id of state.groups.keys()) if (!instances.has(id)) instances.set(id, {});
  const ruleKeys = view.model.rules.map((r) => setRuleKey(r));
  return { model: view.model, ruleKeys, defined: view.defined, users, userTenants, tenants, instances };
}
