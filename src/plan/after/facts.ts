import type { Effects } from './effect.js';

/** The facts' changes: tuples, tenants, users and their tenants, instances, groups, assignments, memberships, links, grants. */
export const FACT_EFFECTS: Effects<
  'tuple' | 'tenant' | 'user' | 'tenant_user' | 'instance' | 'group' | 'assignment' | 'member' | 'link' | 'grant'
> = {
  tuple(s, c, f, put) {
    const object = s.resourceInstances.get(f.object);
    if (!object) return;
    const others = (object.relations ?? []).filter((t) => !(t.relation === f.relation && t.subject === f.subject));
    s.resourceInstances.set(f.object, {
      ...object,
      relations: put ? [...others, { relation: f.relation, subject: f.subject }] : others,
    });
  },

  tenant(s, c, f, put) {
    if (put) s.tenants.set(f.key, { key: f.key, name: f.name, description: f.description, attributes: f.attributes });
    else {
      s.tenants.delete(f.key);
      for (const ref of s.instancesWhere((_, tenant) => tenant === f.key)) s.deleteInstance(ref);
      s.eachUser(
        (u) => u.tenants.includes(f.key) || u.roles.some((r) => r.tenant === f.key),
        (u) => {
          u.tenants = u.tenants.filter((t) => t !== f.key);
          u.roles = u.roles.filter((r) => r.tenant !== f.key);
        },
      );
    }
  },

  user(s, c, f, put) {
    if (put)
      Object.assign(s.user(f.key), {
        email: f.email,
        first_name: f.first_name,
        last_name: f.last_name,
        attributes: f.attributes,
      });
    else {
      s.users.delete(f.key);
      s.eachGroup(
        (g) => g.members.includes(f.key),
        (g) => (g.members = g.members.filter((m) => m !== f.key)),
      );
    }
  },

  tenant_user(s, c, f, put) {
    if (put) {
      const u = s.user(f.user);
      if (!u.tenants.includes(f.tenant)) u.tenants.push(f.tenant);
    } else if (s.users.has(f.user)) {
      // Leaving a tenant drops every role the user holds there, memberships included.
      const u = s.user(f.user);
      u.tenants = u.tenants.filter((t) => t !== f.tenant);
      u.roles = u.roles.filter((r) => r.tenant !== f.tenant);
      s.eachGroup(
        (g) => g.tenant === f.tenant && g.members.includes(f.user),
        (g) => (g.members = g.members.filter((m) => m !== f.user)),
      );
    }
  },

  instance(s, c, f, put) {
    const ref = `${f.resource}:${f.key}`;
    if (c.action === 'create' && c.replaces) s.deleteInstance(ref);
    if (c.action === 'delete') return s.deleteInstance(ref);
    const relations = s.resourceInstances.get(ref)?.relations;
    s.resourceInstances.set(ref, {
      resource: f.resource,
      key: f.key,
      tenant: f.tenant,
      attributes: f.attributes,
      ...(relations ? { relations } : {}),
    });
  },

  group(s, c, f, put) {
    const ref = `${f.type}:${f.key}`;
    if (c.action === 'create' && c.replaces) s.deleteInstance(ref);
    if (c.action === 'delete') return s.deleteInstance(ref);
    if (!s.groups.has(ref))
      s.groups.set(ref, { type: f.type, key: f.key, tenant: f.tenant, members: [], roles: [], memberOf: [] });
  },

  assignment(s, c, f, put) {
    const u = s.user(f.user);
    const same = (r: { role: string; tenant: string; on?: string }) =>
      r.role === f.role && r.tenant === f.tenant && (r.on ?? '') === (f.on ?? '');
    u.roles = u.roles.filter((r) => !same(r));
    if (put) {
      u.roles.push({ role: f.role, tenant: f.tenant, ...(f.on ? { on: f.on } : {}) });
      if (!u.tenants.includes(f.tenant)) u.tenants.push(f.tenant);
    } else s.leaveTenantIfNothingLeft(f.user, f.tenant);
  },

  member(s, c, f, put) {
    const g = s.group(f.group);
    if (g) g.members = [...g.members.filter((m) => m !== f.user), ...(put ? [f.user] : [])];
    // A membership is a role assignment in the group's tenant: the service then lists the user in it.
    if (g && put && s.users.has(f.user) && !s.users.get(f.user)!.tenants.includes(g.tenant))
      s.user(f.user).tenants.push(g.tenant);
    if (g && !put) s.leaveTenantIfNothingLeft(f.user, g.tenant);
  },

  link(s, c, f, put) {
    const g = s.group(f.group);
    if (g) g.memberOf = [...g.memberOf.filter((p) => p !== f.parent), ...(put ? [f.parent] : [])];
  },

  grant(s, c, f, put) {
    const g = s.group(f.group);
    if (g)
      g.roles = [
        ...g.roles.filter((r) => !(r.role === f.role && r.on === f.on)),
        ...(put ? [{ role: f.role, on: f.on }] : []),
      ];
  },
};
