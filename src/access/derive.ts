/**
 * Role derivations over relationship tuples (api-notes, "Roles on instances"): a user holding `from`
 * (`folder#editor`) on a subject related by `relation` to an object holds `role` (`document#editor`) on
 * the object, transitively (a folder in a folder in a folder). Pure; one user at a time.
 *
 * Groups are not evaluated here: the group machinery's tuples and derivations never reach the facts
 * (the groups section and the group grants say who holds what through groups). Roles held through
 * groups are a source like any other: a team's editor on a folder derives the document role.
 */
import type { AccessFacts, AccessPath } from './facts.js';
import { getOrSet } from './groups.js';
import { compareHeld, type Held } from './held.js';
import { comparePaths } from './paths.js';

/** Derived paths kept per (instance, role): the shortest first; enough to explain, bounded for cycles. */
const MAX_DERIVED_PATHS = 4;

export interface DerivationIndex {
  /** subject → its tuples. */
  bySubject: Map<string, { relation: string; object: string }[]>;
  /** `from\0relation` → the roles it derives. */
  byFrom: Map<string, { role: string; noDirect: boolean }[]>;
}

export function buildDerivationIndex(facts: AccessFacts): DerivationIndex | undefined {
  if (!facts.derivations?.length || !facts.relationships?.length) return undefined;
  const bySubject = new Map<string, { relation: string; object: string }[]>();
  for (const t of facts.relationships) getOrSet(bySubject, t.subject, () => []).push({ relation: t.relation, object: t.object });
  const byFrom = new Map<string, { role: string; noDirect: boolean }[]>();
  for (const d of facts.derivations) getOrSet(byFrom, `${d.from}\u0000${d.relation}`, () => []).push({ role: d.role, noDirect: d.noDirect === true });
  return { bySubject, byFrom };
}

/**
 * The user's holdings with what they derive, sorted by (instance, role). Breadth first from the
 * holdings, so a role is first reached by its shortest derivation; a role reached again gains a path
 * (up to a bound) but is not walked again, so cycles of tuples end.
 */
export function deriveHeld(base: readonly Held[], index: DerivationIndex): Held[] {
  const held = new Map<string, Map<string, AccessPath[]>>();
  for (const h of base) getOrSet(held, h.instance, () => new Map()).set(h.role, [...h.paths]);
  // "Direct": a role assigned to the user on the object itself (`no_direct_roles_on_object`).
  const direct = new Set(base.filter((h) => h.paths.some((p) => p.kind === 'direct')).map((h) => h.instance));
  const queue: { instance: string; role: string; path: AccessPath }[] = base.map((h) => ({ instance: h.instance, role: h.role, path: h.paths[0] }));
  for (let i = 0; i < queue.length; i++) {
    const { instance: subject, role: from, path } = queue[i];
    for (const { relation, object } of index.bySubject.get(subject) ?? []) {
      const type = object.slice(0, Math.max(0, object.indexOf(':')));
      for (const { role, noDirect } of index.byFrom.get(`${from}\u0000${relation}`) ?? []) {
        if (!role.startsWith(`${type}#`) || (noDirect && direct.has(object))) continue;
        const derived: AccessPath = { kind: 'derived', relation, subject, role: from, path };
        const roles = getOrSet(held, object, () => new Map<string, AccessPath[]>());
        const paths = roles.get(role);
        if (!paths) {
          roles.set(role, [derived]);
          queue.push({ instance: object, role, path: derived });
        } else if (paths.length < MAX_DERIVED_PATHS + 1 && !paths.some((p) => p.kind === 'derived' && p.subject === subject && p.relation === relation && p.role === from)) {
          paths.push(derived);
        }
      }
    }
  }
  const out: Held[] = [];
  for (const [instance, roles] of held) for (const [role, paths] of roles) out.push({ instance, role, paths: paths.sort(comparePaths) });
  return out.sort(compareHeld);
}
