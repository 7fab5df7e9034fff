/**
 * Group rules that do not depend on storage. A link `child → parent` makes every member of the child a
 * member of the parent; links form a DAG per type and tenant.
 */

/**
 * The path that linking `child` under `parent` would close into a cycle, or null. Walking up from
 * `parent` through its parents: reaching `child` means `child` is already an ancestor of `parent`.
 * Returns the cycle as ids, starting and ending at `child`: child → parent → ... → child.
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
  return i < 0 ? { type: 'group', key: ref } : { type: ref.slice(0, i), key: ref.slice(i + 1) };
}
