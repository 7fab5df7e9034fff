import {
  resolveRoleKey,
  type AccessFacts,
  type AccessPath,
  type Decision,
  type EffectiveGrant,
  type Explanation,
  type RoleHolding,
  type Via,
} from './facts.js';
import { buildGroupIndex, getOrSet, lazy, type GroupIndex } from './groups.js';
import { explainAccess } from './explain.js';
import { cmp, comparePaths, compareVia, DIRECT } from './paths.js';
import { qualify, typeOf } from '../types/refs.js';
import { buildRoleIndex, type RoleIndex } from './roles.js';
import {
  buildDerivationIndex,
  derivationCache,
  derive,
  joinDerivedPaths,
  upstreamOf,
  type DerivationCache,
  type DerivationIndex,
} from './derive.js';
import { compareHeld, mergeHeld, rangeOf, type Held } from './held.js';
import { buildAbacIndex, type AbacIndex, type AbacMemo } from './abac/graph.js';
import { feedsDerivations } from '../rules/derivations.js';

/**
 * One source of a user's holdings, with what it derives: the user's direct roles, their tenant-wide roles
 * in one tenant, or one group they are a direct member of. `shared` sources are the same list for every
 * user who has them (so `key` names the same holdings for all); the others are the user's own.
 */
export interface HeldSource {
  key: string;
  shared: boolean;
  /** Sorted by (instance, role). */
  held: readonly Held[];
  /**
   * A tenant-wide source: the tenant and the roles held there (sorted). Its `held` lists every instance
   * of the tenant with each of them; they derive nothing (rules/derivations.ts, `feedsDerivations`).
   */
  tenant?: { tenant: string; roles: readonly string[] };
}

export interface AccessGraph {
  /** The facts the graph was built from (read-only; `diffAccess` uses them to find what changed). */
  readonly facts: AccessFacts;
  /** Every user named in the facts, sorted. */
  users(): string[];
  /** Roles the user holds on the instance, each with every path that grants it; sorted by role. */
  rolesOn(user: string, instance: string): RoleHolding[];
  /**
   * For one user: whether a role they hold on the instance (by any path) grants the permission, as
   * `rolesOn` decides it without building its paths (the user's own holdings looked up once).
   */
  roleGrants(user: string): (permission: string, instance: string) => boolean;
  /**
   * `action` is `write` or `document:write`; a qualified action of another type is never allowed. Through
   * roles (`via`) or set rules (`rules`, when the facts have ABAC): a check on the instance in its tenant
   * passing no attributes and no context, as `/allowed` decides it.
   */
  can(user: string, action: string, instance: string): Decision;
  /** Attribute-based access (abac/graph.ts), when the facts have set rules. */
  readonly abac: AbacIndex | undefined;
  /** A known role key is explained as a role, anything else as an action (see `can`). */
  explain(user: string, actionOrRole: string, instance: string): Explanation;
  /** Everything one user holds, sorted by instance then role. */
  grantsOf(user: string): readonly EffectiveGrant[];
  /** `grantsOf` without the user on each entry (the merge of `sourcesOf`): what the access diff walks. */
  heldOf(user: string): readonly Held[];
  /** The user's holdings by source (their merge is `grantsOf`), sorted by key. */
  sourcesOf(user: string): readonly HeldSource[];
  /** Every (user, instance, role), sorted by user, instance, role. Lazy: consume it once per need. */
  effectiveGrants(): IterableIterator<EffectiveGrant>;
  /** Users holding the role (or, when it contains a colon, the permission, set rules included) on the instance, sorted. */
  usersWith(roleOrPermission: string, instance: string): string[];
  /**
   * Users who may hold a role on any of the instances: those holding one on them, or on an instance from
   * which a role derivation can reach them (directly, tenant-wide or through a group). A superset of
   * the holders; sorted.
   */
  usersReaching(instances: Iterable<string>): string[];
  /** Members of the group, directly or through nested groups, sorted. */
  membersOf(group: string): string[];
  /** Groups whose members are members of `group` through links (itself included), sorted. */
  subgroupsOf(group: string): string[];
  /** What every member of the group holds through it, sorted by instance then role. */
  grantsThrough(group: string): { instance: string; role: string; paths: readonly AccessPath[] }[];
  /** The role's own and inherited permissions, sorted. */
  permissionsOf(role: string): string[];
  /** The instance's tenant, or null when the instance is not listed. */
  tenantOf(instance: string): string | null;
  /** The identity of role `role` held on `instance`: `type#role` when the type has that resource role, else `role`. */
  roleOn(role: string, instance: string): string;
}

export interface AccessGraphOptions {
  /** Alternative group chains kept per (group, granting group) pair. The shortest is always kept. */
  maxChains?: number;
  /** Shared by graphs built for comparison (a plan's before and after): what shared sources derive is reused. */
  derivations?: DerivationCache;
  /** Shared by graphs built for comparison: set outcomes on equal attributes are reused (abac/graph.ts). */
  abacMemo?: AbacMemo;
}

/**
 * Builds the graph, in named steps: the facts indexed (`indexFacts`), each user's holdings without
 * derivations (`baseHoldings`), with them (`derivedHoldings`), and the questions over both
 * (`roleQuestions`, `holderQuestions`). Cheap: group closures are computed on first use and memoised.
 */
export function buildAccessGraph(facts: AccessFacts, options: AccessGraphOptions = {}): AccessGraph {
  const ix = indexFacts(facts, options);
  const base = baseHoldings(ix);
  const held = derivedHoldings(ix, base, options);
  const { roleGrants, can } = roleQuestions(ix, held, buildAbacIndex(facts, options.abacMemo));
  const { usersReaching, usersWith } = holderQuestions(ix, held, can.abac);
  const grantsOf = (user: string): readonly EffectiveGrant[] =>
    held.heldOf(user).map(({ instance, role, paths }) => ({ user, instance, role, paths }));
  const { roles, groups, grantsOn, tenantOfInstance, allUsers } = ix;
  const graph: AccessGraph = {
    facts,
    users: () => [...allUsers()],
    rolesOn: held.rolesOn,
    roleGrants,
    can: can.decide,
    explain: (user, subject, instance) =>
      explainAccess({ graph, roles, grantsOn: grantsOn.get(instance) ?? [], user, subject, instance }),
    grantsOf,
    heldOf: held.heldOf,
    sourcesOf: held.sourcesOf,
    usersReaching,
    *effectiveGrants() {
      for (const user of allUsers()) yield* grantsOf(user);
    },
    usersWith,
    membersOf: groups.membersOf,
    subgroupsOf: (group) => [...groups.descendantsOf(group)].sort(cmp),
    grantsThrough: (group) => [...base.heldThrough(group)],
    permissionsOf: (role) => [...roles.permissionsOf(role)].sort(cmp),
    tenantOf: (instance) => tenantOfInstance.get(instance) ?? null,
    roleOn: ix.roleOn,
    abac: can.abac,
  };
  return graph;
}

type Nested = Map<string, Map<string, Set<string>>>;

/** The facts indexed once per graph: roles, groups, tenants, and who holds what where, both ways. */
interface FactIndex {
  roles: RoleIndex;
  roleOn: (role: string, instance: string) => string;
  groups: GroupIndex;
  tenantOfInstance: Map<string, string>;
  instancesOfTenant: Map<string, string[]>;
  /** user → instance|tenant → roles. */
  direct: Nested;
  tenantWide: Nested;
  /** instance|tenant → role → users (for the holder questions only: built on first use). */
  directHolders: () => Nested;
  tenantHolders: () => Nested;
  grantsOn: Map<string, { group: string; role: string }[]>;
  /** Built on first use (`users`, `effectiveGrants`). */
  allUsers: () => string[];
  /** Role derivations over tuples, when the facts have both. */
  derivations: DerivationIndex | undefined;
}

function indexFacts(facts: AccessFacts, options: AccessGraphOptions): FactIndex {
  const resourceRoles = new Set(facts.roles.filter((r) => r.key.includes('#')).map((r) => r.key));
  const roleOn = (role: string, instance: string) =>
    resourceRoles.size === 0 || role.includes('#')
      ? role
      : resolveRoleKey(role, instance, (id) => resourceRoles.has(id));
  const tenantOfInstance = new Map<string, string>();
  for (const i of facts.instances) if (!tenantOfInstance.has(i.id)) tenantOfInstance.set(i.id, i.tenant);
  const instancesOfTenant = new Map<string, string[]>();
  for (const [id, tenant] of tenantOfInstance) getOrSet(instancesOfTenant, tenant, () => []).push(id);
  const grantsOn = new Map<string, { group: string; role: string }[]>();
  for (const g of facts.groupGrants) getOrSet(grantsOn, g.instance, () => []).push({ group: g.group, role: g.role });
  return {
    roles: buildRoleIndex(facts.roles),
    roleOn,
    groups: buildGroupIndex(facts, { maxChains: options.maxChains ?? 8 }),
    tenantOfInstance,
    instancesOfTenant,
    direct: nested(facts.instanceRoles, (r) => [r.user, r.instance, r.role]),
    tenantWide: nested(facts.tenantRoles, (r) => [r.user, r.tenant, r.role]),
    directHolders: lazy(() => nested(facts.instanceRoles, (r) => [r.instance, r.role, r.user])),
    tenantHolders: lazy(() => nested(facts.tenantRoles, (r) => [r.tenant, r.role, r.user])),
    grantsOn,
    allUsers: lazy(() => usersOf(facts)),
    derivations: buildDerivationIndex(facts),
  };
}

/** A user's holdings without derivations: on one instance, through one group, and by source. */
interface BaseHoldings {
  baseRolesOn(user: string, instance: string): RoleHolding[];
  /** What a group's members hold through it, sorted by (instance, role); memoised. */
  heldThrough(group: string): readonly Held[];
  baseSources(user: string): HeldSource[];
}

function baseHoldings(ix: FactIndex): BaseHoldings {
  const { direct, tenantWide, tenantOfInstance, instancesOfTenant, groups } = ix;
  function baseRolesOn(user: string, instance: string): RoleHolding[] {
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

  // Sorted (instance, role) lists, memoised: per group, and per tenant × role set.
  const throughGroup = new Map<string, readonly Held[]>();
  function heldThrough(group: string): readonly Held[] {
    const known = throughGroup.get(group);
    if (known) return known;
    const list = [...groups.accessOf(group)].flatMap(([instance, byRole]) =>
      [...byRole].map(([role, paths]): Held => ({ instance, role, paths })),
    );
    throughGroup.set(group, list.sort(compareHeld));
    return list;
  }
  const tenantLists = new Map<string, HeldSource>();
  function tenantSource(tenant: string, rs: ReadonlySet<string>): HeldSource {
    const key = `tenant\u0000${tenant}\u0000${[...rs].sort(cmp).join('\u0000')}`;
    let source = tenantLists.get(key);
    if (!source) {
      const paths = [{ kind: 'tenant', tenant } as const];
      const held = (instancesOfTenant.get(tenant) ?? [])
        .flatMap((instance) => [...rs].map((role) => ({ instance, role, paths })))
        .sort(compareHeld);
      tenantLists.set(key, (source = { key, shared: true, held, tenant: { tenant, roles: [...rs].sort(cmp) } }));
    }
    return source;
  }

  function baseSources(user: string): HeldSource[] {
    const out: HeldSource[] = [];
    const mine = direct.get(user);
    if (mine) {
      const paths = [DIRECT];
      const held = [...mine]
        .flatMap(([instance, rs]) => [...rs].map((role) => ({ instance, role, paths })))
        .sort(compareHeld);
      out.push({ key: 'direct', shared: false, held });
    }
    for (const [tenant, rs] of tenantWide.get(user) ?? []) out.push(tenantSource(tenant, rs));
    for (const g of groups.directGroupsOf(user))
      out.push({ key: `group\u0000${g}`, shared: true, held: heldThrough(g) });
    return out.sort((a, b) => cmp(a.key, b.key));
  }
  return { baseRolesOn, heldThrough, baseSources };
}

/** A user's holdings with what they derive (the base ones when the facts have no derivation). */
interface DerivedHoldings {
  sourcesOf(user: string): readonly HeldSource[];
  heldOf(user: string): readonly Held[];
  rolesOn(user: string, instance: string): RoleHolding[];
}

/**
 * Role derivations over tuples, when the facts have both. A shared source is derived once for all the
 * users who have it; a user's own direct roles, with `no_direct_roles_on_object` blocking where they are.
 * A user whose direct roles block a rule a shared source used is derived whole (derive.ts).
 */
function derivedHoldings(ix: FactIndex, base: BaseHoldings, options: AccessGraphOptions): DerivedHoldings {
  const { derivations, direct } = ix;
  const derivedShared = options.derivations ?? derivationCache();
  const sourcesMemo = new Map<string, readonly HeldSource[]>();
  function sourcesOf(user: string): readonly HeldSource[] {
    if (!derivations) return base.baseSources(user);
    const known = sourcesMemo.get(user);
    if (known) return known;
    const sources = base.baseSources(user);
    const blocked: ReadonlySet<string> = new Set(direct.get(user)?.keys() ?? []);
    // Tenant-wide roles derive nothing (rules/derivations.ts): kept as they are.
    const feeds = (s: HeldSource) => feedsDerivations(s.tenant ? 'tenant' : s.shared ? 'group' : 'direct');
    let out: HeldSource[] = [];
    for (const s of sources) {
      if (!feeds(s)) {
        out.push(s);
        continue;
      }
      if (!s.shared) {
        out.push({ ...s, held: derive(s.held, derivations, blocked).held });
        continue;
      }
      const d = derivedShared.derive(s.key, s.held, derivations);
      if ([...blocked].some((i) => d.noDirectTargets.has(i))) {
        const all = mergeHeld(sources.filter(feeds).map((b) => b.held));
        out = [{ key: 'user', shared: false, held: derive(all, derivations, blocked).held }];
        out.push(...sources.filter((b) => !feeds(b)));
        out.sort((a, b) => cmp(a.key, b.key));
        break;
      }
      out.push({ ...s, held: d.held });
    }
    sourcesMemo.set(user, out);
    return out;
  }

  // Without derivations a user's holdings are cheap to merge again; with them, keep them.
  const heldMemo = new Map<string, readonly Held[]>();
  function heldOf(user: string): readonly Held[] {
    const known = heldMemo.get(user);
    if (known) return known;
    const merged = mergeHeld(
      sourcesOf(user).map((s) => s.held),
      derivations ? joinDerivedPaths : undefined,
    );
    if (derivations) heldMemo.set(user, merged);
    return merged;
  }

  function rolesOn(user: string, instance: string): RoleHolding[] {
    if (!derivations) return base.baseRolesOn(user, instance);
    const parts: Held[][] = [];
    for (const s of sourcesOf(user)) {
      const [from, to] = rangeOf(s.held, instance);
      if (to > from) parts.push(s.held.slice(from, to));
    }
    return mergeHeld(parts, joinDerivedPaths).map(({ role, paths }) => ({ role, paths }));
  }
  return { sourcesOf, heldOf, rolesOn };
}

/** Whether a user's roles grant a permission (`roleGrants`), and the decision with its reasons (`can`). */
function roleQuestions(ix: FactIndex, held: DerivedHoldings, abac: AbacIndex | undefined) {
  const { roles, direct, tenantWide, tenantOfInstance, groups, derivations } = ix;
  function roleGrants(user: string): (permission: string, instance: string) => boolean {
    if (derivations)
      return (permission, instance) =>
        held.rolesOn(user, instance).some((r) => roles.permissionsOf(r.role).has(permission));
    const mine = direct.get(user);
    const wide = tenantWide.get(user);
    const through = groups.directGroupsOf(user).map((g) => groups.accessOf(g));
    const any = (rs: Iterable<string> | undefined, permission: string) => {
      if (rs) for (const role of rs) if (roles.permissionsOf(role).has(permission)) return true;
      return false;
    };
    return (permission, instance) => {
      if (mine && any(mine.get(instance), permission)) return true;
      if (wide) {
        const tenant = tenantOfInstance.get(instance);
        if (tenant !== undefined && any(wide.get(tenant), permission)) return true;
      }
      for (const access of through) if (any(access.get(instance)?.keys(), permission)) return true;
      return false;
    };
  }

  function decide(user: string, action: string, instance: string): Decision {
    const permission = qualify(action, instance);
    const via: Via[] = [];
    if (permission !== null) {
      for (const { role, paths } of held.rolesOn(user, instance)) {
        if (roles.permissionsOf(role).has(permission)) for (const path of paths) via.push({ role, path });
      }
    }
    if (!abac) return { allowed: via.length > 0, via: via.sort(compareVia) };
    const rules = permission === null ? [] : abac.allowing(user, permission, instance);
    return { allowed: via.length > 0 || rules.length > 0, via: via.sort(compareVia), rules };
  }
  return { roleGrants, can: { decide, abac } };
}

/** Who may hold a role on some instances (`usersReaching`), and who holds one or a permission (`usersWith`). */
function holderQuestions(ix: FactIndex, held: DerivedHoldings, abac: AbacIndex | undefined) {
  const { roles, derivations, directHolders, tenantHolders, tenantOfInstance, grantsOn, groups, roleOn } = ix;
  function usersReaching(instances: Iterable<string>): string[] {
    const from = derivations ? upstreamOf(instances, derivations) : new Set(instances);
    const users = new Set<string>();
    const tenants = new Set<string>();
    for (const instance of from) {
      for (const holders of directHolders().get(instance)?.values() ?? []) for (const u of holders) users.add(u);
      const tenant = tenantOfInstance.get(instance);
      if (tenant !== undefined) tenants.add(tenant);
      for (const { group } of grantsOn.get(instance) ?? []) for (const u of groups.membersOf(group)) users.add(u);
    }
    for (const tenant of tenants)
      for (const holders of tenantHolders().get(tenant)?.values() ?? []) for (const u of holders) users.add(u);
    return [...users].sort(cmp);
  }

  function usersWith(roleOrPermission: string, instance: string): string[] {
    const isPermission = roleOrPermission.includes(':');
    const sameType = isPermission && typeOf(roleOrPermission) === typeOf(instance);
    const wanted = isPermission
      ? sameType
        ? roles.rolesGranting(roleOrPermission)
        : []
      : [roleOn(roleOrPermission, instance)];
    // Users a set rule allows (a permission only).
    const byRules =
      abac && sameType ? abac.users().filter((u) => abac.allowing(u, roleOrPermission, instance).length > 0) : [];
    // Derived holders are found among the users who hold a role upstream (a role on a related instance may derive it).
    if (derivations)
      return [
        ...new Set([
          ...usersReaching([instance]).filter((u) => held.rolesOn(u, instance).some((h) => wanted.includes(h.role))),
          ...byRules,
        ]),
      ].sort(cmp);
    const users = new Set<string>(byRules);
    const tenant = tenantOfInstance.get(instance);
    for (const role of wanted) {
      for (const u of directHolders().get(instance)?.get(role) ?? []) users.add(u);
      if (tenant !== undefined) for (const u of tenantHolders().get(tenant)?.get(role) ?? []) users.add(u);
    }
    for (const { group, role } of grantsOn.get(instance) ?? []) {
      if (wanted.includes(role)) for (const u of groups.membersOf(group)) users.add(u);
    }
    return [...users].sort(cmp);
  }
  return { usersReaching, usersWith };
}

function sortPaths(paths: AccessPath[]): AccessPath[] {
  return paths.length > 1 ? paths.sort(comparePaths) : paths;
}

/** a → b → set of c, from each item's triple; duplicates collapse. */
function nested<T>(items: readonly T[], triple: (item: T) => [string, string, string]): Nested {
  const out: Nested = new Map();
  for (const item of items) {
    const [a, b, c] = triple(item);
    getOrSet(
      getOrSet(out, a, () => new Map()),
      b,
      () => new Set<string>(),
    ).add(c);
  }
  return out;
}

/** Every user named in the facts (roles either way, memberships), sorted. */
function usersOf(facts: AccessFacts): string[] {
  const users = new Set<string>();
  for (const list of [facts.instanceRoles, facts.tenantRoles, facts.memberships])
    for (const f of list) users.add(f.user);
  return [...users].sort(cmp);
}

/**
 * Whether `role` grants any permission on the type of `instance`. A role held tenant-wide is held on
 * every instance of its tenant, but says nothing about one of a type it grants nothing on: the access
 * section (diff.ts) and the plan's undeclared block leave such holdings out.
 */
export function grantsOnType(graph: Pick<AccessGraph, 'permissionsOf'>, role: string, instance: string): boolean {
  const type = typeOf(instance);
  return graph.permissionsOf(role).some((p) => typeOf(p) === type);
}
