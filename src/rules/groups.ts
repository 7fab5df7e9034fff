/**
 * Groups and membership. A group is an instance of its group type (`team:a`); its members hold the type's
 * resource role `member` on that instance. A member of a group is a member of every group above it,
 * transitively, for every purpose (the other group's roles, its own `member`, and so derivations from
 * `<type>#member`). "Above" is one of two edges:
 *   - a link (`assign_group`, `links`): child → parent;
 *   - a group given the membership role on another group's instance (`membershipEdge`).
 * Cycles are followed (every member of a group on a cycle is a member of every group on it) and never
 * looped. The service refuses a link that would close a cycle (`findCycle`), but not a `member` grant.
 */
import { GROUP_TYPE, MEMBER_ROLE } from './names.js';

/**
 * Whether a role named on a group's instance is membership of that group: the key `member`, which there
 * names the group type's resource role (the service creates it with the type's first group, and a role
 * named on an instance is the resource role of the instance's type when it has one). In SQL, a role row
 * is a membership role when it is a resource role keyed `member` (src/server/repo/groups.ts).
 */
export const isMembershipRole = (key: string) => key === MEMBER_ROLE;

/**
 * Whether a group's grant makes its members members of the instance it is given on: the membership role
 * on an instance that is a group. It is an edge up, as a link is.
 */
export const membershipEdge = (roleKey: string, onGroup: boolean) => onGroup && isMembershipRole(roleKey);

/**
 * Chains from `source` up to every group it reaches (itself included, as `[source]`), at most
 * `maxChains` per group, in (length, group keys) order, given each group's parents sorted.
 *
 * Breadth first over simple paths, extending only the chains that were kept. In a DAG that is exact: a
 * chain that was not kept is beaten by `maxChains` kept chains to the same group, and so is every
 * extension of it. With cycles, alternatives may be missed (a kept prefix could contain a later group),
 * but every reachable group is reached: the first chain to a group is always kept.
 */
export function reachFrom(
  source: string,
  parents: ReadonlyMap<string, readonly string[]>,
  maxChains: number,
): Map<string, string[][]> {
  const out = new Map<string, string[][]>([[source, [[source]]]]);
  let level: string[][] = [[source]];
  while (level.length > 0) {
    const next: string[][] = [];
    // Levels are in key order and parents are sorted, so each level comes out in key order too.
    for (const chain of level) {
      for (const p of parents.get(chain[chain.length - 1]) ?? []) {
        if (chain.includes(p)) continue;
        let kept = out.get(p);
        if (!kept) out.set(p, (kept = []));
        if (kept.length >= maxChains) continue;
        const longer = [...chain, p];
        kept.push(longer);
        next.push(longer);
      }
    }
    level = next;
  }
  return out;
}

/**
 * The path that linking `child` under `parent` would close into a cycle, or null. Walking up from
 * `parent` through its parents (read level by level from a store): reaching `child` means `child` is
 * already an ancestor of `parent`. Returns the cycle as ids: child → parent → ... → child.
 */
export async function findCycle(
  child: string,
  parent: string,
  parentsOf: (ids: string[]) => Promise<{ child_id: string; parent_id: string }[]>,
): Promise<string[] | null> {
  if (child === parent) return [child, child];
  const cameFrom = new Map<string, string>([[parent, '']]);
  let frontier = [parent];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const edge of await parentsOf(frontier)) {
      if (cameFrom.has(edge.parent_id)) continue;
      cameFrom.set(edge.parent_id, edge.child_id);
      if (edge.parent_id === child) {
        const path = [child];
        for (let at = edge.child_id; at; at = cameFrom.get(at)!) path.push(at);
        // path is child ← ... ← parent reversed; the cycle reads child → parent → ... → child.
        return [child, ...path.slice(1).reverse(), child];
      }
      next.push(edge.parent_id);
    }
    frontier = next;
  }
  return null;
}

/** Group references: `type:key`; a bare key is of the default type `group`. */
export function parseGroupRef(ref: string): { type: string; key: string } {
  const i = ref.indexOf(':');
  return i < 0 ? { type: GROUP_TYPE, key: ref } : { type: ref.slice(0, i), key: ref.slice(i + 1) };
}
