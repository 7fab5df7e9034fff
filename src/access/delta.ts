import type { AccessFacts } from './facts.js';
import type { AccessGraph } from './graph.js';

/** What changed between two graphs' facts, in the terms `diffAccess` needs. */
export interface FactsDelta {
  /** A change that can touch anyone: role definitions, in the permission view. */
  all: boolean;
  /** Some role's definition (permissions, `extends`) differs. */
  definitions: boolean;
  /** Users whose own facts changed (direct, tenant-wide, membership), or whose tenant-wide roles follow a moved instance. */
  users: Set<string>;
  /** Groups with changed grants, and children of changed links. */
  groups: Set<string>;
}

/**
 * Why this is enough: a grant held in only one graph has a path that uses a changed fact, and the first
 * changed fact on it is a direct or tenant-wide role (its user), a membership (its user), a link (whose
 * child the user is a member of, in that graph) or a group grant (likewise). Instances that change
 * tenant touch the holders of tenant-wide roles in the old and new tenant.
 *
 * Relationship tuples and role derivations: a grant held in one graph only, whose user's own facts are
 * unchanged, rests on a derivation step there that uses a changed tuple or a changed derivation. Its
 * user holds a role on that step's subject in that graph, so is among `usersReaching` the subject there:
 * the subject of a changed tuple, or of any tuple whose relation a changed derivation follows.
 */
export function diffFacts(before: AccessGraph, after: AccessGraph, permissions: boolean): FactsDelta {
  const a = before.facts;
  const b = after.facts;
  const users = new Set<string>();
  const groups = new Set<string>();
  const definitions = !sameKeys(roleKeys(a), roleKeys(b));
  const all = permissions && definitions;

  const subjects = new Set<string>();
  const tuples = [a.relationships ?? [], b.relationships ?? []] as const;
  for (const t of changed(...tuples, (t) => `${t.subject}\u0000${t.relation}\u0000${t.object}`))
    subjects.add(t.subject);
  const rederived = changed(
    a.derivations ?? [],
    b.derivations ?? [],
    (d) => `${d.role}\u0000${d.from}\u0000${d.relation}\u0000${d.noDirect === true}`,
  );
  if (rederived.length > 0) {
    const relations = new Set(rederived.map((d) => d.relation));
    for (const t of [...tuples[0], ...tuples[1]]) if (relations.has(t.relation)) subjects.add(t.subject);
  }
  if (subjects.size > 0)
    for (const graph of [before, after]) for (const u of graph.usersReaching(subjects)) users.add(u);

  for (const r of changed(a.instanceRoles, b.instanceRoles, (r) => `${r.user}\u0000${r.role}\u0000${r.instance}`))
    users.add(r.user);
  for (const r of changed(a.tenantRoles, b.tenantRoles, (r) => `${r.user}\u0000${r.role}\u0000${r.tenant}`))
    users.add(r.user);
  for (const m of changed(a.memberships, b.memberships, (m) => `${m.user}\u0000${m.group}`)) users.add(m.user);
  for (const l of changed(a.links, b.links, (l) => `${l.child}\u0000${l.parent}`)) groups.add(l.child);
  for (const g of changed(a.groupGrants, b.groupGrants, (g) => `${g.group}\u0000${g.role}\u0000${g.instance}`))
    groups.add(g.group);

  const tenants = new Set<string>();
  for (const id of new Set([...a.instances, ...b.instances].map((i) => i.id))) {
    const t0 = before.tenantOf(id);
    const t1 = after.tenantOf(id);
    if (t0 === t1) continue;
    if (t0 !== null) tenants.add(t0);
    if (t1 !== null) tenants.add(t1);
  }
  if (tenants.size > 0) {
    for (const r of [...a.tenantRoles, ...b.tenantRoles]) if (tenants.has(r.tenant)) users.add(r.user);
  }
  return { all, definitions, users, groups };
}

/** Facts present in one list and not the other (either way). */
function changed<T>(xs: readonly T[], ys: readonly T[], key: (x: T) => string): T[] {
  const kx = xs.map(key);
  const ky = ys.map(key);
  const inX = new Set(kx);
  const inY = new Set(ky);
  return [...xs.filter((_, i) => !inY.has(kx[i])), ...ys.filter((_, i) => !inX.has(ky[i]))];
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
