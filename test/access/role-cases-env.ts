/**
 * A worked case's environment (role-cases.ts) as each engine's input: the calls another tool would send
 * (the public API only, as test/access/public-env.ts writes its random environments) for `roster serve`,
 * and the state those calls leave (the live state's shapes, without the refused calls) for the graph.
 */
import type { AccessSource } from '../../src/access/from-state.js';
import type { DesiredGroup, DesiredResource, DesiredRole, DesiredUser } from '../../src/types/desired.js';
import type { Write } from './public-env.js';
import type { CaseEnv } from './role-cases.js';

const typeOf = (ref: string) => ref.slice(0, ref.indexOf(':'));
const keyOf = (ref: string) => ref.slice(ref.indexOf(':') + 1);
const w = (method: Write['method'], api: Write['api'], path: string, body: unknown): Write => ({
  method,
  api,
  path,
  body,
});

const tenantOf = (env: CaseEnv, ref: string) => env.instances?.[ref] ?? env.groups?.[ref] ?? '';

/** The calls the service must take, in an order it takes them, and the calls it must refuse. */
export function caseWrites(env: CaseEnv): { taken: Write[]; refused: Write[] } {
  const types = Object.entries(env.types);
  const roles = Object.entries(env.roles ?? {});
  const resourceRoles = types.flatMap(([type, t]) =>
    Object.entries(t.roles ?? {}).map(([key, r]) => ({ type, key, r })),
  );
  const member = (user: string, group: string, tenant: string) =>
    w('PUT', 'schema', `/groups/${group}/users/${user}`, { tenant });
  const link = (child: string, parent: string) =>
    w('PUT', 'schema', `/groups/${child}/assign_group`, { group_instance_key: parent });
  const groupRole = (group: string, role: string, on: string) =>
    w('POST', 'schema', `/groups/${group}/roles`, {
      role,
      resource: typeOf(on),
      resource_instance: keyOf(on),
      tenant: tenantOf(env, group),
    });
  const instanceRole = (user: string, role: string, on: string, tenant: string) =>
    w('POST', 'facts', '/role_assignments', { user, role, tenant, resource_instance: on });
  const taken: Write[] = [
    ...types.map(([key, t]) =>
      w('POST', 'schema', '/resources', {
        key,
        name: key,
        actions: Object.fromEntries((t.actions ?? []).map((a) => [a, {}])),
      }),
    ),
    ...types.flatMap(([type, t]) =>
      Object.entries(t.relations ?? {}).map(([key, subject]) =>
        w('POST', 'schema', `/resources/${type}/relations`, { key, name: key, subject_resource: subject }),
      ),
    ),
    // Roles first, `extends` after: an `extends` naming a role not yet written is refused.
    ...roles.map(([key, r]) => w('POST', 'schema', '/roles', { key, name: key, permissions: r.permissions })),
    ...resourceRoles.map(({ type, key, r }) =>
      w('POST', 'schema', `/resources/${type}/roles`, { key, name: key, permissions: r.permissions }),
    ),
    ...roles.flatMap(([key, r]) => (r.extends ? [w('PATCH', 'schema', `/roles/${key}`, { extends: r.extends })] : [])),
    ...resourceRoles.flatMap(({ type, key, r }) =>
      r.extends ? [w('PATCH', 'schema', `/resources/${type}/roles/${key}`, { extends: r.extends })] : [],
    ),
    ...env.tenants.map((key) => w('POST', 'facts', '/tenants', { key, name: key })),
    ...env.users.map((key) => w('POST', 'facts', '/users', { key })),
    ...Object.entries(env.instances ?? {}).map(([id, tenant]) =>
      w('POST', 'facts', '/resource_instances', { key: keyOf(id), resource: typeOf(id), tenant }),
    ),
    ...Object.entries(env.groups ?? {}).map(([id, tenant]) =>
      w('POST', 'schema', '/groups', {
        group_instance_key: keyOf(id),
        group_resource_type_key: typeOf(id),
        group_tenant: tenant,
      }),
    ),
    // After the groups: `member` (what `team#member` names) is made with the first group.
    ...resourceRoles.flatMap(({ type, key, r }) =>
      (r.derived ?? []).map((d) =>
        w('POST', 'schema', `/resources/${type}/roles/${key}/implicit_grants`, {
          role: d.role,
          on_resource: d.on,
          linked_by_relation: d.via,
          ...(d.noDirect ? { when: { no_direct_roles_on_object: true } } : {}),
        }),
      ),
    ),
    ...(env.tuples ?? []).map(([subject, relation, object]) =>
      w('POST', 'facts', '/relationship_tuples', { subject, relation, object }),
    ),
    ...(env.members ?? []).map(([user, group]) => member(user, group, tenantOf(env, group))),
    ...(env.links ?? []).map(([child, parent]) => link(child, parent)),
    ...(env.groupRoles ?? []).map(([group, role, on]) => groupRole(group, role, on)),
    ...(env.tenantRoles ?? []).map(([user, role, tenant]) =>
      w('POST', 'facts', '/role_assignments', { user, role, tenant }),
    ),
    ...(env.instanceRoles ?? []).map(([user, role, on]) => instanceRole(user, role, on, tenantOf(env, on))),
  ];
  const r = env.refused ?? {};
  const refused: Write[] = [
    ...(r.members ?? []).map(([user, group, tenant]) => member(user, group, tenant)),
    ...(r.links ?? []).map(([child, parent]) => link(child, parent)),
    ...(r.groupRoles ?? []).map(([group, role, on]) => groupRole(group, role, on)),
    ...(r.instanceRoles ?? []).map(([user, role, on, tenant]) => instanceRole(user, role, on, tenant)),
  ];
  return { taken, refused };
}

/**
 * The state the calls leave, in the live state's shapes (what `readLiveState` would read back), for
 * `factsFromState`. Each group type has its `member` role, as the service makes it with the first group.
 */
export function caseState(env: CaseEnv): AccessSource {
  const groupTypes = new Set(Object.keys(env.groups ?? {}).map(typeOf));
  const resources = new Map<string, DesiredResource>(
    Object.entries(env.types).map(([key, t]) => {
      const roles = Object.entries(t.roles ?? {}).map(([rk, r]) => ({
        key: rk,
        name: rk,
        permissions: r.permissions,
        extends: r.extends ?? [],
        grantedTo: (r.derived ?? []).map((d) => ({
          role: d.role,
          on: d.on,
          via: d.via,
          ...(d.noDirect ? { noDirectRolesOnObject: true } : {}),
        })),
      }));
      if (groupTypes.has(key) && !roles.some((r) => r.key === 'member'))
        roles.push({ key: 'member', name: 'member', permissions: [], extends: [], grantedTo: [] });
      const relations = Object.entries(t.relations ?? {}).map(([rk, subject]) => ({ key: rk, name: rk, subject }));
      return [key, { key, name: key, actions: t.actions ?? [], roles, relations }];
    }),
  );
  const roles = new Map<string, DesiredRole>(
    Object.entries(env.roles ?? {}).map(([key, r]) => [
      key,
      { key, name: key, permissions: r.permissions, ...(r.extends ? { extends: r.extends } : {}) },
    ]),
  );
  const users = new Map<string, DesiredUser>(env.users.map((key) => [key, { key, tenants: [], roles: [] }]));
  for (const [user, role, tenant] of env.tenantRoles ?? []) users.get(user)!.roles.push({ role, tenant });
  for (const [user, role, on] of env.instanceRoles ?? [])
    users.get(user)!.roles.push({ role, tenant: tenantOf(env, on), on });
  const resourceInstances = new Map(
    Object.entries(env.instances ?? {}).map(([id, tenant]) => [
      id,
      {
        resource: typeOf(id),
        key: keyOf(id),
        tenant,
        relations: (env.tuples ?? []).filter((t) => t[2] === id).map(([subject, relation]) => ({ relation, subject })),
      },
    ]),
  );
  const groups = new Map<string, DesiredGroup>(
    Object.entries(env.groups ?? {}).map(([id, tenant]) => [
      id,
      {
        type: typeOf(id),
        key: keyOf(id),
        tenant,
        members: (env.members ?? []).filter((m) => m[1] === id).map((m) => m[0]),
        roles: (env.groupRoles ?? []).filter((g) => g[0] === id).map(([, role, on]) => ({ role, on })),
        memberOf: (env.links ?? []).filter((l) => l[0] === id).map((l) => l[1]),
      },
    ]),
  );
  const tenants = new Map(env.tenants.map((key) => [key, { key, name: key }]));
  return { resources, roles, users, resourceInstances, groups, tenants };
}
