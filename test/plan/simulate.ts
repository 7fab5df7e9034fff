import type {
  DesiredAccessRequestConfig,
  DesiredResource,
  DesiredResourceInstance,
  DesiredRole,
  DesiredTenant,
} from '../../src/types/desired.js';
import { emptyLiveState, type LiveState } from '../../src/types/live.js';
import { MEMBER_ROLE } from '../../src/types/names.js';
import type { Change } from '../../src/plan/change.js';
import type { Plan } from '../../src/plan/types.js';

/**
 * A tiny in-memory model of the service, for property tests of the planner: the facts it stores and
 * the cascades of its foreign keys (src/server/store/migrations.ts), read back the way readLiveState
 * reads them. Applying a change whose prerequisites are missing throws, as the service would answer 404.
 */
export interface World {
  resources: Map<string, DesiredResource>;
  roles: Map<string, DesiredRole>;
  tenants: Map<string, DesiredTenant>;
  users: Map<
    string,
    { key: string; email?: string; first_name?: string; last_name?: string; attributes?: Record<string, unknown> }
  >;
  /** `user@tenant`: users added to a tenant explicitly. */
  tenantRows: Set<string>;
  /** Role assignments, memberships included (`member` on a group). Keyed by all their fields. */
  assignments: Map<string, { user: string; role: string; tenant: string; on?: string }>;
  /** Resource instances, groups' own instances included, by `type:key`. */
  instances: Map<string, DesiredResourceInstance>;
  groups: Set<string>;
  /** `child>parent`. */
  links: Set<string>;
  grants: Map<string, { group: string; role: string; on: string }>;
  accessRequests: Map<string, DesiredAccessRequestConfig>;
}

export function emptyWorld(): World {
  return {
    resources: new Map(),
    roles: new Map(),
    tenants: new Map(),
    users: new Map(),
    tenantRows: new Set(),
    assignments: new Map(),
    instances: new Map(),
    groups: new Set(),
    links: new Set(),
    grants: new Map(),
    accessRequests: new Map(),
  };
}

export const assignmentKey = (a: { user: string; role: string; tenant: string; on?: string }) =>
  `${a.user}|${a.role}|${a.tenant}|${a.on ?? ''}`;
const grantKey = (g: { group: string; role: string; on: string }) => `${g.group}|${g.role}|${g.on}`;

/** What readLiveState would return for this world. */
export function readWorld(w: World): LiveState {
  const live = emptyLiveState();
  for (const r of w.resources.values()) live.resources.set(r.key, structuredClone(r));
  for (const r of w.roles.values()) live.roles.set(r.key, structuredClone(r));
  for (const t of w.tenants.values())
    live.tenants.set(t.key, { ...structuredClone(t), attributes: t.attributes ?? {} });
  for (const u of w.users.values())
    live.users.set(u.key, { ...structuredClone(u), attributes: u.attributes ?? {}, tenants: [], roles: [] });
  for (const ref of w.groups) {
    const i = w.instances.get(ref)!;
    live.groups.set(ref, { type: i.resource, key: i.key, tenant: i.tenant, members: [], roles: [], memberOf: [] });
  }
  for (const [ref, i] of w.instances)
    if (!w.groups.has(ref)) live.resourceInstances.set(ref, { ...structuredClone(i), attributes: i.attributes ?? {} });
  const tenantsOf = new Map<string, Set<string>>();
  const inTenant = (user: string, tenant: string) =>
    (tenantsOf.get(user) ?? tenantsOf.set(user, new Set()).get(user)!).add(tenant);
  for (const row of w.tenantRows) inTenant(row.split('@')[0], row.split('@')[1]);
  for (const a of w.assignments.values()) {
    inTenant(a.user, a.tenant);
    if (a.on && w.groups.has(a.on) && a.role === MEMBER_ROLE) live.groups.get(a.on)!.members.push(a.user);
    else live.users.get(a.user)!.roles.push({ role: a.role, tenant: a.tenant, ...(a.on ? { on: a.on } : {}) });
  }
  for (const g of w.grants.values()) live.groups.get(g.group)!.roles.push({ role: g.role, on: g.on });
  for (const l of w.links) live.groups.get(l.split('>')[0])!.memberOf.push(l.split('>')[1]);
  for (const u of live.users.values()) {
    u.tenants = [...(tenantsOf.get(u.key) ?? [])].sort();
    u.roles.sort((a, b) => cmp(a.tenant, b.tenant) || cmp(a.role, b.role) || cmp(a.on ?? '', b.on ?? ''));
  }
  for (const g of live.groups.values()) {
    g.members.sort(cmp);
    g.memberOf.sort(cmp);
    g.roles.sort((a, b) => cmp(a.role, b.role) || cmp(a.on, b.on));
  }
  for (const a of w.accessRequests.values()) live.accessRequests.set(a.key, structuredClone(a));
  return live;
}

/** Applies every change in plan order; returns the world (changed in place). */
export function applyToWorld(w: World, plan: Plan): World {
  for (const c of plan.changes) applyChange(w, c);
  return w;
}

function need(ok: boolean, what: string, c: Change): void {
  if (!ok) throw new Error(`${c.action} ${c.id}: ${what} does not exist`);
}

function applyChange(w: World, c: Change): void {
  const f = (c.action === 'delete' ? c.before : c.after) as Record<string, any>;
  const put = c.action !== 'delete';
  switch (c.kind) {
    case 'resource':
      if (put)
        w.resources.set(f.key, { key: f.key, name: f.name, description: f.description, actions: f.actions ?? [] });
      else deleteWhere(w, { resource: f.key });
      return;
    case 'role':
      for (const p of put ? ((f.permissions as string[]) ?? []) : [])
        need(w.resources.has(p.split(':')[0]), `resource of ${p}`, c);
      if (put)
        w.roles.set(f.key, { key: f.key, name: f.name, description: f.description, permissions: f.permissions ?? [] });
      else deleteWhere(w, { role: f.key });
      return;
    case 'tenant':
      if (put) w.tenants.set(f.key, { key: f.key, name: f.name, description: f.description, attributes: f.attributes });
      else deleteWhere(w, { tenant: f.key });
      return;
    case 'user':
      if (put)
        w.users.set(f.key, {
          key: f.key,
          email: f.email,
          first_name: f.first_name,
          last_name: f.last_name,
          attributes: f.attributes,
        });
      else deleteWhere(w, { user: f.key });
      return;
    case 'tenant_user':
      if (put) {
        need(w.users.has(f.user) && w.tenants.has(f.tenant), 'user or tenant', c);
        w.tenantRows.add(`${f.user}@${f.tenant}`);
      } else {
        // The service drops the user's every role in the tenant too.
        w.tenantRows.delete(`${f.user}@${f.tenant}`);
        for (const [k, a] of w.assignments) if (a.user === f.user && a.tenant === f.tenant) w.assignments.delete(k);
      }
      return;
    case 'instance':
    case 'group': {
      const ref = `${f.resource ?? f.type}:${f.key}`;
      if (c.action === 'create' && c.replaces) deleteWhere(w, { instance: ref });
      if (c.action === 'create') {
        need(w.tenants.has(f.tenant), 'tenant', c);
        need(!w.instances.has(ref), `no instance ${ref} already`, c);
        if (c.kind === 'group') {
          // The service makes the group type and the member role with the first group.
          if (!w.resources.has(f.type)) w.resources.set(f.type, { key: f.type, name: f.type, actions: [] });
          if (!w.roles.has(MEMBER_ROLE))
            w.roles.set(MEMBER_ROLE, {
              key: MEMBER_ROLE,
              name: 'Member',
              description: 'Membership of a group',
              permissions: [],
            });
          w.groups.add(ref);
        } else need(w.resources.has(f.resource), 'resource', c);
        w.instances.set(ref, {
          resource: f.resource ?? f.type,
          key: f.key,
          tenant: f.tenant,
          attributes: f.attributes,
        });
      } else if (c.action === 'update') w.instances.get(ref)!.attributes = f.attributes;
      else deleteWhere(w, { instance: ref });
      return;
    }
    case 'assignment':
    case 'member': {
      const a =
        c.kind === 'member'
          ? { user: f.user, role: MEMBER_ROLE, tenant: f.tenant, on: f.group }
          : { user: f.user, role: f.role, tenant: f.tenant, on: f.on };
      if (put) {
        need(
          w.users.has(a.user) && w.roles.has(a.role) && w.tenants.has(a.tenant) && (!a.on || w.instances.has(a.on)),
          'user, role, tenant or instance',
          c,
        );
        w.assignments.set(assignmentKey(a), a);
      } else w.assignments.delete(assignmentKey(a));
      return;
    }
    case 'link':
      if (put) need(w.groups.has(f.group) && w.groups.has(f.parent), 'group', c);
      if (put) w.links.add(`${f.group}>${f.parent}`);
      else w.links.delete(`${f.group}>${f.parent}`);
      return;
    case 'grant': {
      const g = { group: f.group, role: f.role, on: f.on };
      if (put)
        need(w.groups.has(g.group) && w.roles.has(g.role) && w.instances.has(g.on), 'group, role or instance', c);
      if (put) w.grants.set(grantKey(g), g);
      else w.grants.delete(grantKey(g));
      return;
    }
    case 'access_requests':
      if (put) w.accessRequests.set(f.key, { key: f.key, name: f.name, reviewerRoles: f.reviewer_roles ?? [] });
      else w.accessRequests.delete(f.key);
      return;
  }
}

/** A delete and its cascades (ON DELETE CASCADE of the service's tables). */
function deleteWhere(
  w: World,
  what: { resource?: string; role?: string; tenant?: string; user?: string; instance?: string },
): void {
  if (what.resource) {
    w.resources.delete(what.resource);
    for (const [ref, i] of w.instances) if (i.resource === what.resource) deleteWhere(w, { instance: ref });
  }
  if (what.role) {
    w.roles.delete(what.role);
    for (const [k, a] of w.assignments) if (a.role === what.role) w.assignments.delete(k);
    for (const [k, g] of w.grants) if (g.role === what.role) w.grants.delete(k);
  }
  if (what.tenant) {
    w.tenants.delete(what.tenant);
    for (const row of w.tenantRows) if (row.endsWith(`@${what.tenant}`)) w.tenantRows.delete(row);
    for (const [k, a] of w.assignments) if (a.tenant === what.tenant) w.assignments.delete(k);
    for (const [ref, i] of w.instances) if (i.tenant === what.tenant) deleteWhere(w, { instance: ref });
  }
  if (what.user) {
    w.users.delete(what.user);
    for (const row of w.tenantRows) if (row.startsWith(`${what.user}@`)) w.tenantRows.delete(row);
    for (const [k, a] of w.assignments) if (a.user === what.user) w.assignments.delete(k);
  }
  if (what.instance) {
    const ref = what.instance;
    w.instances.delete(ref);
    w.groups.delete(ref);
    for (const [k, a] of w.assignments) if (a.on === ref) w.assignments.delete(k);
    for (const [k, g] of w.grants) if (g.on === ref || g.group === ref) w.grants.delete(k);
    for (const l of w.links) if (l.split('>').includes(ref)) w.links.delete(l);
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
