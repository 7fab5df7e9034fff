import { GROUP_IN_GROUP_RELATION, groupGrantRelation } from '../rules/names.js';
import type { ApiClient } from './types.js';
import type { Shape } from './answer.js';
import {
  ASSIGNMENT_ITEM,
  CONFIG_ITEM,
  GROUP_ITEM,
  GROUP_ROLE_ITEM,
  INSTANCE_ITEM,
  RESOURCE_ITEM,
  ROLE_ITEM,
  TENANT_ITEM,
  TUPLE_ITEM,
  USER_ITEM,
} from './shapes.js';
import { pathOf } from './client.js';
import type { ApiError } from '../errors.js';
import { buildNetworkError } from './api-error.js';
import { inferGroupRoles, type Derivation } from './group-roles.js';
import { reviewerRolesOf, type LevelsRead } from './levels.js';
import { attributeRead, placeAbac, readAbac, type ResourceIndex } from './read-abac.js';
import { emptyLiveState, type LiveState } from '../types/live.js';
import { MEMBER_ROLE } from '../types/names.js';
import {
  derivationKey,
  type DesiredDerivation,
  type DesiredRelation,
  type DesiredGroup,
  type DesiredResourceInstance,
  type DesiredResourceRole,
  type DesiredTenant,
  type DesiredUser,
  type DesiredUserRole,
} from '../types/desired.js';

interface DerivationRead {
  role: string;
  on_resource: string;
  linked_by_relation: string;
  when?: { no_direct_roles_on_object?: boolean } | null;
}
export interface ResourceRead {
  id?: string | number;
  key: string;
  name: string;
  description?: string | null;
  actions: Record<string, unknown>;
  /** Attribute definitions of the resource (`AttributeBlockRead` by key). */
  attributes?: Record<string, { type: string; description?: string | null }> | null;
  /** The resource's roles: the public `ResourceRoleRead`, `granted_to.users_with_role` their derivations. */
  roles?: Record<string, ResourceRoleRead> | null;
  /** The public `RelationBlockRead` by relation key: `resource` is the subject resource. */
  relations?: Record<
    string,
    { resource?: string; subject_resource?: string; relation_name?: string; name?: string; description?: string | null }
  > | null;
}
interface ResourceRoleRead {
  id?: string;
  key?: string;
  name?: string;
  description?: string | null;
  permissions?: string[] | null;
  extends?: string[] | null;
  granted_to?: { users_with_role?: DerivationRead[] } | null;
}
export interface RoleRead {
  id?: string;
  key: string;
  name: string;
  description?: string | null;
  permissions?: string[];
  extends?: string[] | null;
}
export interface TenantRead {
  id?: string | number;
  key: string;
  name: string;
  description?: string | null;
  attributes?: Record<string, unknown>;
}
export interface UserRead {
  key: string;
  email?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  attributes?: Record<string, unknown>;
  associated_tenants?: { tenant: string }[];
}
export interface AssignmentRead {
  user: string;
  role: string;
  tenant?: string | null;
  tenant_id?: string | number | null;
  resource_instance?: string | null;
}
export interface InstanceRead {
  key: string;
  resource: string;
  tenant: string;
  attributes?: Record<string, unknown>;
}
export interface GroupRead {
  group_instance_key: string;
  group_tenant: string;
  group_resource_type_key?: string;
}
export interface TupleRead {
  subject: string;
  relation: string;
  object: string;
}
/** `roles_to_levels` values are written as role keys and read as `{id, key, name, resource_id}`. */
export interface ConfigRead {
  key: string;
  name: string;
  elements_type?: string;
  roles_to_levels?: LevelsRead;
}
interface GroupRoleRead {
  key: string;
  resource: { key: string };
  resource_instance: { key: string };
}

/** Page sizes: the public maxima (role assignments allow 1000). */
export const PAGE = 100;
export const ASSIGNMENT_PAGE = 1000;

/**
 * Reads the live environment with paged list calls. Lists are read concurrently; the client bounds what
 * is in flight. Only the query parameters each public list declares are sent: `include_total_count`
 * where it exists (the envelope gives the page count, so later pages are fetched in parallel); users,
 * `groups/direct` and element configurations always answer the envelope.
 */
export async function readLiveState(client: ApiClient): Promise<LiveState> {
  const read = await readLists(client);
  const live = emptyLiveState();
  placeSchema(live, read.resources, read.roles);
  for (const t of read.tenants) live.tenants.set(t.key, tenantRead(t));
  for (const u of read.users) live.users.set(u.key, userRead(u));
  placeGroups(live, read.groups);
  placeInstances(live, read.instances, read.tuples);
  placeMemberships(client, live, read);
  for (const c of read.configs) {
    if (c.elements_type && c.elements_type !== 'user_management') continue;
    // Both reviewer levels: a role at LEVEL_2 reviews as one at LEVEL_1 does (levels.ts).
    live.accessRequests.set(c.key, { key: c.key, name: c.name, reviewerRoles: reviewerRolesOf(c.roles_to_levels) });
  }
  placeAbac(live, await read.abac, resourceIndex(read.resources));
  return live;
}

/** A group as read: its reference, its tenant and the roles it holds (read, or inferred from tuples). */
type GroupWithRoles = ReturnType<typeof groupIdOf> & { tenant: string; roles: { role: string; on: string }[] };

/** Every list the live state is made of, as answered (the ABAC lists still being read). */
interface ListsRead {
  resources: ResourceRead[];
  roles: RoleRead[];
  tenants: TenantRead[];
  users: UserRead[];
  assignments: AssignmentRead[];
  instances: InstanceRead[];
  groups: GroupWithRoles[];
  /** Group-in-group links (`group` relation tuples). */
  links: TupleRead[];
  configs: ConfigRead[];
  /** Tuples of the resources' own relations. */
  tuples: TupleRead[];
  abac: ReturnType<typeof readAbac>;
}

/** The lists, read concurrently (the client bounds what is in flight). */
async function readLists(client: ApiClient): Promise<ListsRead> {
  const { schema, facts, elements } = client.paths;
  // Every item is checked against its list's shape (shapes.ts) as its page arrives: an item this reads
  // into a TypeError is a MALFORMED_ANSWER naming the request and the item instead.
  const all = <T>(path: string, item: Shape, perPage = PAGE, query: Record<string, string> = {}) =>
    client.listAll<T>(path, { perPage, query, item });
  // The count is asked with the first page only: it gives the page count, and counting costs the service.
  const counted = <T>(path: string, item: Shape, perPage = PAGE, query: Record<string, string> = {}) =>
    client.listAll<T>(path, { perPage, query, item, firstPageQuery: { include_total_count: 'true' } });
  // The public group list carries no roles. The tuples and derivations the specification records for
  // group roles fix most groups' roles (group-roles.ts); only the others are read, one `roles` list each.
  // A group type's tuples are read as soon as the resources show the type (its `member` role, or a
  // `<type>_group` derivation), while the other lists are read; a type only the groups show, after them.
  const typeTuples = new Map<string, Promise<TupleRead[]>>();
  const tuplesOfType = (type: string) => {
    let read = typeTuples.get(type);
    if (!read) {
      read = counted<TupleRead>(`${facts}/relationship_tuples`, TUPLE_ITEM, PAGE, { relation: `${type}_group` });
      read.catch(() => {}); // awaited below when a group has the type; a failure then fails the read
      typeTuples.set(type, read);
    }
    return read;
  };
  const readGroups = async (list: GroupRead[]): Promise<GroupWithRoles[]> => {
    const resources = await resourcesRead;
    const refs = list.map(groupIdOf);
    const tuples = await Promise.all([...new Set(refs.map((r) => r.type))].map(tuplesOfType));
    const { known, unresolved } = inferGroupRoles(
      refs.map((r) => r.id),
      derivationsOf(resources),
      tuples.flat(),
    );
    const read = await Promise.all(unresolved.map((id) => readGroupRoles(client, id)));
    unresolved.forEach((id, i) => known.set(id, read[i]));
    return refs.map((r, i) => ({ ...r, tenant: list[i].group_tenant, roles: known.get(r.id)! }));
  };
  const resourcesRead = counted<ResourceRead>(`${schema}/resources`, RESOURCE_ITEM);
  resourcesRead.then(
    (rs) => groupTypesShown(rs).forEach(tuplesOfType),
    () => {},
  );
  const groupsRead = all<GroupRead>(`${schema}/groups/direct`, GROUP_ITEM);
  // Relationship tuples of the resources' own relations (not the group machinery's): one list per relation
  // key, read as soon as the resources name them.
  const relationTuples = resourcesRead.then((rs) => {
    const keys = [...new Set(rs.flatMap((r) => relationsOf(r).map((x) => x.key)))].sort(cmp);
    return Promise.all(
      keys.map((k) => counted<TupleRead>(`${facts}/relationship_tuples`, TUPLE_ITEM, PAGE, { relation: k })),
    ).then((lists) => lists.flat());
  });
  const abac = readAbac(client);
  abac.catch(() => {}); // awaited by readLiveState
  const [resources, roles, tenants, users, assignments, instances, groups, links, configs, tuples] = await Promise.all([
    resourcesRead,
    counted<RoleRead>(`${schema}/roles`, ROLE_ITEM),
    counted<TenantRead>(`${facts}/tenants`, TENANT_ITEM),
    all<UserRead>(`${facts}/users`, USER_ITEM),
    counted<AssignmentRead>(`${facts}/role_assignments`, ASSIGNMENT_ITEM, ASSIGNMENT_PAGE),
    counted<InstanceRead>(`${facts}/resource_instances`, INSTANCE_ITEM),
    groupsRead.then(readGroups),
    counted<TupleRead>(`${facts}/relationship_tuples`, TUPLE_ITEM, PAGE, { relation: 'group' }),
    all<ConfigRead>(`${elements}/config`, CONFIG_ITEM),
    relationTuples,
  ]);
  return { resources, roles, tenants, users, assignments, instances, groups, links, configs, tuples, abac };
}

function placeGroups(live: LiveState, groups: GroupWithRoles[]): void {
  for (const { type, key, id, tenant, roles } of groups) {
    live.groups.set(id, {
      type,
      key,
      tenant,
      members: [],
      roles: [...roles].sort((a, b) => cmp(a.role, b.role) || cmp(a.on, b.on)),
      memberOf: [],
    });
  }
}

/** Resource instances (a group's instance is the group) and the relations they are the object of. */
function placeInstances(live: LiveState, instances: InstanceRead[], tuples: TupleRead[]): void {
  for (const i of instances) {
    const id = `${i.resource}:${i.key}`;
    if (live.groups.has(id)) continue;
    live.resourceInstances.set(id, instanceRead(i));
  }
  for (const t of tuples) {
    const object = live.resourceInstances.get(t.object);
    if (object) (object.relations ??= []).push({ relation: t.relation, subject: t.subject });
  }
  for (const i of live.resourceInstances.values())
    i.relations?.sort((a, b) => cmp(a.relation, b.relation) || cmp(a.subject, b.subject));
}

/** Assignments to users' roles or groups' members, group-in-group links; then each sorted. */
function placeMemberships(client: ApiClient, live: LiveState, read: ListsRead): void {
  const tenantKeyById = tenantKeysById(read.tenants);
  for (const a of read.assignments) {
    const placed = placeAssignment(client, a, tenantKeyById, (g) => live.groups.has(g));
    if (placed.member) live.groups.get(placed.member)!.members.push(a.user);
    else live.users.get(a.user)?.roles.push(placed.role!);
  }
  for (const t of read.links) {
    const child = live.groups.get(t.subject);
    if (child && live.groups.has(t.object)) child.memberOf.push(t.object);
  }
  for (const g of live.groups.values()) sortGroup(g);
  for (const u of live.users.values()) {
    u.roles.sort((a, b) => cmp(a.tenant, b.tenant) || cmp(a.role, b.role) || cmp(a.on ?? '', b.on ?? ''));
  }
}

/** Resource ids to keys and action ids to `resource:action`, for the ABAC reads (read-abac.ts). */
export function resourceIndex(resources: ResourceRead[]): ResourceIndex {
  const keyById = new Map<string, string>();
  const actionById = new Map<string, { resource: string; action: string }>();
  for (const r of resources) {
    if (r.id !== undefined && r.id !== null) keyById.set(String(r.id), r.key);
    for (const [action, a] of Object.entries(r.actions ?? {})) {
      const id = (a as { id?: unknown } | null)?.id;
      if (typeof id === 'string' || typeof id === 'number') actionById.set(String(id), { resource: r.key, action });
    }
  }
  return { keyById, actionById };
}

/** The resources and top-level roles, as the desired state writes them, into `live`. */
export function placeSchema(live: LiveState, resources: ResourceRead[], roles: RoleRead[]): void {
  const topLevelIds = new Set(roles.flatMap((r) => (r.id ? [r.id] : [])));
  for (const r of resources) {
    const roles = resourceRolesOf(r, topLevelIds);
    const relations = relationsOf(r);
    const attributes = Object.entries(r.attributes ?? {})
      .map(([key, a]) => attributeRead({ ...a, key }))
      .sort((a, b) => cmp(a.key, b.key));
    live.resources.set(r.key, {
      key: r.key,
      name: r.name,
      description: r.description || undefined,
      actions: Object.keys(r.actions ?? {}).sort(),
      ...(roles.length > 0 ? { roles } : {}),
      ...(relations.length > 0 ? { relations } : {}),
      ...(attributes.length > 0 ? { attributes } : {}),
    });
  }
  for (const r of roles) {
    const ext = [...new Set(r.extends ?? [])].sort();
    live.roles.set(r.key, {
      key: r.key,
      name: r.name,
      description: r.description || undefined,
      permissions: [...(r.permissions ?? [])].sort(),
      ...(ext.length > 0 ? { extends: ext } : {}),
    });
  }
}

export function tenantRead(t: TenantRead): DesiredTenant {
  return { key: t.key, name: t.name, description: t.description || undefined, attributes: t.attributes ?? {} };
}

/** A user as the desired state writes it, without roles (they come from the role assignments). */
export function userRead(u: UserRead): DesiredUser {
  return {
    key: u.key,
    email: u.email || undefined,
    first_name: u.first_name || undefined,
    last_name: u.last_name || undefined,
    attributes: u.attributes ?? {},
    tenants: [...new Set((u.associated_tenants ?? []).map((t) => t.tenant))].sort(),
    roles: [],
  };
}

/** An instance as the desired state writes it, without relations (they come from the tuples). */
export function instanceRead(i: InstanceRead): DesiredResourceInstance {
  return { resource: i.resource, key: i.key, tenant: i.tenant, attributes: i.attributes ?? {} };
}

export function tenantKeysById(tenants: TenantRead[]): Map<string, string> {
  return new Map(tenants.flatMap((t) => (t.id !== undefined && t.id !== null ? [[String(t.id), t.key] as const] : [])));
}

/**
 * Where one role assignment goes: a membership of a group (`member` on a group's instance), or a role
 * of the user. Its tenant is named, or given by id among `tenantKeyById`; neither is MALFORMED_ANSWER.
 */
export function placeAssignment(
  client: ApiClient,
  a: AssignmentRead,
  tenantKeyById: Map<string, string>,
  isGroup: (ref: string) => boolean,
): { member?: string; tenant: string; role?: DesiredUserRole } {
  const tenant =
    a.tenant ??
    (a.tenant_id !== undefined && a.tenant_id !== null ? tenantKeyById.get(String(a.tenant_id)) : undefined);
  if (tenant === undefined) throw unnamedTenant(client, a);
  const on = a.resource_instance ?? undefined;
  if (on && a.role === MEMBER_ROLE && isGroup(on)) return { member: on, tenant };
  return { tenant, role: { role: a.role, tenant, ...(on ? { on } : {}) } };
}

/** `type:key` of a group read; `group_instance_key` may carry the type prefix or not. */
export function groupIdOf(g: GroupRead): { type: string; key: string; id: string } {
  const type = g.group_resource_type_key ?? 'group';
  const key = g.group_instance_key.startsWith(`${type}:`)
    ? g.group_instance_key.slice(type.length + 1)
    : g.group_instance_key;
  return { type, key, id: `${type}:${key}` };
}

export async function readGroupRoles(client: ApiClient, group: string): Promise<{ role: string; on: string }[]> {
  const items = await client.listAll<GroupRoleRead>(pathOf(client.paths.schema, 'groups', group, 'roles'), {
    perPage: PAGE,
    item: GROUP_ROLE_ITEM,
  });
  return items.map((r) => ({ role: r.key, on: `${r.resource.key}:${r.resource_instance.key}` }));
}

/** The group types the resources show: those with the `member` role, and those a `<type>_group` derivation names. */
function groupTypesShown(resources: ResourceRead[]): string[] {
  const types = new Set(resources.filter((r) => r.roles && MEMBER_ROLE in r.roles).map((r) => r.key));
  for (const d of derivationsOf(resources)) if (d.relation === `${d.fromResource}_group`) types.add(d.fromResource);
  return [...types];
}

/** Every derivation the resources list, as `group-roles.ts` reads them. */
function derivationsOf(resources: ResourceRead[]): Derivation[] {
  return resources.flatMap((r) =>
    Object.entries(r.roles ?? {}).flatMap(([key, role]) =>
      (role.granted_to?.users_with_role ?? []).map((d) => ({
        resource: r.key,
        role: role.key ?? key,
        fromRole: d.role,
        fromResource: d.on_resource,
        relation: d.linked_by_relation,
      })),
    ),
  );
}

/**
 * A resource's roles as the desired state writes them: permissions as the resource's own actions (the
 * public answer may qualify them, `document:read`), `extends` as keys of the same resource, sorted.
 * An entry whose id is a top-level role's is that role derived onto the resource (`roster serve` lists
 * the group derivations of top-level roles given on instances there): not a resource role.
 */
/** A resource's own roles as read (shared with the review's role reads, src/review/source.ts). */
export function resourceRolesOf(r: ResourceRead, topLevelIds: Set<string>): DesiredResourceRole[] {
  const own = (p: string) => (p.startsWith(`${r.key}:`) ? p.slice(r.key.length + 1) : p);
  return Object.entries(r.roles ?? {})
    .filter(([, role]) => !(role.id && topLevelIds.has(role.id)))
    .map(([key, role]): DesiredResourceRole => ({
      key: role.key ?? key,
      name: role.name ?? key,
      description: role.description || undefined,
      permissions: [...new Set((role.permissions ?? []).map(own))].sort(cmp),
      extends: [
        ...new Set((role.extends ?? []).map((e) => (e.startsWith(`${r.key}#`) ? e.slice(r.key.length + 1) : e))),
      ].sort(cmp),
      grantedTo: derivationsRead(role.granted_to?.users_with_role ?? []),
    }))
    .sort((a, b) => cmp(a.key, b.key));
}

/**
 * A role's derivations, without the group machinery's (`<type>#member` through `<type>_group`, or through
 * `group`): those are the records of group grants and links, which the groups section manages.
 */
function derivationsRead(rules: DerivationRead[]): DesiredDerivation[] {
  return rules
    .filter((d) => !isGroupDerivation(d))
    .map((d) => ({
      role: d.role,
      on: d.on_resource,
      via: d.linked_by_relation,
      ...(d.when?.no_direct_roles_on_object ? { noDirectRolesOnObject: true } : {}),
    }))
    .sort((a, b) => cmp(derivationKey(a), derivationKey(b)));
}

/**
 * A resource's relations (`ResourceRead.relations`, keyed by relation; `resource` is the subject), without
 * the group machinery's: `<subject>_group` (a group type to what its groups are given roles on) and
 * `group` (a group type to itself).
 */
function relationsOf(r: ResourceRead): DesiredRelation[] {
  return Object.entries(r.relations ?? {})
    .map(([key, x]): DesiredRelation => {
      const subject = x.resource ?? x.subject_resource ?? '';
      return { key, name: x.relation_name || x.name || key, description: x.description || undefined, subject };
    })
    .filter((x) => x.subject !== '' && x.key !== `${x.subject}_group` && !(x.key === 'group' && x.subject === r.key))
    .sort((a, b) => cmp(a.key, b.key));
}

const isGroupDerivation = (d: DerivationRead) =>
  d.role === MEMBER_ROLE &&
  (d.linked_by_relation === groupGrantRelation(d.on_resource) || d.linked_by_relation === GROUP_IN_GROUP_RELATION);

export function sortGroup(g: DesiredGroup): void {
  g.members.sort(cmp);
  g.memberOf.sort(cmp);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A role assignment whose tenant is neither named nor one of the tenants read: the plan cannot place it. */
function unnamedTenant(client: ApiClient, a: AssignmentRead): ApiError {
  const tenant =
    a.tenant_id === undefined || a.tenant_id === null
      ? 'no tenant'
      : `tenant id ${String(a.tenant_id)}, not among the tenants listed`;
  const message = `the assignment of ${a.role} to ${a.user}${a.resource_instance ? ` on ${a.resource_instance}` : ''} names ${tenant}`;
  return buildNetworkError({
    method: 'GET',
    path: `${client.paths.facts}/role_assignments`,
    code: 'MALFORMED_ANSWER',
    status: 200,
    message,
  });
}
