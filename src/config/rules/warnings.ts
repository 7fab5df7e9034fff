/**
 * Rules that only warn: things that are valid but probably not meant. Neither warns about what a
 * mistake elsewhere explains: a role or group that a refused part, or a misspelt reference (by its
 * "did you mean"), would use.
 */
import type { Problem } from '../source.js';
import { closest } from '../suggest.js';
import { report, type RuleContext } from './context.js';

/** A role nobody holds, no group is given and no access request configuration names. */
export function unusedRoles({ desired, index }: RuleContext): Problem[] {
  const named = new Set<string>();
  for (const u of desired.users.values()) for (const r of u.roles) named.add(r.role);
  for (const g of desired.groups.values()) for (const r of g.roles) named.add(r.role);
  for (const a of desired.accessRequests.values()) for (const r of a.reviewerRoles) named.add(r);
  const used = meant(named, desired.roles.keys());
  const out: Problem[] = [];
  for (const key of desired.roles.keys()) {
    if (used.has(key) || index.refused.mentions(key)) continue;
    out.push({
      ...report(index.roles.get(key), [], `role "${key}" is not given to any user or group`, {
        on: 'key',
        severity: 'warning',
        hint: `if that is meant, acknowledge it: \`acknowledge: {unused-role: [${key}]}\``,
      }),
      rule: 'unused-role',
      object: key,
    });
  }
  return out;
}

/** A group with no members and no member groups grants nothing to anyone. */
export function emptyGroups({ desired, index }: RuleContext): Problem[] {
  const parents = new Set<string>();
  for (const g of desired.groups.values()) for (const p of g.memberOf) parents.add(p);
  const hasChildren = meant(parents, desired.groups.keys());
  const out: Problem[] = [];
  for (const [id, g] of desired.groups) {
    if (
      g.members.length > 0 ||
      hasChildren.has(id) ||
      index.refused.mentions(id) ||
      index.refused.isTrimmed('groups', id)
    )
      continue;
    out.push({
      ...report(index.groups.get(id), [], `group "${id}" has no members and no member groups`, {
        on: 'key',
        severity: 'warning',
        hint: `if that is meant, acknowledge it: \`acknowledge: {empty-group: [${id}]}\``,
      }),
      rule: 'empty-group',
      object: id,
    });
  }
  return out;
}

/** The names referenced, with each unknown one replaced by the declared key it nearly spells. */
function meant(referenced: Set<string>, declaredKeys: Iterable<string>): Set<string> {
  const keys = [...declaredKeys];
  const known = new Set(keys);
  const out = new Set<string>();
  for (const name of referenced) {
    const key = known.has(name) ? name : closest(name, keys);
    if (key !== undefined) out.add(key);
  }
  return out;
}

/**
 * A user whose `tenants` (when listed) leave out the tenant of a group the user is still a member of, and
 * of every role the user holds: the membership
 * keeps the user in that tenant (on the service, a member holds the group's `member` role there), which
 * is rarely what taking the tenant out of the list meant.
 */
export function memberOutsideTenants({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    for (const member of group.members) {
      const user = desired.users.get(member);
      // A user who lists no tenants is placed by roles and memberships alone (a machine user): nothing left out.
      if (!user || user.tenants.length === 0 || index.refused.isTrimmed('users', member)) continue;
      if (user.tenants.includes(group.tenant) || user.roles.some((r) => r.tenant === group.tenant)) continue;
      out.push(
        report(
          index.users.get(member),
          [],
          `user "${member}" is a member of group "${id}" in tenant "${group.tenant}", which the user's tenants do not list: the membership keeps the user in "${group.tenant}"`,
          {
            on: 'key',
            severity: 'warning',
            hint: `add "${group.tenant}" to the user's tenants, or remove the user from the group's members`,
          },
        ),
      );
    }
  }
  return out;
}
