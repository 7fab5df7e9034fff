import { AUTOGEN_SET_PREFIX, type AttributeType } from '../../types/abac.js';
import type { Effects } from './effect.js';

const attribute = (f: { key: string; type: string; description?: string }) => ({
  key: f.key,
  type: f.type as AttributeType,
  ...(f.description ? { description: f.description } : {}),
});

/** The schema's changes: resources and their roles, relations, derivations and attributes; roles; access requests. */
export const SCHEMA_EFFECTS: Effects<
  | 'resource'
  | 'resource_role'
  | 'relation'
  | 'derivation'
  | 'role'
  | 'resource_attribute'
  | 'user_attribute'
  | 'tenant_attribute'
  | 'access_requests'
> = {
  resource(s, c, f, put) {
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
      s.dropRules((r) => r.resource === f.key && !actions.has(r.action));
    } else {
      s.resources.delete(f.key);
      for (const ref of s.instancesWhere((type) => type === f.key)) s.deleteInstance(ref);
      const sets = new Set([`${AUTOGEN_SET_PREFIX}${f.key}`]);
      for (const [k, set] of s.conditionSets)
        if (set.type === 'resourceset' && set.resource === f.key) (sets.add(k), s.conditionSets.delete(k));
      s.dropRules((r) => r.resource === f.key || sets.has(r.resourceSet));
    }
  },

  resource_role(s, c, f, put) {
    const resource = s.resources.get(f.resource);
    if (!resource) return;
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
      s.eachUser(
        (u) => u.roles.some(onIt),
        (u) => (u.roles = u.roles.filter((r) => !onIt(r))),
      );
      s.eachGroup(
        (g) => g.roles.some(onIt),
        (g) => (g.roles = g.roles.filter((r) => !onIt(r))),
      );
    }
  },

  relation(s, c, f, put) {
    const resource = s.resources.get(f.resource);
    if (!resource) return;
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
  },

  derivation(s, c, f, put) {
    const resource = s.resources.get(f.resource);
    if (!resource?.roles) return;
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
  },

  role(s, c, f, put) {
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
      s.dropRules((r) => r.userSet === `${AUTOGEN_SET_PREFIX}${f.key}`);
      // What holds the top-level role: tenant-wide roles, and roles on instances whose type has no
      // resource role of that key (those name the resource role instead).
      const held = (r: { role: string; on?: string }) =>
        r.role === f.key && (r.on === undefined || !s.isResourceRole(f.key, r.on));
      s.eachUser(
        (u) => u.roles.some(held),
        (u) => (u.roles = u.roles.filter((r) => !held(r))),
      );
      s.eachGroup(
        (g) => g.roles.some(held),
        (g) => (g.roles = g.roles.filter((r) => !held(r))),
      );
    }
  },

  resource_attribute(s, c, f, put) {
    const resource = s.resources.get(f.resource);
    if (!resource) return;
    const others = (resource.attributes ?? []).filter((a) => a.key !== f.key);
    const attributes = put
      ? [...others, attribute(f)].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      : others;
    const { attributes: _, ...rest } = resource;
    s.resources.set(f.resource, attributes.length > 0 ? { ...rest, attributes } : rest);
  },

  user_attribute(s, c, f, put) {
    if (put) s.userAttributes.set(f.key, attribute(f));
    else s.userAttributes.delete(f.key);
  },

  tenant_attribute(s, c, f, put) {
    if (put) s.tenantAttributes.set(f.key, attribute(f));
    else s.tenantAttributes.delete(f.key);
  },

  access_requests(s, c, f, put) {
    if (put) s.accessRequests.set(f.key, { key: f.key, name: f.name, reviewerRoles: f.reviewer_roles ?? [] });
    else s.accessRequests.delete(f.key);
  },
};
