import type { AccessFacts, AccessPath } from './facts.js';
import { cmp, compareChains } from './paths.js';
import { reachFrom } from '../rules/groups.js';

type GroupPath = Extract<AccessPath, { kind: 'group' }>;

/** What one group's members hold through it: instance → role → chains starting at that group. */
export type GroupAccess = ReadonlyMap<string, ReadonlyMap<string, readonly GroupPath[]>>;

export interface GroupIndex {
  /** Groups the user is a direct member of, sorted. */
  directGroupsOf(user: string): readonly string[];
  /** What membership of `group` grants, memoised per group. */
  accessOf(group: string): GroupAccess;
  /** Groups whose members are members of `group` (itself included), through links in reverse. */
  descendantsOf(group: string): Set<string>;
  /** Users who are members of `group` directly or through nested groups, sorted. */
  membersOf(group: string): string[];
}

export interface GroupIndexOptions {
  /** Alternative chains kept per (group, ancestor) pair; the shortest is always kept. */
  maxChains: number;
}

/**
 * Group nesting. Each group's ancestor closure is walked once, breadth first, and memoised; so is what the
 * group grants. Cycles are followed (every member of a group on a cycle is a member of every group on it)
 * and never looped: a chain never repeats a group.
 */
export function buildGroupIndex(facts: AccessFacts, options: GroupIndexOptions): GroupIndex {
  const parents = multimap(facts.links, 'child', 'parent');
  const groupsOfUser = multimap(facts.memberships, 'user', 'group');
  // The reverse edges serve `membersOf` and `descendantsOf` only (not `can` nor a user's holdings): built on
  // first use, unsorted (both answers are sets; `membersOf` sorts its users once).
  const children = lazy(() => multiset(facts.links, 'parent', 'child'));
  const usersOfGroup = lazy(() => multiset(facts.memberships, 'group', 'user'));
  const grantsOf = new Map<string, Map<string, Set<string>>>(); // group → instance → roles
  for (const g of facts.groupGrants) {
    const byInstance = getOrSet(grantsOf, g.group, () => new Map<string, Set<string>>());
    getOrSet(byInstance, g.instance, () => new Set<string>()).add(g.role);
  }
  const access = new Map<string, GroupAccess>();

  function accessOf(group: string): GroupAccess {
    const known = access.get(group);
    if (known) return known;
    const out = new Map<string, Map<string, GroupPath[]>>();
    for (const [granting, chains] of reachFrom(group, parents, options.maxChains)) {
      const grants = grantsOf.get(granting);
      if (!grants) continue;
      const paths = chains.map((chain): GroupPath => ({ kind: 'group', chain }));
      for (const [instance, roles] of grants) {
        const byRole = getOrSet(out, instance, () => new Map<string, GroupPath[]>());
        for (const role of roles) {
          const list = byRole.get(role);
          if (list) list.push(...paths);
          else byRole.set(role, [...paths]);
        }
      }
    }
    // Several granting groups may give the same role on the same instance: keep chains in order.
    for (const byRole of out.values()) {
      for (const list of byRole.values()) if (list.length > 1) list.sort((a, b) => compareChains(a.chain, b.chain));
    }
    access.set(group, out);
    return out;
  }

  function descendantsOf(group: string): Set<string> {
    const seen = new Set([group]);
    const stack = [group];
    while (stack.length > 0) {
      for (const c of children().get(stack.pop()!) ?? []) {
        if (!seen.has(c)) {
          seen.add(c);
          stack.push(c);
        }
      }
    }
    return seen;
  }

  function membersOf(group: string): string[] {
    const users = new Set<string>();
    for (const g of descendantsOf(group)) for (const u of usersOfGroup().get(g) ?? []) users.add(u);
    return [...users].sort(cmp);
  }

  return {
    directGroupsOf: (user) => groupsOfUser.get(user) ?? [],
    accessOf,
    descendantsOf,
    membersOf,
  };
}

/** item[key] → the set of item[value]s. */
function multiset<K extends string, V extends string>(
  items: readonly Record<K | V, string>[],
  key: K,
  value: V,
): Map<string, Set<string>> {
  const sets = new Map<string, Set<string>>();
  for (const item of items) getOrSet(sets, item[key], () => new Set<string>()).add(item[value]);
  return sets;
}

/** item[key] → sorted, de-duplicated item[value]s. */
function multimap<K extends string, V extends string>(
  items: readonly Record<K | V, string>[],
  key: K,
  value: V,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, vs] of multiset(items, key, value)) out.set(k, [...vs].sort(cmp));
  return out;
}

export function getOrSet<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/** `make()` on the first call, the same value after. */
export function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}
