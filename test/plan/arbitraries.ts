import fc from 'fast-check';
import { emptyDesiredState, SECTIONS, type DesiredState, type Section } from '../../src/types/desired.js';
import { sortDesiredState } from '../../src/config/sort.js';
import { splitRef } from '../../src/types/refs.js';
import { MEMBER_ROLE } from '../../src/types/names.js';
import { assignmentKey, emptyWorld, readWorld, type World } from './simulate.js';

/**
 * Random desired and live states over a small universe of keys (so that they overlap), each consistent
 * the way the configuration rules and the service make them: references resolve, roles on instances are
 * in the instance's tenant, links join groups of one type and tenant without cycles.
 */
const USERS = ['u1', 'u2', 'u3'];
const TENANTS = ['t1', 't2'];
const ROLES = ['r1', 'r2', 'r3'];
const INSTANCES = ['doc:i1', 'doc:i2', 'inv:i3'];
const GROUPS = ['team:g1', 'team:g2', 'team:g3', 'group:g4'];
const PERMISSIONS = ['doc:read', 'doc:write', 'inv:read'];

const pick = <T>(items: T[]) => fc.constantFrom(...items);
const small = <T>(arb: fc.Arbitrary<T>, maxLength = 6) => fc.array(arb, { maxLength });
const attrs = fc.constantFrom(undefined, {}, { level: 1 }, { level: 2 });

export const worldArb = fc.record({
  resources: fc.subarray(['doc', 'inv']),
  resourceName: fc.constantFrom('Doc', 'doc'),
  roles: fc.subarray(ROLES),
  permissions: fc.tuple(fc.subarray(PERMISSIONS), fc.subarray(PERMISSIONS), fc.subarray(PERMISSIONS)),
  tenants: fc.subarray(TENANTS),
  tenantAttributes: attrs,
  users: fc.subarray(USERS),
  email: fc.constantFrom(undefined, 'a@x.test', 'b@x.test'),
  rows: small(fc.tuple(pick(USERS), pick(TENANTS))),
  userRoles: small(fc.tuple(pick(USERS), pick(ROLES), pick([...TENANTS, ...INSTANCES, ...GROUPS]))),
  instances: small(fc.tuple(pick(INSTANCES), pick(TENANTS), attrs), 3),
  groups: small(fc.tuple(pick(GROUPS), pick(TENANTS)), 4),
  members: small(fc.tuple(pick(USERS), pick(GROUPS)), 8),
  grants: small(fc.tuple(pick(GROUPS), pick(ROLES), pick(INSTANCES))),
  links: small(fc.tuple(pick(GROUPS), pick(GROUPS))),
  reviewers: fc.option(fc.subarray(ROLES), { nil: undefined }),
});
export type Choices = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

/** Keeps what is consistent of the choices. */
export function buildWorld(c: Choices): World {
  const w = emptyWorld();
  for (const r of c.resources)
    w.resources.set(r, { key: r, name: r === 'doc' ? c.resourceName : r, actions: ['read', 'write'] });
  c.roles.forEach((r, i) =>
    w.roles.set(r, {
      key: r,
      name: r,
      permissions: c.permissions[i].filter((p) => w.resources.has(splitRef(p).type)).sort(),
    }),
  );
  for (const t of c.tenants) w.tenants.set(t, { key: t, name: t, attributes: c.tenantAttributes });
  for (const u of c.users) w.users.set(u, { key: u, email: u === 'u1' ? c.email : undefined });
  for (const [u, t] of c.rows) if (w.users.has(u) && w.tenants.has(t)) w.tenantRows.add(`${u}@${t}`);
  for (const [ref, t, a] of c.instances)
    if (!w.instances.has(ref) && w.tenants.has(t) && w.resources.has(splitRef(ref).type))
      w.instances.set(ref, { ...splitRef(ref), resource: splitRef(ref).type, tenant: t, attributes: a });
  for (const [ref, t] of c.groups) {
    if (w.instances.has(ref) || !w.tenants.has(t)) continue;
    w.instances.set(ref, { resource: splitRef(ref).type, key: splitRef(ref).key, tenant: t });
    w.groups.add(ref);
  }
  if (w.groups.size > 0) {
    for (const type of new Set([...w.groups].map((g) => splitRef(g).type)))
      if (!w.resources.has(type)) w.resources.set(type, { key: type, name: type, actions: [] });
    w.roles.set(MEMBER_ROLE, {
      key: MEMBER_ROLE,
      name: 'Member',
      description: 'Membership of a group',
      permissions: [],
    });
  }
  const tenantOf = (ref: string) => w.instances.get(ref)?.tenant;
  for (const [u, role, where] of c.userRoles) {
    if (!w.users.has(u) || !w.roles.has(role)) continue;
    const a = where.includes(':')
      ? { user: u, role, tenant: tenantOf(where)!, on: where }
      : { user: u, role, tenant: where };
    if (w.tenants.has(a.tenant) && (!a.on || w.instances.has(a.on))) w.assignments.set(assignmentKey(a), a);
  }
  for (const [u, g] of c.members) {
    if (w.users.has(u) && w.groups.has(g)) {
      const a = { user: u, role: MEMBER_ROLE, tenant: tenantOf(g)!, on: g };
      w.assignments.set(assignmentKey(a), a);
    }
  }
  for (const [g, role, on] of c.grants)
    if (w.groups.has(g) && w.roles.has(role) && tenantOf(on) === tenantOf(g) && !w.groups.has(on))
      w.grants.set(`${g}|${role}|${on}`, { group: g, role, on });
  // Acyclic: a group links only into groups listed before it.
  for (const [child, parent] of c.links) {
    const ok = w.groups.has(child) && w.groups.has(parent) && GROUPS.indexOf(parent) < GROUPS.indexOf(child);
    if (ok && splitRef(child).type === splitRef(parent).type && tenantOf(child) === tenantOf(parent))
      w.links.add(`${child}>${parent}`);
  }
  if (c.reviewers)
    w.accessRequests.set('default', {
      key: 'default',
      name: 'Default',
      reviewerRoles: c.reviewers.filter((r) => w.roles.has(r)).sort(),
    });
  return w;
}

/** Sections a configuration needs once it has a section (its rules make references resolve). */
const NEEDS: Partial<Record<Section, Section[]>> = {
  roles: ['resources'],
  resource_instances: ['resources', 'tenants'],
  users: ['tenants', 'roles', 'resources'],
  groups: ['tenants', 'users', 'roles', 'resources'],
  access_requests: ['roles', 'resources'],
};

/**
 * The desired state a configuration with `sections` would give for the world: the service-made member
 * role and group types are not declared, and references into sections it lacks are dropped.
 */
export function desiredOf(w: World, chosen: Section[]): DesiredState {
  const sections = new Set<Section>(chosen);
  for (const s of chosen) for (const n of NEEDS[s] ?? []) sections.add(n);
  const has = (s: Section) => sections.has(s);
  const d = emptyDesiredState();
  d.sections = sections;
  const live = readWorld(w);
  if (has('resources')) for (const [k, r] of live.resources) if (!['team', 'group'].includes(k)) d.resources.set(k, r);
  if (has('roles')) for (const [k, r] of live.roles) if (k !== MEMBER_ROLE) d.roles.set(k, r);
  if (has('tenants')) for (const [k, t] of live.tenants) d.tenants.set(k, t);
  if (has('resource_instances')) for (const [k, i] of live.resourceInstances) d.resourceInstances.set(k, i);
  if (has('groups')) for (const [k, g] of live.groups) d.groups.set(k, g);
  if (has('users')) {
    for (const [k, u] of live.users) {
      const roles = u.roles.filter((r) => !r.on || (w.groups.has(r.on) ? has('groups') : has('resource_instances')));
      // The configuration lists the tenants the user was added to; the service adds those of roles and groups.
      const tenants = [...w.tenantRows].filter((row) => row.startsWith(`${k}@`)).map((row) => row.split('@')[1]);
      d.users.set(k, { ...u, tenants, roles });
    }
  }
  if (has('groups') && !has('resource_instances')) for (const g of d.groups.values()) g.roles = [];
  if (has('access_requests')) for (const [k, a] of live.accessRequests) d.accessRequests.set(k, a);
  return sortDesiredState(structuredClone(d));
}

export const sectionsArb = fc.subarray([...SECTIONS], { minLength: 1 });

/**
 * The world as Roster leaves it: each declared user is added to every declared tenant they are in (from
 * the first apply), not only held there by roles or memberships. The live state reads presence as one
 * fact, and the planner takes it for that (docs/plan.md, "Tenant presence").
 */
export function withDeclaredPresence(w: World, desired: DesiredState): World {
  if (!desired.sections.has('users')) return w;
  const live = readWorld(w);
  for (const u of desired.users.values()) {
    for (const t of u.tenants) if (live.users.get(u.key)?.tenants.includes(t)) w.tenantRows.add(`${u.key}@${t}`);
  }
  return w;
}

/** A membership-only edit of a desired state: every group's members replaced by those `members` give. */
export function withMembers(desired: DesiredState, members: [string, string][]): DesiredState {
  const d = structuredClone(desired);
  for (const g of d.groups.values()) g.members = [];
  for (const [u, g] of members) if (d.users.has(u) && d.groups.has(g)) d.groups.get(g)!.members.push(u);
  return sortDesiredState(d);
}

export const membersArb = small(fc.tuple(pick(USERS), pick(GROUPS)), 8);
