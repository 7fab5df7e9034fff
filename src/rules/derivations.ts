/**
 * Role derivations over relationship tuples (the public `DerivedRoleRule`, written with
 * `.../roles/{role}/implicit_grants`): "T#R <- S#R' via rel" says a user holds role R on an instance o of
 * type T when some tuple (s, rel, o) exists, s is of type S, and the user holds R' on s (assigned there,
 * through groups, or itself derived, so folders inside folders chain). With `no_direct_roles_on_object`
 * the rule does not apply on an o where the user has a role assigned directly (a role assignment naming o
 * itself; group roles and tenant-wide roles are not direct). Relations of the group machinery carry no
 * derivation (names.ts, `isGroupRelation`).
 *
 * Types and roles are named in the caller's terms (the server: ids; the graph: keys and identities).
 */
export interface DerivationRule {
  /** The derived role's resource (T) and the derived role (R). */
  resource: string;
  role: string;
  /** The source resource (S) and its role (R'). */
  onResource: string;
  linkedRole: string;
  /** The relation's key on T. */
  relation: string;
  noDirect: boolean;
}

/**
 * The derivation step: whether a rule deriving a role of type `ruleType` carries it over a tuple into an
 * object of type `objectType` where the user `objectDirect`ly holds a role or not. The derived role must
 * be of the object's type, and `no_direct_roles_on_object` blocks it where the user holds a direct role.
 */
export function derivationApplies(
  rule: { resource: string | null; noDirect: boolean },
  objectType: string,
  objectDirect: boolean,
): boolean {
  return rule.resource === objectType && !(rule.noDirect && objectDirect);
}

/** Where a role is held from: assigned on the instance, through a group, tenant-wide, or derived. */
export type HoldingKind = 'direct' | 'group' | 'tenant' | 'derived';

/**
 * Which holdings a derivation starts from: a role held on an instance (assigned there, through a group,
 * or itself derived). A role held tenant-wide is held on no instance and feeds none, though it counts on
 * every instance of its tenant. (Only a top-level role is held tenant-wide, so this matters for a
 * derivation whose deriving role is top-level: the service takes one when the type has no resource role
 * of the key.)
 */
export const feedsDerivations = (kind: HoldingKind): boolean => kind !== 'tenant';

export interface TupleEdge {
  subject: string;
  relation: string;
  object: string;
}

export interface InstanceFacts {
  /** The instance's resource (type). */
  resource: string;
  /** Roles the user holds on it without derivations (assigned there or through groups). */
  roles: Set<string>;
  /** Whether the user has a role assigned directly on it. */
  direct: boolean;
}

const ruleKey = (resource: string, relation: string) => `${resource}\u0000${relation}`;

export type RuleIndex = Map<string, DerivationRule[]>;

/** Rules by the derived role's resource and relation: what a tuple into an instance of that type may carry. */
export function indexRules(rules: readonly DerivationRule[]): RuleIndex {
  const index: RuleIndex = new Map();
  for (const r of rules) {
    const k = ruleKey(r.resource, r.relation);
    (index.get(k) ?? index.set(k, []).get(k)!).push(r);
  }
  return index;
}

/** The rules a tuple (subject of type `subjectResource`, relation, object of type `objectResource`) can carry. */
export function rulesFor(
  index: RuleIndex,
  objectResource: string,
  relation: string,
  subjectResource: string,
): DerivationRule[] {
  return (index.get(ruleKey(objectResource, relation)) ?? []).filter((r) => r.onResource === subjectResource);
}

/**
 * Every role the user holds on each instance, derived roles included: start from the facts, apply every
 * tuple's rules (`derivationApplies`) until nothing changes: the least fixed point. Each pass adds at
 * least one (instance, role) pair or stops, so it ends within (instances x roles) passes whatever the
 * tuples' shape (cycles included).
 */
export function deriveHeld(
  facts: ReadonlyMap<string, InstanceFacts>,
  tuples: readonly TupleEdge[],
  index: RuleIndex,
): Map<string, Set<string>> {
  const held = new Map([...facts].map(([id, f]) => [id, new Set(f.roles)]));
  const carried = tuples.flatMap((t) => {
    const s = facts.get(t.subject);
    const o = facts.get(t.object);
    if (!s || !o) return [];
    const rules = rulesFor(index, o.resource, t.relation, s.resource).filter((r) =>
      derivationApplies(r, o.resource, o.direct),
    );
    return rules.length > 0 ? [{ from: held.get(t.subject)!, to: held.get(t.object)!, rules }] : [];
  });
  let changed = true;
  while (changed) {
    changed = false;
    for (const { from, to, rules } of carried) {
      for (const r of rules) {
        if (from.has(r.linkedRole) && !to.has(r.role)) {
          to.add(r.role);
          changed = true;
        }
      }
    }
  }
  return held;
}
