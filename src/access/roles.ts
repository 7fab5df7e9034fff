import type { RoleFact } from './facts.js';

export interface RoleIndex {
  /** Own and inherited permissions (`resource:action`); empty for an unknown role. */
  permissionsOf(role: string): ReadonlySet<string>;
  /** Roles whose permissions (own or inherited) include `permission`, sorted. */
  rolesGranting(permission: string): string[];
}

/**
 * Resolves `extends` transitively, once per role. A cycle in `extends` is tolerated: every role on the
 * cycle ends up with the permissions of all of them (a visited set stops the walk).
 */
export function buildRoleIndex(roles: readonly RoleFact[]): RoleIndex {
  const byKey = new Map<string, RoleFact>();
  for (const r of roles) if (!byKey.has(r.key)) byKey.set(r.key, r);
  const closed = new Map<string, ReadonlySet<string>>();
  const granting = new Map<string, string[]>();

  function permissionsOf(role: string): ReadonlySet<string> {
    const known = closed.get(role);
    if (known) return known;
    const perms = new Set<string>();
    const seen = new Set<string>([role]);
    const stack = [role];
    while (stack.length > 0) {
      const def = byKey.get(stack.pop()!);
      if (!def) continue;
      for (const p of def.permissions) perms.add(p);
      for (const parent of def.extends ?? []) {
        if (!seen.has(parent)) {
          seen.add(parent);
          stack.push(parent);
        }
      }
    }
    closed.set(role, perms);
    return perms;
  }

  function rolesGranting(permission: string): string[] {
    let found = granting.get(permission);
    if (!found) {
      found = [...byKey.keys()].filter((k) => permissionsOf(k).has(permission)).sort();
      granting.set(permission, found);
    }
    return [...found];
  }

  return { permissionsOf, rolesGranting };
}
