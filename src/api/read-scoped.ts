import type { ApiClient } from './types.js';
import { expectFields, type Shape } from './answer.js';
import { ApiError } from '../errors.js';
import { pathOf } from './client.js';
import { reviewerRolesOf } from './levels.js';
import {
  ASSIGNMENT_ITEM,
  CONFIG_ITEM,
  GROUP_ITEM,
  INSTANCE_ITEM,
  RESOURCE_ITEM,
  ROLE_ITEM,
  TENANT_ITEM,
  TUPLE_ITEM,
  USER_ITEM,
} from './shapes.js';
import {
  ASSIGNMENT_PAGE,
  PAGE,
  groupIdOf,
  instanceRead,
  placeAssignment,
  placeSchema,
  readGroupRoles,
  resourceIndex,
  tenantKeysById,
  tenantRead,
  userRead,
  type AssignmentRead,
  type ConfigRead,
  type GroupRead,
  type InstanceRead,
  type ResourceRead,
  type RoleRead,
  type TenantRead,
  type TupleRead,
  type UserRead,
} from './read-live.js';
import { emptyLiveState, type LiveState } from '../types/live.js';
import { placeAbac, readAbac } from './read-abac.js';
import type {
  DesiredGroup,
  DesiredResourceInstance,
  DesiredTenant,
  DesiredTuple,
  DesiredUser,
  DesiredUserRole,
} from '../types/desired.js';

/** What a verification reads again, by facet (src/apply/verify-scope.ts derives it from a plan). */
export interface ReadScope {
  /** Resources (with their roles, relations and derivations) and top-level roles: read whole. */
  schema: boolean;
  /** Element configurations: read whole. */
  configs: boolean;
  /** Attribute definitions of users and tenants, condition sets and set rules: read whole (four lists, small). */
  abac: boolean;
  tenants: Set<string>;
  /** Users whose record (fields, tenants) is read. */
  users: Set<string>;
  /** Users whose role assignments (their roles and group memberships) are read. */
  assignmentsOf: Set<string>;
  /** Groups read with their roles and links. */
  groups: Set<string>;
  instances: Set<string>;
  /** Instances whose relationship tuples (as object) are read. */
  tuplesOf: Set<string>;
}

/** How each facet is read: one request per object, or its whole list filtered to the scope. */
export interface ReadModes {
  tenants: 'each' | 'list';
  users: 'each' | 'list';
  /** `filtered`: USERS_PER_READ users per `role_assignments?user=...` request. */
  assignments: 'filtered' | 'list';
  instances: 'each' | 'list';
}

/**
 * Users named in one `role_assignments?user=...` read. The public filter takes a list; the bound keeps
 * the URL well under the 8 KB many proxies allow.
 */
export const USERS_PER_READ = 40;

/**
 * What was read again, facet by facet; `null` is an object read again and found gone. Only the objects
 * of the scope are here.
 */
export interface ScopedRead {
  schema?: Pick<LiveState, 'resources' | 'roles'>;
  configs?: LiveState['accessRequests'];
  abac?: Pick<LiveState, 'userAttributes' | 'tenantAttributes' | 'conditionSets' | 'setRules'>;
  tenants: Map<string, DesiredTenant | null>;
  /** The user's record; its `roles` are empty (they come from `assignments`). */
  users: Map<string, DesiredUser | null>;
  /** By user: their roles, and the groups they are a direct member of (with the membership's tenant). */
  assignments: Map<string, { roles: DesiredUserRole[]; groups: { id: string; tenant: string }[] }>;
  /** By group id: the group with its roles and links (no members: they come from `assignments`). */
  groups: Map<string, Omit<DesiredGroup, 'members'> | null>;
  /** The instance, without relations (they come from `tuples`). */
  instances: Map<string, DesiredResourceInstance | null>;
  /** By object instance: its relationship tuples. */
  tuples: Map<string, DesiredTuple[]>;
}

function emptyScopedRead(): ScopedRead {
  return {
    tenants: new Map(),
    users: new Map(),
    assignments: new Map(),
    groups: new Map(),
    instances: new Map(),
    tuples: new Map(),
  };
}

/**
 * Reads again the objects of a verification's scope (src/apply/verify-scope.ts), each facet the way
 * `reads` chose: one request per object, the role assignments of up to USERS_PER_READ users per request
 * (the public `user` filter takes a list), or the facet's whole list filtered to the scope. `base` is the
 * state the plan was made from: it names the groups and the resources' relations the reads are placed by.
 */
export async function readScoped(
  client: ApiClient,
  options: { scope: ReadScope; reads: ReadModes; base: LiveState },
): Promise<ScopedRead> {
  const { scope, reads, base } = options;
  const fresh = emptyScopedRead();
  const readers = scopedReaders(client);
  const { schemaRead, configsRead, abacRead } = startWholeReads(client, scope, readers.counted);
  // Awaited at the end: a read that fails first must not leave these rejected without a handler (the
  // process would die on an unhandled rejection instead of reporting the first failure).
  for (const read of [schemaRead, configsRead, abacRead]) read?.catch(() => {});

  let tenantsListed: Promise<TenantRead[]> | undefined;
  const tenantList = () =>
    (tenantsListed ??= readers.counted<TenantRead>(`${client.paths.facts}/tenants`, TENANT_ITEM));
  await readKeyedFacets(client, { scope, reads, fresh, readers, tenantList });
  // Placed once the groups are known: a `member` assignment on a group's instance is a membership. One
  // on an instance neither read again nor in the plan's read (another writer made it) is taken for a
  // group's unless the plan read it as an instance: `member` is the group types' role.
  const isGroup = (ref: string) =>
    fresh.groups.has(ref) ? fresh.groups.get(ref) !== null : base.groups.has(ref) || !base.resourceInstances.has(ref);
  const resources = schemaRead ? (await schemaRead).resources : base.resources;
  await Promise.all([
    readAssignments(client, readers.counted, {
      users: scope.assignmentsOf,
      mode: reads.assignments,
      into: fresh,
      isGroupRef: isGroup,
      tenants: tenantList,
    }),
    readTuples(client, scope.tuplesOf, fresh, resources),
  ]);
  if (schemaRead) fresh.schema = await schemaRead;
  if (configsRead) fresh.configs = await configsRead;
  if (abacRead) fresh.abac = await abacRead;
  return fresh;
}

type Counted = <T>(
  path: string,
  item: Shape,
  perPage?: number,
  query?: Record<string, string | string[]>,
) => Promise<T[]>;
type One = <T>(path: string, item: Shape) => Promise<T | null>;

/** A whole list read with its total count asked on the first page (`counted`), and one object or null (`one`). */
function scopedReaders(client: ApiClient): { counted: Counted; one: One } {
  const counted = <T>(path: string, item: Shape, perPage = PAGE, query: Record<string, string | string[]> = {}) =>
    client.listAll<T>(path, { perPage, query, item, firstPageQuery: { include_total_count: 'true' } });
  const one = <T>(path: string, item: Shape) =>
    client.get<T>(path, { expect: expectFields(item) }).catch((err: unknown) => {
      if (err instanceof ApiError && err.info.status === 404) return null;
      throw err;
    });
  return { counted, one };
}

/** Starts the reads of the facets read whole (schema, ABAC lists, access-request configs), not awaited. */
function startWholeReads(client: ApiClient, scope: ReadScope, counted: Counted) {
  const { schema, elements } = client.paths;
  const resourcesRead = scope.schema ? counted<ResourceRead>(`${schema}/resources`, RESOURCE_ITEM) : undefined;
  const schemaRead = resourcesRead
    ? Promise.all([resourcesRead, counted<RoleRead>(`${schema}/roles`, ROLE_ITEM)]).then(([resources, roles]) => {
        const into = emptyLiveState();
        placeSchema(into, resources, roles);
        return { resources: into.resources, roles: into.roles };
      })
    : undefined;
  // The ABAC lists; the resources (for ids in the answers) when they are read anyway.
  const abacRead = scope.abac
    ? Promise.all([readAbac(client), resourcesRead ?? Promise.resolve([])]).then(([read, resources]) => {
        const into = emptyLiveState();
        placeAbac(into, read, resourceIndex(resources));
        return {
          userAttributes: into.userAttributes,
          tenantAttributes: into.tenantAttributes,
          conditionSets: into.conditionSets,
          setRules: into.setRules,
        };
      })
    : undefined;
  const configsRead = scope.configs
    ? client.listAll<ConfigRead>(`${elements}/config`, { perPage: PAGE, item: CONFIG_ITEM }).then((configs) => {
        const into = emptyLiveState().accessRequests;
        for (const c of configs)
          if (!c.elements_type || c.elements_type === 'user_management')
            into.set(c.key, { key: c.key, name: c.name, reviewerRoles: reviewerRolesOf(c.roles_to_levels) });
        return into;
      })
    : undefined;
  return { schemaRead, configsRead, abacRead };
}

/** Reads the keys of one facet, one request each or the whole list filtered, into `into` (null: not found). */
async function readKeyed<R, T>(
  keys: Set<string>,
  mode: 'each' | 'list',
  each: (k: string) => Promise<R | null>,
  list: () => Promise<R[]>,
  keyOf: (r: R) => string,
  into: Map<string, T | null>,
  make: (r: R) => T,
): Promise<void> {
  if (keys.size === 0) return;
  if (mode === 'list') {
    const found = new Map((await list()).filter((r) => keys.has(keyOf(r))).map((r) => [keyOf(r), r]));
    for (const k of keys) into.set(k, found.has(k) ? make(found.get(k)!) : null);
  } else {
    const got = await Promise.all([...keys].map(each));
    [...keys].forEach((k, i) => into.set(k, got[i] === null ? null : make(got[i]!)));
  }
}

/** The scope's tenants, users, instances and groups, read by key, together. */
async function readKeyedFacets(
  client: ApiClient,
  o: {
    scope: ReadScope;
    reads: ReadModes;
    fresh: ScopedRead;
    readers: { counted: Counted; one: One };
    tenantList: () => Promise<TenantRead[]>;
  },
): Promise<void> {
  const { scope, reads, fresh } = o;
  const { counted, one } = o.readers;
  const { facts } = client.paths;
  await Promise.all([
    readKeyed(
      scope.tenants,
      reads.tenants,
      (k) => one<TenantRead>(pathOf(facts, 'tenants', k), TENANT_ITEM),
      o.tenantList,
      (t) => t.key,
      fresh.tenants,
      tenantRead,
    ),
    readKeyed(
      scope.users,
      reads.users,
      (k) => one<UserRead>(pathOf(facts, 'users', k), USER_ITEM),
      () => client.listAll<UserRead>(`${facts}/users`, { perPage: PAGE, item: USER_ITEM }),
      (u) => u.key,
      fresh.users,
      userRead,
    ),
    readKeyed(
      scope.instances,
      reads.instances,
      (k) => one<InstanceRead>(pathOf(facts, 'resource_instances', k), INSTANCE_ITEM),
      () => counted<InstanceRead>(`${facts}/resource_instances`, INSTANCE_ITEM),
      (i: InstanceRead) => `${i.resource}:${i.key}`,
      fresh.instances,
      instanceRead,
    ),
    readGroups(client, scope.groups, fresh, one),
  ]);
}

/** The role assignments of the scope's users, placed as roles or (a `member` on a group) memberships. */
async function readAssignments(
  client: ApiClient,
  counted: Counted,
  o: {
    users: Set<string>;
    mode: ReadModes['assignments'];
    into: ScopedRead;
    isGroupRef: (ref: string) => boolean;
    tenants: () => Promise<TenantRead[]>;
  },
) {
  const { users, mode, into, isGroupRef, tenants } = o;
  const { facts } = client.paths;
  if (users.size === 0) return;
  const keys = [...users].sort();
  const read =
    mode === 'list'
      ? counted<AssignmentRead>(`${facts}/role_assignments`, ASSIGNMENT_ITEM, ASSIGNMENT_PAGE)
      : Promise.all(
          chunks(keys, USERS_PER_READ).map((some) =>
            counted<AssignmentRead>(`${facts}/role_assignments`, ASSIGNMENT_ITEM, ASSIGNMENT_PAGE, { user: some }),
          ),
        ).then((l) => l.flat());
  const assignments = (await read).filter((a) => users.has(a.user));
  // The tenant is named on every assignment our server and the public service return; only an
  // assignment naming its tenant by id needs the tenants listed.
  const byId = assignments.some((a) => a.tenant === undefined || a.tenant === null)
    ? tenantKeysById(await tenants())
    : new Map<string, string>();
  for (const k of keys) into.assignments.set(k, { roles: [], groups: [] });
  for (const a of assignments) {
    const placed = placeAssignment(client, a, byId, isGroupRef);
    const mine = into.assignments.get(a.user)!;
    if (placed.member) mine.groups.push({ id: placed.member, tenant: placed.tenant });
    else mine.roles.push(placed.role!);
  }
}

/** Each group of the scope: its record, its roles, and the groups it is linked into. */
async function readGroups(
  client: ApiClient,
  groups: Set<string>,
  into: ScopedRead,
  one: <T>(path: string, item: Shape) => Promise<T | null>,
): Promise<void> {
  const { schema, facts } = client.paths;
  await Promise.all(
    [...groups].map(async (id) => {
      const g = await one<GroupRead>(pathOf(schema, 'groups', 'direct', id), GROUP_ITEM);
      if (g === null) return void into.groups.set(id, null);
      const { type, key } = groupIdOf(g);
      const [roles, links] = await Promise.all([
        readGroupRoles(client, id),
        client.listAll<TupleRead>(`${facts}/relationship_tuples`, {
          perPage: PAGE,
          query: { relation: 'group', subject: id },
          item: TUPLE_ITEM,
        }),
      ]);
      into.groups.set(id, {
        type,
        key,
        tenant: g.group_tenant,
        roles: roles.sort((a, b) => cmp(a.role, b.role) || cmp(a.on, b.on)),
        memberOf: [...new Set(links.filter((t) => t.subject === id).map((t) => t.object))].sort(cmp),
      });
    }),
  );
}

/** The tuples of each object of the scope, of its resource's own relations (not the group machinery's). */
async function readTuples(
  client: ApiClient,
  objects: Set<string>,
  into: ScopedRead,
  resources: LiveState['resources'],
): Promise<void> {
  await Promise.all(
    [...objects].map(async (object) => {
      const own = new Set((resources.get(object.slice(0, object.indexOf(':')))?.relations ?? []).map((r) => r.key));
      const tuples = await client.listAll<TupleRead>(`${client.paths.facts}/relationship_tuples`, {
        perPage: PAGE,
        query: { object },
        item: TUPLE_ITEM,
      });
      into.tuples.set(
        object,
        tuples
          .filter((t) => t.object === object && own.has(t.relation))
          .map((t) => ({ relation: t.relation, subject: t.subject })),
      );
    }),
  );
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
