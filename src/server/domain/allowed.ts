/**
 * The policy decision, independent of storage. A user may perform `action` on an instance of type T
 * when some role they hold there (directly, tenant-wide, or through groups; see repo/allowed.ts) allows
 * it, itself or through the roles it extends (transitively):
 *   - a resource role of T (`resource` set) allows when it lists the action key (`read`); it extends
 *     other roles of the same resource;
 *   - a top-level role (`resource` null) allows when it lists `T:action`; it extends top-level roles.
 */
export interface RoleDef {
  key: string;
  /** The id of the resource the role belongs to; null for a top-level role. */
  resource: string | null;
  permissions: string[];
  extends: string[];
}

export interface Wanted {
  /** The instance's resource id (T). */
  resource: string | null;
  /** T's key and the action: `T:action` for top-level roles, `action` for T's own. */
  type: string;
  action: string;
}

export function roleAllows(r: RoleDef, w: Wanted): boolean {
  if (r.resource === null) return r.permissions.includes(`${w.type}:${w.action}`);
  return r.resource === w.resource && r.permissions.includes(w.action);
}

export async function rolesGrant(
  held: RoleDef[],
  wanted: Wanted,
  loadRoles: (resource: string | null, keys: string[]) => Promise<RoleDef[]>,
): Promise<boolean> {
  const seen = new Set<string>();
  const id = (resource: string | null, key: string) => `${resource ?? ''}#${key}`;
  let frontier = held;
  while (frontier.length > 0) {
    const next = new Map<string | null, Set<string>>();
    for (const r of frontier) {
      if (seen.has(id(r.resource, r.key))) continue;
      seen.add(id(r.resource, r.key));
      if (roleAllows(r, wanted)) return true;
      for (const e of r.extends) {
        if (!seen.has(id(r.resource, e)))
          (next.get(r.resource) ?? next.set(r.resource, new Set()).get(r.resource)!).add(e);
      }
    }
    frontier = (await Promise.all([...next].map(([resource, keys]) => loadRoles(resource, [...keys])))).flat();
  }
  return false;
}
