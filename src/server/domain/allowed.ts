/**
 * The policy decision, independent of storage. A user may perform `action` on an instance of `type`
 * when some role they hold there (directly, tenant-wide, or through groups; see repo/allowed.ts) grants
 * the permission `type:action`, itself or through the roles it extends.
 */
export interface RoleDef {
  key: string;
  permissions: string[];
  extends: string[];
}

export async function rolesGrant(
  held: RoleDef[],
  permission: string,
  loadRoles: (keys: string[]) => Promise<RoleDef[]>,
): Promise<boolean> {
  const seen = new Set<string>();
  let frontier = held;
  while (frontier.length > 0) {
    const next = new Set<string>();
    for (const r of frontier) {
      if (seen.has(r.key)) continue;
      seen.add(r.key);
      if (r.permissions.includes(permission)) return true;
      for (const e of r.extends) if (!seen.has(e)) next.add(e);
    }
    frontier = next.size > 0 ? await loadRoles([...next]) : [];
  }
  return false;
}
