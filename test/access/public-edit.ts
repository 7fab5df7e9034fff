/**
 * A random edit of an exported configuration, as a person edits a file: each user's roles, each group's
 * members, roles and links keep a random part and gain a few new ones (only ones the configuration can
 * state: declared roles, the same tenant, no cycle of links). The edit is plain data drawn before the
 * environment exists, applied to whatever export the environment gives.
 */
import fc from 'fast-check';
import type { LiveState } from '../../src/types/live.js';
import { PUBLIC_POOLS as P } from './public-env.js';

type Obj = Record<string, any>;

export interface ConfigEdit {
  /** Coins for "keep this item?", used in turn (true: keep). */
  keep: boolean[];
  userRoles: { user: string; role: string; on: string }[];
  members: { user: string; group: string }[];
  links: { child: string; parent: string }[];
  groupRoles: { group: string; role: string; on: string }[];
}

const instances = [...P.documents, ...P.folders, ...P.groups];
const roleKey = fc.constantFrom(...P.topRoles, ...P.resourceRoles, 'member');
export const arbConfigEdit: fc.Arbitrary<ConfigEdit> = fc.record({
  keep: fc.array(
    fc.nat(9).map((n) => n < 7),
    { minLength: 64, maxLength: 64 },
  ),
  userRoles: fc.array(
    fc.record({
      user: fc.constantFrom(...P.users),
      role: fc.constantFrom(...P.topRoles, ...P.resourceRoles),
      on: fc.constantFrom(...instances, ...P.tenants),
    }),
    { maxLength: 4 },
  ),
  members: fc.array(fc.record({ user: fc.constantFrom(...P.users), group: fc.constantFrom(...P.groups) }), {
    maxLength: 4,
  }),
  links: fc.array(fc.record({ child: fc.constantFrom(...P.groups), parent: fc.constantFrom(...P.groups) }), {
    maxLength: 3,
  }),
  groupRoles: fc.array(
    fc.record({ group: fc.constantFrom(...P.groups), role: roleKey, on: fc.constantFrom(...instances) }),
    { maxLength: 3 },
  ),
});

/** `config` (an export, parsed) with `edit` applied; a new object. */
export function applyEdit(config: Obj, edit: ConfigEdit): Obj {
  const c = structuredClone(config) as Obj;
  let coin = 0;
  const keep = <T>(xs: T[] = []) => xs.filter(() => edit.keep[coin++ % edit.keep.length]);
  const tenantOf = (ref: string): string | undefined => {
    const i = c.resource_instances?.[ref];
    return typeof i === 'string' ? i : (i?.tenant ?? c.groups?.[ref]?.tenant);
  };
  // A role the configuration can name on `on`: the type's resource role, else a top-level role.
  const declared = (role: string, on: string) => {
    const res = c.resources?.[on.split(':')[0]];
    return (res && !Array.isArray(res) && res.roles?.[role] !== undefined) || c.roles?.[role] !== undefined;
  };
  c.users ??= {};
  c.groups ??= {};
  for (const u of Object.values(c.users) as Obj[]) u.roles = keep(u.roles);
  for (const g of Object.values(c.groups) as Obj[]) {
    g.members = keep(g.members);
    g.roles = keep(g.roles);
    g.member_of = keep(g.member_of);
  }
  for (const r of edit.userRoles) {
    const u = c.users[r.user];
    if (!u) continue;
    if (P.tenants.includes(r.on as never)) {
      if (c.roles?.[r.role] !== undefined && c.tenants?.[r.on] !== undefined)
        u.roles = [...(u.roles ?? []), { role: r.role, tenant: r.on }];
    } else if (tenantOf(r.on) && declared(r.role, r.on)) u.roles = [...(u.roles ?? []), { role: r.role, on: r.on }];
  }
  for (const m of edit.members) {
    const g = c.groups[m.group];
    if (g && c.users[m.user] && !g.members.includes(m.user)) g.members = [...g.members, m.user];
  }
  for (const r of edit.groupRoles) {
    const g = c.groups[r.group];
    if (g && tenantOf(r.on) === g.tenant && declared(r.role, r.on)) g.roles = [...g.roles, { role: r.role, on: r.on }];
  }
  for (const l of edit.links) {
    const [child, parent] = [c.groups[l.child], c.groups[l.parent]];
    if (!child || !parent || child.tenant !== parent.tenant || child.member_of.includes(l.parent)) continue;
    if (!reaches(c.groups, l.parent, l.child)) child.member_of = [...child.member_of, l.parent];
  }
  for (const u of Object.values(c.users) as Obj[]) u.roles = dedupe(u.roles);
  for (const g of Object.values(c.groups) as Obj[]) g.roles = dedupe(g.roles);
  return c;
}

/** Whether `from` reaches `to` through `member_of` (itself included). */
function reaches(groups: Obj, from: string, to: string): boolean {
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length > 0) {
    const g = stack.pop()!;
    if (g === to) return true;
    if (seen.has(g)) continue;
    seen.add(g);
    stack.push(...(groups[g]?.member_of ?? []));
  }
  return false;
}

const dedupe = (xs: Obj[] = []) => [...new Map(xs.map((x) => [JSON.stringify(x), x])).values()];

/** The state as sorted plain data, for comparing two reads of it. */
export function comparableState(s: LiveState): Obj {
  const sortBy = <T>(xs: T[]) => [...xs].map((x) => JSON.stringify(x)).sort();
  const entries = <V>(m: Map<string, V>, f: (v: V) => unknown) =>
    Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, f(v)]));
  return {
    resources: entries(s.resources, (r) => ({
      actions: [...r.actions].sort(),
      roles: sortBy(r.roles ?? []),
      relations: sortBy(r.relations ?? []),
    })),
    roles: entries(s.roles, (r) => ({
      permissions: [...r.permissions].sort(),
      extends: [...(r.extends ?? [])].sort(),
    })),
    tenants: [...s.tenants.keys()].sort(),
    users: entries(s.users, (u) => ({ roles: sortBy(u.roles), tenants: [...u.tenants].sort() })),
    resourceInstances: entries(s.resourceInstances, (i) => ({
      tenant: i.tenant,
      relations: sortBy(i.relations ?? []),
    })),
    groups: entries(s.groups, (g) => ({
      tenant: g.tenant,
      members: [...g.members].sort(),
      roles: sortBy(g.roles),
      memberOf: [...g.memberOf].sort(),
    })),
  };
}
