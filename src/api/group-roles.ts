import { groupGrantRelation } from '../rules/names.js';
/**
 * Which roles each group holds, from the records the specification says a group role creates
 * (api-notes "Groups"): giving group `G` (of type `t`) the role `R` on instance `I` (of type `T`) records
 * the tuple `t:G  t_group  T:I` and the derivation `T#R <- t#member by t_group`. So:
 *
 * - a group with no `t_group` tuple holds no role;
 * - a tuple `G -> I` whose type pair `(t, T)` has exactly one such derivation `R` means `G` holds `R` on
 *   `I`, and nothing else there;
 * - any other tuple (several derivations could apply, or none does) leaves a choice, and only the group's
 *   own `GET /groups/{key}/roles` says which roles it holds.
 *
 * The service keeps these records consistent with the group roles (removing a tuple or a derivation
 * removes the roles resting on it; docs/performance.md), so the inference is exact, never a guess: a
 * group is either fully known here or listed for reading.
 */
import { MEMBER_ROLE } from '../types/names.js';
import { typeOf } from '../types/refs.js';

export interface Derivation {
  /** The resource type the role is derived on (`T`). */
  resource: string;
  /** The derived role (`R`). */
  role: string;
  /** The deriving role and the type it is held on: `member` on a group type `t`. */
  fromRole: string;
  fromResource: string;
  relation: string;
}

export interface GroupTuple {
  /** `t:G` */
  subject: string;
  relation: string;
  /** `T:I` */
  object: string;
}

export interface GroupRole {
  role: string;
  on: string;
}

export interface GroupRoleInference {
  /** Groups whose roles the records fix, with those roles (possibly none). */
  known: Map<string, GroupRole[]>;
  /** Groups whose roles must be read one by one. */
  unresolved: string[];
}

/** `groups` are `type:key` ids; `tuples` may hold any relation (only `<type>_group` ones are used). */
export function inferGroupRoles(groups: string[], derivations: Derivation[], tuples: GroupTuple[]): GroupRoleInference {
  // (group type, resource type) -> the roles a group-role tuple between them can mean.
  const candidates = new Map<string, Set<string>>();
  for (const d of derivations) {
    if (d.fromRole !== MEMBER_ROLE || d.relation !== groupGrantRelation(d.fromResource)) continue;
    const k = pairKey(d.fromResource, d.resource);
    (candidates.get(k) ?? candidates.set(k, new Set()).get(k)!).add(d.role);
  }
  const tuplesOf = new Map<string, GroupTuple[]>();
  for (const t of tuples) {
    const type = typeOf(t.subject);
    if (t.relation !== `${type}_group`) continue;
    (tuplesOf.get(t.subject) ?? tuplesOf.set(t.subject, []).get(t.subject)!).push(t);
  }

  const known = new Map<string, GroupRole[]>();
  const unresolved: string[] = [];
  for (const g of groups) {
    const roles: GroupRole[] = [];
    let decided = true;
    for (const t of tuplesOf.get(g) ?? []) {
      const options = candidates.get(pairKey(typeOf(g), typeOf(t.object)));
      if (!options || options.size !== 1) {
        decided = false;
        break;
      }
      roles.push({ role: [...options][0], on: t.object });
    }
    if (decided) known.set(g, roles);
    else unresolved.push(g);
  }
  return { known, unresolved };
}

const pairKey = (groupType: string, resource: string) => `${groupType}\u0000${resource}`;
