/**
 * The live state as it will be once a plan is applied: the plan's changes carried out on a copy of the
 * live state, with the service's cascades (src/server/store/migrations.ts: deleting a role, tenant,
 * user, instance or group deletes what hangs on it). Pure, copy-on-write: untouched users and groups
 * are shared with `live`. Used for the plan's access section, so it is exact by construction: the
 * "after" side of the access diff is what these changes make, whatever the configuration manages.
 */
import type { DesiredGroup, DesiredUser } from '../types/desired.js';
import type { LiveState } from '../types/live.js';
import { fieldsOf, type Change } from './change.js';
import { typeOf } from '../types/refs.js';
import { AUTOGEN_SET_PREFIX, type AttributeType, type DesiredSetRule } from '../types/abac.js';
import { ruleKeyOf } from './abac.js';

const attribute = (f: { key: string; type: string; description?: string }) => ({
  key: f.key,
  type: f.type as AttributeType,
  ...(f.description ? { description: f.description } : {}),
});

export function liveAfter(live: LiveState, changes: readonly Change[]): LiveState {
  const s: LiveState = {
    resources: new Map(live.resources),
    roles: new Map(live.roles),
    tenants: new Map(live.tenants),
    users: new Map(live.users),
    resourceInstances: new Map(live.resourceInstances),
    groups: new Map(live.groups),
    accessRequests: new Map(live.accessRequests),
    userAttributes: new Map(live.userAttributes),
    tenantAttributes: new Map(live.tenantAttributes),
    conditionSets: new Map(live.conditionSets),
    setRules: new Map(live.setRules),
  };
  const ownUsers = new Set<string>();
  const ownGroups = new Set<string>();
  const user = (key: string): DesiredUser => {
    let u = s.users.get(key);
    if (!u) s.users.set(key, (u = { key, tenants: [], roles: [] }));
    else if (!ownUsers.has(key)) s.users.set(key, (u = { ...u, tenants: [...u.tenants], roles: [...u.roles] }));
    ownUsers.add(key);
    return u;
  };
  const group = (ref: string): DesiredGroup | undefined => {
    let g = s.groups.get(ref);
    if (g && !ownGroups.has(ref))
      s.groups.set(ref, (g = { ...g, members: [...g.members], roles: [...g.roles], memberOf: [...g.memberOf] }));
    ownGroups.add(ref);
    return g;
  };
  const eachUser = (pred: (u: DesiredUser) => boolean, edit: (u: DesiredUser) => void) => {
    for (const [k, u] of s.users) if (pred(u)) edit(user(k));
  };
  const eachGroup = (pred: (g: DesiredGroup) => boolean, edit: (g: DesiredGroup) => void) => {
    for (const [k, g] of s.groups) if (pred(g)) edit(group(k)!);
  };

  const deleteInstance = (ref: string) => {
    s.resourceInstances.delete(ref);
    s.groups.delete(ref);
    for (const [other, i] of s.resourceInstances) {
      if (i.relations?.some((t) => t.subject === ref))
        s.resourceInstances.set(other, { ...i, relations: i.relations.filter((t) => t.subject !== ref) });
    }
    eachUser(
      (u) => u.roles.some((r) => r.on === ref),
      (u) => (u.roles = u.roles.filter((r) => r.on !== ref)),
    );
    eachGroup(
      (g) => g.roles.some((r) => r.on === ref) || g.memberOf.includes(ref),
      (g) => {
        g.roles = g.roles.filter((r) => r.on !== ref);
        g.memberOf = g.memberOf.filter((p) => p !== ref);
      },
    );
  };
  // The service lists a user in a tenant while they hold a role or a membership there (or were added to
  // it, which the live state cannot tell apart: a user both added and assigned is taken as assigned only).
  const leaveTenantIfNothingLeft = (key: string, tenant: string) => {
    const u = s.users.get(key);
    if (!u?.tenants.includes(tenant) || u.roles.some((r) => r.tenant === tenant)) return;
    if ([...s.groups.values()].some((g) => g.tenant === tenant && g.members.includes(key))) return;
    user(key).tenants = u.tenants.filter((t) => t !== tenant);
  };
  const isResourceRole = (role: string, on: string) =>
    s.resources.get(typeOf(on))?.roles?.some((r) => r.key === role) === true;
  // The service deletes the set rules that need what goes (a set, a role's or resource's own set, an action).
  const dropRules = (pred: (r: DesiredSetRule) => boolean) => {
    for (const [k, r] of s.setRules) if (pred(r)) s.setRules.delete(k);
  };
  const instancesWhere = (pred: (type: string, tenant: string) => boolean) => [
    ...[...s.resourceInstances].filter(([, i]) => pred(i.resource, i.tenant)).map(([ref]) => ref),
    ...[...s.groups].filter(([, g]) => pred(g.type, g.tenant)).map(([ref]) => ref),
  ];

  for (const c of changes) {
    const { kind, fields: f } = fieldsOf(c);
    const put = c.action !== 'delete';
    switch (kind) {
      case 'resource':
        if (put) {
          // Its roles, relations and attributes are changes of their own (kinds resource_role, relation,
          // resource_attribute): kept as they are.
          const { roles, relations, attributes } = s.resources.get(f.key) ?? {};
          s.resources.set(f.key, {
            key: f.key,
            name: f.name,
            description: f.description,
            actions: f.actions ?? [],
            ...(roles ? { roles } : {}),
            ...(relations ? { relations } : {}),
            ...(attributes ? { attributes } : {}),
          });
          const actions = new Set(f.actions ?? []);
          dropRules((r) => r.resource === f.key && !actions.has(r.action));
        } else {
          s.resources.delete(f.key);
          for (const ref of instancesWhere((type) => type === f.key)) deleteInstance(ref);
          const sets = new Set([`${AUTOGEN_SET_PREFIX}${f.key}`]);
          for (const [k, set] of s.conditionSets)
            if (set.type === 'resourceset' && set.resource === f.key) (sets.add(k), s.conditionSets.delete(k));
          dropRules((r) => r.resource === f.key || sets.has(r.resourceSet));
        }
        break;
      case 'resource_role': {
        const resource = s.resources.get(f.resource);
        if (!resource) break;
        const others = (resource.roles ?? []).filter((r) => r.key !== f.key);
        // Derivations are changes of their own (`derivation`): an edit of the role keeps them.
        const grantedTo = (resource.roles ?? []).find((r) => r.key === f.key)?.grantedTo ?? [];
        const role = {
          key: f.key,
          name: f.name,
          description: f.description,
          permissions: f.permissions ?? [],
          extends: f.extends ?? [],
          grantedTo,
        };
        s.resources.set(f.resource, {
          ...resource,
          roles: put ? [...others, role].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) : others,
        });
        if (!put) {
          // Deleting a resource role deletes what holds it: roles named on instances of its resource.
          const onIt = (r: { role: string; on?: string }) =>
            r.role === f.key && r.on !== undefined && r.on.startsWith(`${f.resource}:`);
          eachUser(
            (u) => u.roles.some(onIt),
            (u) => (u.roles = u.roles.filter((r) => !onIt(r))),
          );
          eachGroup(
            (g) => g.roles.some(onIt),
            (g) => (g.roles = g.roles.filter((r) => !onIt(r))),
          );
        }
        break;
      }
      case 'relation': {
        const resource = s.resources.get(f.resource);
        if (!resource) break;
        const others = (resource.relations ?? []).filter((r) => r.key !== f.key);
        if (!put || (c.action === 'create' && c.replaces)) {
          // Deleting a relation deletes its tuples and the derivations through it.
          for (const [ref, i] of s.resourceInstances) {
            if (i.resource === f.resource && i.relations?.some((t) => t.relation === f.key))
              s.resourceInstances.set(ref, { ...i, relations: i.relations.filter((t) => t.relation !== f.key) });
          }
          s.resources.set(f.resource, {
            ...resource,
            roles: resource.roles?.map((r) => ({ ...r, grantedTo: r.grantedTo.filter((d) => d.via !== f.key) })),
          });
        }
        const relation = { key: f.key, name: f.name, description: f.description, subject: f.subject };
        s.resources.set(f.resource, {
          ...s.resources.get(f.resource)!,
          relations: put ? [...others, relation] : others,
        });
        break;
      }
      case 'derivation': {
        const resource = s.resources.get(f.resource);
        if (!resource?.roles) break;
        const same = (d: { role: string; on: string; via: string }) =>
          d.role === f.from && d.on === f.on && d.via === f.via;
        const rule = {
          role: f.from,
          on: f.on,
          via: f.via,
          ...(f.no_direct_roles_on_object ? { noDirectRolesOnObject: true } : {}),
        };
        const roles = resource.roles.map((r) =>
          r.key === f.role ? { ...r, grantedTo: [...r.grantedTo.filter((d) => !same(d)), ...(put ? [rule] : [])] } : r,
        );
        s.resources.set(f.resource, { ...resource, roles });
        break;
      }
      case 'tuple': {
        const object = s.resourceInstances.get(f.object);
        if (!object) break;
        const others = (object.relations ?? []).filter((t) => !(t.relation === f.relation && t.subject === f.subject));
        s.resourceInstances.set(f.object, {
          ...object,
          relations: put ? [...others, { relation: f.relation, subject: f.subject }] : others,
        });
        break;
      }
      case 'role':
        if (put) {
          // The change carries the role's whole `extends` (the planner fills in the live one for a role
          // that does not write it): none when absent.
          s.roles.set(f.key, {
            key: f.key,
            name: f.name,
            description: f.description,
            permissions: f.permissions ?? [],
            ...(f.extends?.length ? { extends: f.extends } : {}),
          });
        } else {
          s.roles.delete(f.key);
          // The service drops a deleted role from the `extends` of the others.
          for (const [k, r] of s.roles) {
            if (!r.extends?.includes(f.key)) continue;
            const { extends: ext, ...rest } = r;
            const kept = ext!.filter((e) => e !== f.key);
            s.roles.set(k, kept.length > 0 ? { ...rest, extends: kept } : rest);
          }
          dropRules((r) => r.userSet === `${AUTOGEN_SET_PREFIX}${f.key}`);
          // What holds the top-level role: tenant-wide roles, and roles on instances whose type has no
          // resource role of that key (those name the resource role instead).
          const held = (r: { role: string; on?: string }) =>
            r.role === f.key && (r.on === undefined || !isResourceRole(f.key, r.on));
          eachUser(
            (u) => u.roles.some(held),
            (u) => (u.roles = u.roles.filter((r) => !held(r))),
          );
          eachGroup(
            (g) => g.roles.some(held),
            (g) => (g.roles = g.roles.filter((r) => !held(r))),
          );
        }
        break;
      case 'tenant':
        if (put)
          s.tenants.set(f.key, { key: f.key, name: f.name, description: f.description, attributes: f.attributes });
        else {
          s.tenants.delete(f.key);
          for (const ref of instancesWhere((_, tenant) => tenant === f.key)) deleteInstance(ref);
          eachUser(
            (u) => u.tenants.includes(f.key) || u.roles.some((r) => r.tenant === f.key),
            (u) => {
              u.tenants = u.tenants.filter((t) => t !== f.key);
              u.roles = u.roles.filter((r) => r.tenant !== f.key);
            },
          );
        }
        break;
      case 'user':
        if (put)
          Object.assign(user(f.key), {
            email: f.email,
            first_name: f.first_name,
            last_name: f.last_name,
            attributes: f.attributes,
          });
        else {
          s.users.delete(f.key);
          eachGroup(
            (g) => g.members.includes(f.key),
            (g) => (g.members = g.members.filter((m) => m !== f.key)),
          );
        }
        break;
      case 'tenant_user':
        if (put) {
          const u = user(f.user);
          if (!u.tenants.includes(f.tenant)) u.tenants.push(f.tenant);
        } else if (s.users.has(f.user)) {
          // Leaving a tenant drops every role the user holds there, memberships included.
          const u = user(f.user);
          u.tenants = u.tenants.filter((t) => t !== f.tenant);
          u.roles = u.roles.filter((r) => r.tenant !== f.tenant);
          eachGroup(
            (g) => g.tenant === f.tenant && g.members.includes(f.user),
            (g) => (g.members = g.members.filter((m) => m !== f.user)),
          );
        }
        break;
      case 'instance':
      case 'group': {
        const type = 'resource' in f ? f.resource : f.type;
        const ref = `${type}:${f.key}`;
        if (c.action === 'create' && c.replaces) deleteInstance(ref);
        if (c.action === 'delete') deleteInstance(ref);
        else if (kind === 'group') {
          if (!s.groups.has(ref))
            s.groups.set(ref, { type, key: f.key, tenant: f.tenant, members: [], roles: [], memberOf: [] });
        } else {
          const relations = s.resourceInstances.get(ref)?.relations;
          s.resourceInstances.set(ref, {
            resource: type,
            key: f.key,
            tenant: f.tenant,
            attributes: f.attributes,
            ...(relations ? { relations } : {}),
          });
        }
        break;
      }
      case 'assignment': {
        const u = user(f.user);
        const same = (r: { role: string; tenant: string; on?: string }) =>
          r.role === f.role && r.tenant === f.tenant && (r.on ?? '') === (f.on ?? '');
        u.roles = u.roles.filter((r) => !same(r));
        if (put) {
          u.roles.push({ role: f.role, tenant: f.tenant, ...(f.on ? { on: f.on } : {}) });
          if (!u.tenants.includes(f.tenant)) u.tenants.push(f.tenant);
        } else leaveTenantIfNothingLeft(f.user, f.tenant);
        break;
      }
      case 'member': {
        const g = group(f.group);
        if (g) g.members = [...g.members.filter((m) => m !== f.user), ...(put ? [f.user] : [])];
        // A membership is a role assignment in the group's tenant: the service then lists the user in it.
        if (g && put && s.users.has(f.user) && !s.users.get(f.user)!.tenants.includes(g.tenant))
          user(f.user).tenants.push(g.tenant);
        if (g && !put) leaveTenantIfNothingLeft(f.user, g.tenant);
        break;
      }
      case 'link': {
        const g = group(f.group);
        if (g) g.memberOf = [...g.memberOf.filter((p) => p !== f.parent), ...(put ? [f.parent] : [])];
        break;
      }
      case 'grant': {
        const g = group(f.group);
        if (g)
          g.roles = [
            ...g.roles.filter((r) => !(r.role === f.role && r.on === f.on)),
            ...(put ? [{ role: f.role, on: f.on }] : []),
          ];
        break;
      }
      case 'access_requests':
        if (put) s.accessRequests.set(f.key, { key: f.key, name: f.name, reviewerRoles: f.reviewer_roles ?? [] });
        else s.accessRequests.delete(f.key);
        break;
      case 'resource_attribute': {
        const resource = s.resources.get(f.resource);
        if (!resource) break;
        const others = (resource.attributes ?? []).filter((a) => a.key !== f.key);
        const attributes = put
          ? [...others, attribute(f)].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
          : others;
        const { attributes: _, ...rest } = resource;
        s.resources.set(f.resource, attributes.length > 0 ? { ...rest, attributes } : rest);
        break;
      }
      case 'user_attribute':
      case 'tenant_attribute': {
        const map = kind === 'user_attribute' ? s.userAttributes : s.tenantAttributes;
        if (put) map.set(f.key, attribute(f));
        else map.delete(f.key);
        break;
      }
      case 'condition_set':
        // A replacement deletes the set first, and the service deletes its rules with it.
        if (!put || (c.action === 'create' && c.replaces))
          dropRules((r) => r.userSet === f.key || r.resourceSet === f.key);
        if (put) {
          s.conditionSets.set(f.key, {
            key: f.key,
            type: f.type === 'resourceset' ? 'resourceset' : 'userset',
            name: f.name,
            ...(f.description ? { description: f.description } : {}),
            ...(f.resource ? { resource: f.resource } : {}),
            conditions: f.conditions ?? {},
            ...(f.parent ? { parent: f.parent } : {}),
          });
        } else s.conditionSets.delete(f.key);
        break;
      case 'set_rule': {
        const key = ruleKeyOf(f);
        if (put) {
          const i = f.permission.indexOf(':');
          s.setRules.set(key, {
            userSet: f.user_set,
            resourceSet: f.resource_set,
            resource: f.permission.slice(0, i),
            action: f.permission.slice(i + 1),
          });
        } else s.setRules.delete(key);
        break;
      }
    }
  }
  return s;
}
