import type { AccessPath, Via } from './facts.js';

export const DIRECT: AccessPath = Object.freeze({ kind: 'direct' });

const RANK = { direct: 0, tenant: 1, group: 2, derived: 3 } as const;

/** Direct first, then tenant-wide (by tenant), then group chains: shortest first, then by group keys. */
export function comparePaths(a: AccessPath, b: AccessPath): number {
  if (a.kind !== b.kind) return RANK[a.kind] - RANK[b.kind];
  if (a.kind === 'tenant' && b.kind === 'tenant') return cmp(a.tenant, b.tenant);
  if (a.kind === 'group' && b.kind === 'group') return compareChains(a.chain, b.chain);
  if (a.kind === 'derived' && b.kind === 'derived') {
    return (
      derivationDepth(a) - derivationDepth(b) ||
      cmp(a.subject, b.subject) ||
      cmp(a.relation, b.relation) ||
      cmp(a.role, b.role) ||
      comparePaths(a.path, b.path)
    );
  }
  return 0;
}

export function compareChains(a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = cmp(a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

export function compareVia(a: Via, b: Via): number {
  return comparePaths(a.path, b.path) || cmp(a.role, b.role);
}

/** How many derivations a path goes through. */
export function derivationDepth(p: AccessPath): number {
  return p.kind === 'derived' ? 1 + derivationDepth(p.path) : 0;
}

/** Plain code-unit order: stable across locales, unlike localeCompare. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * "alice → team:platform → team:engineering → editor on document:readme".
 * Direct and tenant-wide grants say so at the end.
 */
export function formatPath(user: string, path: AccessPath, role: string, instance: string): string {
  switch (path.kind) {
    case 'direct':
      return `${user} → ${role} on ${instance} (direct)`;
    case 'tenant':
      return `${user} → ${role} on ${instance} (tenant-wide in ${path.tenant})`;
    case 'group':
      return [user, ...path.chain, `${role} on ${instance}`].join(' → ');
    case 'derived':
      return `${formatPath(user, path.path, path.role, path.subject)}; ${role} on ${instance} from ${path.role} via ${path.relation}`;
  }
}
