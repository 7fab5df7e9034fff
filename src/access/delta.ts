import type { AccessFacts } from './facts.js';
import type { AccessGraph } from './graph.js';

/**
 * The users whose access can differ between two graphs, from the facts that changed; `'all'` when a
 * change can touch anyone (role definitions, in the permission view). Reasoning: a grant or path that
 * exists in only one graph uses a changed fact, and the first changed fact on it is a direct or tenant
 * role (its user), a membership (its user), a link (a member of its child, in that graph) or a group
 * grant (a member of its group, in that graph). Changed instance tenants touch holders of tenant-wide
 * roles in the old and new tenant.
 */
export function affectedUsers(before: AccessGraph, after: AccessGraph, permissions: boolean): Set<string> | 'all' {
  const a = before.facts;
  const b = after.facts;
  if (permissions && !sameKeys(roleKeys(a), roleKeys(b))) return 'all';
  const users = new Set<string>();
  const addAll = (xs: Iterable<string>) => {
    for (const x of xs) users.add(x);
  };

  for (const r of changed(a.instanceRoles, b.instanceRoles, (r) => [r.user, r.role, r.instance])) users.add(r.user);
  for (const r of changed(a.tenantRoles, b.tenantRoles, (r) => [r.user, r.role, r.tenant])) users.add(r.user);
  for (const m of changed(a.memberships, b.memberships, (m) => [m.user, m.group])) users.add(m.user);

  const groups = new Set<string>();
  for (const l of changed(a.links, b.links, (l) => [l.child, l.parent])) groups.add(l.child);
  for (const g of changed(a.groupGrants, b.groupGrants, (g) => [g.group, g.role, g.instance])) groups.add(g.group);
  for (const g of groups) {
    addAll(before.membersOf(g));
    addAll(after.membersOf(g));
  }

  const tenants = new Set<string>();
  const ids = new Set([...a.instances, ...b.instances].map((i) => i.id));
  for (const id of ids) {
    const t0 = before.tenantOf(id);
    const t1 = after.tenantOf(id);
    if (t0 === t1) continue;
    if (t0 !== null) tenants.add(t0);
    if (t1 !== null) tenants.add(t1);
  }
  if (tenants.size > 0) {
    for (const r of [...a.tenantRoles, ...b.tenantRoles]) if (tenants.has(r.tenant)) users.add(r.user);
  }
  return users;
}

/** Facts present in one list and not the other (either way). */
function changed<T>(xs: readonly T[], ys: readonly T[], key: (x: T) => string[]): T[] {
  const k = (x: T) => key(x).join('\u0000');
  const inX = new Set(xs.map(k));
  const inY = new Set(ys.map(k));
  return [...xs.filter((x) => !inY.has(k(x))), ...ys.filter((y) => !inX.has(k(y)))];
}

/** One key per role definition as resolved (first definition of a key wins, as in the role index). */
function roleKeys(facts: AccessFacts): Set<string> {
  const seen = new Set<string>();
  const out = new Set<string>();
  for (const r of facts.roles) {
    if (seen.has(r.key)) continue;
    seen.add(r.key);
    out.add(JSON.stringify([r.key, [...new Set(r.permissions)].sort(), [...new Set(r.extends ?? [])].sort()]));
  }
  return out;
}

function sameKeys(x: Set<string>, y: Set<string>): boolean {
  return x.size === y.size && [...x].every((k) => y.has(k));
}
