import type { AccessFacts, AccessPath, Decision, EffectiveGrant, Explanation, RoleHolding, Via } from './facts.js';
import { buildGroupIndex, getOrSet } from './groups.js';
import { explainAccess } from './explain.js';
import { cmp, comparePaths, compareVia, DIRECT, qualify, typeOf } from './paths.js';
import { buildRoleIndex } from './roles.js';

export interface AccessGraph {
  /** The facts the graph was built from (read-only; `diffAccess` uses them to find what changed). */
  readonly facts: AccessFacts;
  /** Every user named in the facts, sorted. */
  users(): string[];
  /** Roles the user holds on the instance, each with every path that grants it; sorted by role. */
  rolesOn(user: string, instance: string): RoleHolding[];
  /** `action` is `write` or `document:write`; a qualified action of another type is never allowed. */
  can(user: string, action: string, instance: string): Decision;
  /** A known role key is explained as a role, anything else as an action (see `can`). */
  explain(user: string, actionOrRole: string, instance: string): Explanation;
  /** Everything one user holds, sorted by instance then role. */
  grantsOf(user: string): EffectiveGrant[];
  /** Every (user, instance, role), sorted by user, instance, role. Lazy: consume it once per need. */
  effectiveGrants(): IterableIterator<EffectiveGrant>;
  /** Users holding the role (or, when it contains a colon, the permission) on the instance, sorted. */
  usersWith(roleOrPermission: string, instance: string): string[];
  /** Members of the group, directly or through nested groups, sorted. */
  membersOf(group: string): string[];
  /** The role's own and inherited permissions, sorted. */
  permissionsOf(role: string): string[];
  /** The instance's tenant, or null when the instance is not listed. */
  tenantOf(instance: string): string | null;
}

export interface AccessGraphOptions {
  /** Alternative group chains kept per (group, granting group) pair. The shortest is always kept. */
  maxChains?: number;
}

/** Builds the graph. Cheap: group closures are computed on first use and memoised. */
export function buildAccessGraph(facts: AccessFacts, options: AccessGraphOptions = {}): AccessGraph {
  const roles = buildRoleIndex(facts.roles);
  const groups = buildGroupIndex(facts, { maxChains: options.maxChains ?? 8 });
  const tenantOfInstance = new Map<string, string>();
  for (const i of facts.instances) if (!tenantOfInstance.has(i.id)) tenantOfInstance.set(i.id, i.tenant);
  const instancesOfTenant = new Map<string, string[]>();
  for (const [id, tenant] of tenantOfInstance) getOrSet(instancesOfTenant, tenant, () => []).push(id);

  // user → instance|tenant → roles, and the reverse, instance|tenant → role → users.
  const direct = nested(facts.instanceRoles.map((r) => [r.user, r.instance, r.role]));
  const tenantWide = nested(facts.tenantRoles.map((r) => [r.user, r.tenant, r.role]));
  const directHolders = nested(facts.instanceRoles.map((r) => [r.instance, r.role, r.user]));
  const tenantHolders = nested(facts.tenantRoles.map((r) => [r.tenant, r.role, r.user]));
  const grantsOn = new Map<string, { group: string; role: string }[]>();
  for (const g of facts.groupGrants) getOrSet(grantsOn, g.instance, () => []).push({ group: g.group, role: g.role });

  const allUsers = [
    ...new Set([...facts.instanceRoles, ...facts.tenantRoles, ...facts.memberships].map((f) => f.user)),
  ].sort(cmp);

  function rolesOn(user: string, instance: string): RoleHolding[] {
    const byRole = new Map<string, AccessPath[]>();
    const add = (role: string, path: AccessPath) => getOrSet(byRole, role, () => []).push(path);
    for (const role of direct.get(user)?.get(instance) ?? []) add(role, DIRECT);
    const tenant = tenantOfInstance.get(instance);
    if (tenant !== undefined) {
      const path: AccessPath = { kind: 'tenant', tenant };
      for (const role of tenantWide.get(user)?.get(tenant) ?? []) add(role, path);
    }
    for (const g of groups.directGroupsOf(user)) {
      for (const [role, paths] of groups.accessOf(g).get(instance) ?? []) for (const p of paths) add(role, p);
    }
    return [...byRole].sort(([a], [b]) => cmp(a, b)).map(([role, paths]) => ({ role, paths: sortPaths(paths) }));
  }

  function grantsOf(user: string): EffectiveGrant[] {
    const held = new Map<string, Map<string, AccessPath[]>>(); // instance → role → paths
    const add = (instance: string, role: string, path: AccessPath) =>
      getOrSet(getOrSet(held, instance, () => new Map()), role, () => []).push(path);
    for (const [instance, rs] of direct.get(user) ?? []) for (const role of rs) add(instance, role, DIRECT);
    for (const [tenant, rs] of tenantWide.get(user) ?? []) {
      const path: AccessPath = { kind: 'tenant', tenant };
      for (const instance of instancesOfTenant.get(tenant) ?? []) for (const role of rs) add(instance, role, path);
    }
    for (const g of groups.directGroupsOf(user)) {
      for (const [instance, byRole] of groups.accessOf(g)) {
        for (const [role, paths] of byRole) for (const p of paths) add(instance, role, p);
      }
    }
    const out: EffectiveGrant[] = [];
    for (const instance of [...held.keys()].sort(cmp)) {
      const byRole = held.get(instance)!;
      for (const role of [...byRole.keys()].sort(cmp)) {
        out.push({ user, instance, role, paths: sortPaths(byRole.get(role)!) });
      }
    }
    return out;
  }

  function can(user: string, action: string, instance: string): Decision {
    const permission = qualify(action, instance);
    const via: Via[] = [];
    if (permission !== null) {
      for (const { role, paths } of rolesOn(user, instance)) {
        if (roles.permissionsOf(role).has(permission)) for (const path of paths) via.push({ role, path });
      }
    }
    return { allowed: via.length > 0, via: via.sort(compareVia) };
  }

  function usersWith(roleOrPermission: string, instance: string): string[] {
    const wanted = roleOrPermission.includes(':')
      ? typeOf(roleOrPermission) === typeOf(instance)
        ? roles.rolesGranting(roleOrPermission)
        : []
      : [roleOrPermission];
    const users = new Set<string>();
    const tenant = tenantOfInstance.get(instance);
    for (const role of wanted) {
      for (const u of directHolders.get(instance)?.get(role) ?? []) users.add(u);
      if (tenant !== undefined) for (const u of tenantHolders.get(tenant)?.get(role) ?? []) users.add(u);
    }
    for (const { group, role } of grantsOn.get(instance) ?? []) {
      if (wanted.includes(role)) for (const u of groups.membersOf(group)) users.add(u);
    }
    return [...users].sort(cmp);
  }

  const graph: AccessGraph = {
    facts,
    users: () => [...allUsers],
    rolesOn,
    can,
    explain: (user, subject, instance) =>
      explainAccess({ graph, roles, grantsOn: grantsOn.get(instance) ?? [], user, subject, instance }),
    grantsOf,
    *effectiveGrants() {
      for (const user of allUsers) yield* grantsOf(user);
    },
    usersWith,
    membersOf: groups.membersOf,
    permissionsOf: (role) => [...roles.permissionsOf(role)].sort(cmp),
    tenantOf: (instance) => tenantOfInstance.get(instance) ?? null,
  };
  return graph;
}

function sortPaths(paths: AccessPath[]): AccessPath[] {
  return paths.length > 1 ? paths.sort(comparePaths) : paths;
}

/** a → b → set of c, from triples; duplicates collapse. */
function nested(triples: [string, string, string][]): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const [a, b, c] of triples) getOrSet(getOrSet(out, a, () => new Map()), b, () => new Set<string>()).add(c);
  return out;
}
