import type { AccessFacts } from '../../src/access/index.js';

export interface FactsInput {
  /** role → permissions, or → {permissions, extends}. */
  roles?: Record<string, string[] | { permissions?: string[]; extends?: string[] }>;
  instances?: [id: string, tenant: string][];
  tenantRoles?: [user: string, role: string, tenant: string][];
  instanceRoles?: [user: string, role: string, instance: string][];
  memberships?: [user: string, group: string][];
  links?: [child: string, parent: string][];
  groupGrants?: [group: string, role: string, instance: string][];
}

/** Compact tuples → AccessFacts, so each test shows only what matters. */
export function facts(input: FactsInput = {}): AccessFacts {
  return {
    roles: Object.entries(input.roles ?? {}).map(([key, def]) =>
      Array.isArray(def)
        ? { key, permissions: def }
        : { key, permissions: def.permissions ?? [], extends: def.extends },
    ),
    instances: (input.instances ?? []).map(([id, tenant]) => ({ id, tenant })),
    tenantRoles: (input.tenantRoles ?? []).map(([user, role, tenant]) => ({ user, role, tenant })),
    instanceRoles: (input.instanceRoles ?? []).map(([user, role, instance]) => ({ user, role, instance })),
    memberships: (input.memberships ?? []).map(([user, group]) => ({ user, group })),
    links: (input.links ?? []).map(([child, parent]) => ({ child, parent })),
    groupGrants: (input.groupGrants ?? []).map(([group, role, instance]) => ({ group, role, instance })),
  };
}

/** A group path, for expectations. */
export const chain = (...groups: string[]) => ({ kind: 'group' as const, chain: groups });
export const direct = { kind: 'direct' as const };
export const tenant = (t: string) => ({ kind: 'tenant' as const, tenant: t });
