/** Rules that only warn: things that are valid but probably not meant. */
import type { Problem } from '../source.js';
import { report, type RuleContext } from './context.js';

/** A role nobody holds, no group is given and no access request configuration names. */
export function unusedRoles({ desired, index }: RuleContext): Problem[] {
  const used = new Set<string>();
  for (const u of desired.users.values()) for (const r of u.roles) used.add(r.role);
  for (const g of desired.groups.values()) for (const r of g.roles) used.add(r.role);
  for (const a of desired.accessRequests.values()) for (const r of a.reviewerRoles) used.add(r);
  const out: Problem[] = [];
  for (const key of desired.roles.keys()) {
    if (used.has(key)) continue;
    out.push(report(index.roles.get(key), [], `role "${key}" is not given to any user or group`, { on: 'key', severity: 'warning' }));
  }
  return out;
}

/** A group with no members and no member groups grants nothing to anyone. */
export function emptyGroups({ desired, index }: RuleContext): Problem[] {
  const hasChildren = new Set<string>();
  for (const g of desired.groups.values()) for (const p of g.memberOf) hasChildren.add(p);
  const out: Problem[] = [];
  for (const [id, g] of desired.groups) {
    if (g.members.length > 0 || hasChildren.has(id)) continue;
    out.push(report(index.groups.get(id), [], `group "${id}" has no members and no member groups`, { on: 'key', severity: 'warning' }));
  }
  return out;
}
