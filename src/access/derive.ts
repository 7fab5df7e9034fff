/**
 * Role derivations over relationship tuples (api-notes, "Roles on instances"): a user holding `from`
 * (`folder#editor`) on a subject related by `relation` to an object holds `role` (`document#editor`) on
 * the object, transitively (a folder in a folder in a folder). Pure.
 *
 * Groups are not evaluated here: the group machinery's tuples and derivations never reach the facts
 * (the groups section and the group grants say who holds what through groups). Roles held through
 * groups are a source like any other: a team's editor on a folder derives the document role.
 *
 * Derivation distributes over sources: what a user derives from their direct roles, their tenant-wide
 * roles and each group is the union of what each derives alone, because every derivation step rests on
 * one held role. The one exception is `no_direct_roles_on_object`, which depends on the user's own direct
 * roles: `derive` reports the objects such a rule derived into, so that the graph can derive a group's
 * holdings once for all its members and fall back to one user at a time only where that matters.
 */
import type { AccessFacts, AccessPath } from './facts.js';
import { getOrSet } from './groups.js';
import { compareHeld, type Held } from './held.js';
import { comparePaths } from './paths.js';
import { typeOf } from '../types/refs.js';
import { derivationApplies } from '../rules/derivations.js';

const NOTHING: ReadonlySet<string> = new Set();

/** Derived paths kept per (instance, role): the shortest first; enough to explain, bounded for cycles. */
const MAX_DERIVED_PATHS = 4;

export interface DerivationIndex {
  /** subject → its tuples whose relation some derivation follows, with the object's type. */
  bySubject: Map<string, { relation: string; object: string; type: string }[]>;
  /** object → the same tuples (to walk derivations backwards). */
  byObject: Map<string, { relation: string; subject: string }[]>;
  /** from → relation → the roles it derives, with the derived role's type. */
  byFrom: Map<string, Map<string, DerivedRule[]>>;
}

interface DerivedRule {
  role: string;
  noDirect: boolean;
  /** The derived role's type (`document` for `document#editor`); null for a role of no type, which derives nothing. */
  resource: string | null;
}

export function buildDerivationIndex(facts: AccessFacts): DerivationIndex | undefined {
  if (!facts.derivations?.length || !facts.relationships?.length) return undefined;
  const byFrom = new Map<string, Map<string, DerivedRule[]>>();
  for (const d of facts.derivations) {
    const hash = d.role.indexOf('#');
    const rule = { role: d.role, noDirect: d.noDirect === true, resource: hash < 0 ? null : d.role.slice(0, hash) };
    getOrSet(
      getOrSet(byFrom, d.from, () => new Map()),
      d.relation,
      () => [],
    ).push(rule);
  }
  const followed = new Set(facts.derivations.map((d) => d.relation));
  const bySubject = new Map<string, { relation: string; object: string; type: string }[]>();
  const byObject = new Map<string, { relation: string; subject: string }[]>();
  for (const t of facts.relationships) {
    if (!followed.has(t.relation)) continue;
    getOrSet(bySubject, t.subject, () => []).push({ relation: t.relation, object: t.object, type: typeOf(t.object) });
    getOrSet(byObject, t.object, () => []).push({ relation: t.relation, subject: t.subject });
  }
  return { bySubject, byFrom, byObject };
}

export interface Derived {
  /** The holdings with what they derive, sorted by (instance, role). */
  held: readonly Held[];
  /** Objects a `no_direct_roles_on_object` rule derived a role into (whether or not it was new). */
  noDirectTargets: ReadonlySet<string>;
}

/**
 * `base` with what it derives. Breadth first from the holdings, so a role is first reached by its
 * shortest derivation; a role reached again gains a path (up to a bound) but is not walked again, so
 * cycles of tuples end. `direct`: the instances the user holds a role on directly, where
 * `no_direct_roles_on_object` rules derive nothing (empty when deriving a group's or tenant's holdings).
 */
export function derive(base: readonly Held[], index: DerivationIndex, direct: ReadonlySet<string>): Derived {
  // Most holdings are on instances no tuple starts from: nothing to derive, nothing to copy.
  if (!base.some((h) => index.bySubject.has(h.instance))) return { held: base, noDirectTargets: NOTHING };
  const held = new Map<string, Map<string, AccessPath[]>>();
  for (const h of base) getOrSet(held, h.instance, () => new Map()).set(h.role, [...h.paths]);
  const noDirectTargets = new Set<string>();
  const queue: { instance: string; role: string; path: AccessPath }[] = base.map((h) => ({
    instance: h.instance,
    role: h.role,
    path: h.paths[0],
  }));
  for (let i = 0; i < queue.length; i++) {
    const { instance: subject, role: from, path } = queue[i];
    const tuples = index.bySubject.get(subject);
    const fromRules = tuples && index.byFrom.get(from);
    if (!fromRules) continue;
    for (const { relation, object, type } of tuples) {
      const rules = fromRules.get(relation);
      if (!rules) continue;
      for (const rule of rules) {
        if (rule.resource !== type) continue;
        // The rulebook's step (rules/derivations.ts); the objects a no-direct rule reaches are kept.
        if (rule.noDirect) noDirectTargets.add(object);
        if (!derivationApplies(rule, type, direct.has(object))) continue;
        const role = rule.role;
        const derived: AccessPath = { kind: 'derived', relation, subject, role: from, path };
        const roles = getOrSet(held, object, () => new Map<string, AccessPath[]>());
        const paths = roles.get(role);
        if (!paths) {
          roles.set(role, [derived]);
          queue.push({ instance: object, role, path: derived });
        } else if (paths.length < MAX_DERIVED_PATHS + 1 && !paths.some((p) => sameStep(p, derived))) {
          paths.push(derived);
        }
      }
    }
  }
  const out: Held[] = [];
  for (const [instance, roles] of held)
    for (const [role, paths] of roles) out.push({ instance, role, paths: paths.sort(comparePaths) });
  return { held: out.sort(compareHeld), noDirectTargets };
}

/**
 * The paths of one (instance, role) held from two sources, sorted: one derived path per derivation step
 * (the shortest), at most as many as one source keeps. Used when merging sources derived separately.
 */
export function joinDerivedPaths(a: readonly AccessPath[], b: readonly AccessPath[]): AccessPath[] {
  const all = [...a, ...b].sort(comparePaths);
  if (!all.some((p) => p.kind === 'derived')) return all;
  const out: AccessPath[] = [];
  let derivedKept = 0;
  for (const p of all) {
    if (p.kind !== 'derived') out.push(p);
    else if (derivedKept < MAX_DERIVED_PATHS + 1 && !out.some((q) => sameStep(q, p))) {
      out.push(p);
      derivedKept++;
    }
  }
  return out;
}

/**
 * Instances from which a derivation can reach `instance` (itself included): walked backwards over the
 * tuples whose relation some derivation follows. Whoever holds a role on `instance`, directly, tenant-wide,
 * through a group or by derivation, holds a role on one of these without derivation.
 */
export function upstreamOf(instances: Iterable<string>, index: DerivationIndex): Set<string> {
  const seen = new Set<string>(instances);
  const queue = [...seen];
  for (let i = 0; i < queue.length; i++) {
    for (const { subject } of index.byObject.get(queue[i]) ?? []) {
      if (seen.has(subject)) continue;
      seen.add(subject);
      queue.push(subject);
    }
  }
  return seen;
}

/**
 * What shared sources derive, kept across the graphs built with the cache (a plan's before and after): a
 * source with the same holdings (paths included) derives the same in another graph when the two have the
 * same derivations and no instance it reaches has different tuples from it there. The after graph then
 * gets the very same list, which `diffAccess` skips at once.
 */
export interface DerivationCache {
  derive(key: string, base: readonly Held[], index: DerivationIndex): Derived;
}

export function derivationCache(): DerivationCache {
  const byKey = new Map<string, { base: readonly Held[]; index: DerivationIndex; derived: Derived }[]>();
  const between = new Map<DerivationIndex, Map<DerivationIndex, ReadonlySet<string> | null>>();
  const changedSubjects = (x: DerivationIndex, y: DerivationIndex) => {
    const known = between.get(x);
    if (known?.has(y)) return known.get(y)!;
    const found = subjectsChanged(x, y);
    getOrSet(between, x, () => new Map()).set(y, found);
    return found;
  };
  return {
    derive(key, base, index) {
      const entries = getOrSet(byKey, key, () => []);
      const mine = entries.find((e) => e.index === index);
      if (mine) return mine.derived;
      for (const e of entries) {
        const changed = changedSubjects(e.index, index);
        if (changed === null || !sameHeld(e.base, base)) continue;
        if (changed.size > 0 && e.derived.held.some((h) => changed.has(h.instance))) continue;
        entries.push({ base, index, derived: e.derived });
        return e.derived;
      }
      const derived = derive(base, index, NOTHING);
      entries.push({ base, index, derived });
      return derived;
    },
  };
}

/** Subjects whose tuples differ between two indexes; null when their derivations differ. */
function subjectsChanged(x: DerivationIndex, y: DerivationIndex): ReadonlySet<string> | null {
  const rules = (i: DerivationIndex) =>
    new Set(
      [...i.byFrom].flatMap(([from, byRelation]) =>
        [...byRelation].flatMap(([relation, rs]) =>
          rs.map((r) => `${from}\u0000${relation}\u0000${r.role}\u0000${r.noDirect}`),
        ),
      ),
    );
  const rx = rules(x);
  const ry = rules(y);
  if (rx.size !== ry.size || [...rx].some((r) => !ry.has(r))) return null;
  const out = new Set<string>();
  for (const subject of new Set([...x.bySubject.keys(), ...y.bySubject.keys()])) {
    const tx = new Set((x.bySubject.get(subject) ?? []).map((t) => `${t.relation}\u0000${t.object}`));
    const ty = new Set((y.bySubject.get(subject) ?? []).map((t) => `${t.relation}\u0000${t.object}`));
    if (tx.size !== ty.size || [...tx].some((t) => !ty.has(t))) out.add(subject);
  }
  return out;
}

function sameHeld(a: readonly Held[], b: readonly Held[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const [p, q] = [a[i], b[i]];
    if (p.instance !== q.instance || p.role !== q.role || p.paths.length !== q.paths.length) return false;
    for (let k = 0; k < p.paths.length; k++) if (comparePaths(p.paths[k], q.paths[k]) !== 0) return false;
  }
  return true;
}

function sameStep(p: AccessPath, q: AccessPath & { kind: 'derived' }): boolean {
  return p.kind === 'derived' && p.subject === q.subject && p.relation === q.relation && p.role === q.role;
}
