import type { DesiredState } from '../../src/types/desired.js';

/** Groups whose roles the records cannot fix: some (group type, resource) pair of theirs carries several roles. */
export function groupsToRead(desired: DesiredState): string[] {
  const typeOf = (ref: string) => ref.slice(0, ref.indexOf(':'));
  const rolesOfPair = new Map<string, Set<string>>();
  for (const g of desired.groups.values()) {
    for (const r of g.roles) {
      const k = `${g.type} ${typeOf(r.on)}`;
      (rolesOfPair.get(k) ?? rolesOfPair.set(k, new Set()).get(k)!).add(r.role);
    }
  }
  return [...desired.groups.entries()]
    .filter(([, g]) => g.roles.some((r) => rolesOfPair.get(`${g.type} ${typeOf(r.on)}`)!.size > 1))
    .map(([id]) => id)
    .sort();
}
