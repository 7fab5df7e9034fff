import type { DesiredGroupRole, DesiredResourceInstance, DesiredTuple, DesiredUserRole } from '../types/desired.js';
import type { LiveState } from '../types/live.js';
import type { ScopedRead } from '../api/read-scoped.js';

/**
 * The live state after the apply, as far as the verification can tell: the state the plan was made from
 * with what was read again laid over it, and what the service deletes with a deleted object (its
 * cascades: assignments and grants on a deleted instance, memberships of a deleted user, everything in
 * a deleted tenant) taken out. Objects outside the scope keep the state the plan read: the plan left
 * them as they were. Pure; `base` is not changed.
 */
export function overlayLive(base: LiveState, fresh: ScopedRead): LiveState {
  const out: LiveState = {
    resources: fresh.schema?.resources ?? base.resources,
    roles: fresh.schema?.roles ?? base.roles,
    accessRequests: fresh.configs ?? base.accessRequests,
    tenants: new Map(base.tenants),
    users: new Map(base.users),
    groups: new Map(base.groups),
    resourceInstances: new Map(base.resourceInstances),
    userAttributes: fresh.abac?.userAttributes ?? base.userAttributes,
    tenantAttributes: fresh.abac?.tenantAttributes ?? base.tenantAttributes,
    conditionSets: fresh.abac?.conditionSets ?? base.conditionSets,
    setRules: fresh.abac?.setRules ?? base.setRules,
  };
  const gone = {
    refs: new Set<string>(),
    tenants: new Set<string>(),
    users: new Set<string>(),
    types: new Set<string>(),
    roles: new Set<string>(),
  };
  if (fresh.schema) {
    for (const k of base.resources.keys()) if (!out.resources.has(k)) gone.types.add(k);
    for (const k of base.roles.keys()) if (!out.roles.has(k)) gone.roles.add(k);
  }
  setOrDelete(
    out.tenants,
    fresh.tenants,
    (k) => gone.tenants.add(k),
    (t) => t,
  );
  // An instance or group read back in another tenant was replaced (deleted and made again): what named
  // the old one went with it, as with a deletion; the new one starts without tuples or members.
  const replaced = <T extends { tenant: string }>(was: T | undefined, now: { tenant: string }, k: string) =>
    was !== undefined && was.tenant !== now.tenant && gone.refs.add(k);
  setOrDelete(
    out.resourceInstances,
    fresh.instances,
    (k) => gone.refs.add(k),
    (i, k) => {
      const was = base.resourceInstances.get(k);
      return withRelations(i, replaced(was, i, k) ? undefined : was?.relations);
    },
  );
  setOrDelete(
    out.groups,
    fresh.groups,
    (k) => gone.refs.add(k),
    (g, k) => {
      const was = base.groups.get(k);
      return { ...g, members: replaced(was, g, k) ? [] : (was?.members ?? []) };
    },
  );
  setOrDelete(
    out.users,
    fresh.users,
    (k) => gone.users.add(k),
    (u, k) => ({ ...u, roles: base.users.get(k)?.roles ?? [] }),
  );
  // What the service deleted with them is taken out of what was not read again; then what was read
  // again (assignments, tuples) is laid over, as it is now.
  cascade(out, gone, { groups: new Set(fresh.groups.keys()) });
  for (const [object, tuples] of fresh.tuples) {
    const i = out.resourceInstances.get(object);
    if (i) out.resourceInstances.set(object, withRelations(i, tuples));
  }
  placeAssignments(out, fresh.assignments);
  return out;
}

function setOrDelete<T, R>(
  into: Map<string, R>,
  read: Map<string, T | null>,
  onGone: (key: string) => void,
  make: (value: T, key: string) => R,
): void {
  for (const [k, v] of read) {
    if (v === null) {
      if (into.delete(k)) onGone(k);
    } else into.set(k, make(v, k));
  }
}

function withRelations(
  i: DesiredResourceInstance,
  relations: readonly DesiredTuple[] | undefined,
): DesiredResourceInstance {
  const { relations: _, ...rest } = i;
  return relations && relations.length > 0
    ? { ...rest, relations: [...relations].sort((a, b) => cmp(a.relation, b.relation) || cmp(a.subject, b.subject)) }
    : rest;
}

/**
 * The users' roles and direct memberships as read again, replacing what the plan read. A membership of
 * a group the verification knows nothing of (another writer made it) places the group as far as the
 * membership tells: its key and tenant, with no roles or links, so that the planner sees what holds the
 * user in that tenant.
 */
function placeAssignments(out: LiveState, read: ScopedRead['assignments']): void {
  if (read.size === 0) return;
  const members = new Map<string, Set<string>>();
  for (const [id, g] of out.groups) {
    if (g.members.some((u) => read.has(u))) members.set(id, new Set(g.members));
  }
  for (const [user, { roles, groups }] of read) {
    const u = out.users.get(user);
    if (u) out.users.set(user, { ...u, roles: [...roles].sort(compareUserRoles) });
    const now = new Set(groups.map((g) => g.id));
    for (const [id, set] of members) if (!now.has(id)) set.delete(user);
    for (const { id, tenant } of groups) {
      if (!out.groups.has(id))
        out.groups.set(id, {
          type: id.slice(0, id.indexOf(':')),
          key: id.slice(id.indexOf(':') + 1),
          tenant,
          members: [],
          roles: [],
          memberOf: [],
        });
      // A membership read again in another tenant than the group was read in: another writer made the
      // group again there; the membership, read now, says where it is.
      else if (out.groups.get(id)!.tenant !== tenant) out.groups.set(id, { ...out.groups.get(id)!, tenant });
      let set = members.get(id);
      if (!set) members.set(id, (set = new Set(out.groups.get(id)!.members)));
      set.add(user);
    }
  }
  for (const [id, set] of members) out.groups.set(id, { ...out.groups.get(id)!, members: [...set].sort(cmp) });
}

/**
 * What the service deletes with what is gone: instances and groups of a deleted type or in a deleted
 * tenant; then roles, grants, memberships, links and tuples that name anything deleted.
 */
function cascade(
  out: LiveState,
  gone: { refs: Set<string>; tenants: Set<string>; users: Set<string>; types: Set<string>; roles: Set<string> },
  read: { groups: Set<string> },
): void {
  if (gone.refs.size + gone.tenants.size + gone.users.size + gone.types.size + gone.roles.size === 0) return;
  const typeOf = (ref: string) => ref.slice(0, ref.indexOf(':'));
  for (const [id, i] of out.resourceInstances) {
    if (gone.types.has(i.resource) || gone.tenants.has(i.tenant)) {
      out.resourceInstances.delete(id);
      gone.refs.add(id);
    }
  }
  for (const [id, g] of out.groups) {
    if (gone.types.has(g.type) || gone.tenants.has(g.tenant)) {
      out.groups.delete(id);
      gone.refs.add(id);
    }
  }
  const roleGone = (role: string, on: string | undefined) => !on && gone.roles.has(role);
  const keepRole = (r: DesiredUserRole) =>
    !gone.tenants.has(r.tenant) && !(r.on && gone.refs.has(r.on)) && !roleGone(r.role, r.on);
  for (const [key, u] of out.users) {
    if (u.roles.every(keepRole) && !u.tenants.some((t) => gone.tenants.has(t))) continue;
    out.users.set(key, {
      ...u,
      roles: u.roles.filter(keepRole),
      tenants: u.tenants.filter((t) => !gone.tenants.has(t)),
    });
  }
  // A group read again has its roles and links as they are now; its members are the plan's read.
  const keepGrant = (r: DesiredGroupRole) => !gone.refs.has(r.on) && !gone.types.has(typeOf(r.on));
  for (const [id, g] of out.groups) {
    const fresh = read.groups.has(id);
    const roles = fresh ? g.roles : g.roles.filter(keepGrant);
    const memberOf = fresh ? g.memberOf : g.memberOf.filter((p) => !gone.refs.has(p));
    if (
      g.members.every((m) => !gone.users.has(m)) &&
      roles.length === g.roles.length &&
      memberOf.length === g.memberOf.length
    )
      continue;
    out.groups.set(id, { ...g, members: g.members.filter((m) => !gone.users.has(m)), roles, memberOf });
  }
  for (const [id, i] of out.resourceInstances) {
    if (!i.relations?.some((t) => gone.refs.has(t.subject))) continue;
    out.resourceInstances.set(
      id,
      withRelations(
        i,
        i.relations.filter((t) => !gone.refs.has(t.subject)),
      ),
    );
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const compareUserRoles = (a: DesiredUserRole, b: DesiredUserRole) =>
  cmp(a.tenant, b.tenant) || cmp(a.role, b.role) || cmp(a.on ?? '', b.on ?? '');
