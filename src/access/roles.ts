import { closedPermissions, type RoleNode } from '../rules/roles.js';
import type { RoleFact } from './facts.js';

export interface RoleIndex {
  /** Own and inherited permissions (`resource:action`); empty for an unknown role. */
  permissionsOf(role: string): ReadonlySet<string>;
  /** Roles whose permissions (own or inherited) include `permission`, sorted. */
  rolesGranting(permission: string): string[];
}

/**
 * Resolves `extends` transitively, once per role, by the rulebook's walk (rules/roles.ts) over the roles
 * in memory. A cycle in `extends` is tolerated: every role on the cycle ends up with the permissions of
 * all of them. Facts hold roles by identity, their permissions qualified and their `extends` scoped.
 */
export function buildRoleIndex(roles: readonly RoleFact[]): RoleIndex {
  const byKey = new Map<string, RoleNode>();
  for (const r of roles)
    if (!byKey.has(r.key)) byKey.set(r.key, { id: r.key, permissions: r.permissions, extends: r.extends ?? [] });
  const read = (ids: string[]) => ids.flatMap((id) => byKey.get(id) ?? []);
  const closed = new Map<string, ReadonlySet<string>>();
  const granting = new Map<string, string[]>();
  const NONE: ReadonlySet<string> = new Set();

  function permissionsOf(role: string): ReadonlySet<string> {
    let perms = closed.get(role);
    if (!perms) {
      const node = byKey.get(role);
      perms = node ? closedPermissions(node, read) : NONE;
      closed.set(role, perms);
    }
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
