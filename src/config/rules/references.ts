/** Rules: every reference outside groups resolves to something declared. */
import { splitRef } from '../desired.js';
import { targetTenant } from '../normalise.js';
import type { Problem } from '../source.js';
import { didYouMean } from '../suggest.js';
import { report, unknown, type RuleContext } from './context.js';

/** A role's permissions name a declared resource and one of its actions. */
export function rolePermissionsResolve({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const role of desired.roles.values()) {
    role.permissions.forEach((permission, i) => {
      const { type, key: action } = splitRef(permission);
      const where = index.roles.get(role.key);
      const sub = ['permissions', i];
      const resource = desired.resources.get(type);
      if (!resource) {
        const u = unknown('resource', type, desired.resources.keys());
        out.push(report(where, sub, `${u.message} in permission "${permission}"`, u.options));
      } else if (!resource.actions.includes(action)) {
        const hint = didYouMean(action, resource.actions) ?? `its actions: ${resource.actions.join(', ') || '(none)'}`;
        out.push(report(where, sub, `resource "${type}" has no action "${action}"`, { hint }));
      }
    });
  }
  return out;
}

/** A user's tenants are declared tenants. */
export function userTenantsResolve({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const user of desired.users.values()) {
    user.tenants.forEach((tenant, i) => {
      if (desired.tenants.has(tenant)) return;
      const u = unknown('tenant', tenant, desired.tenants.keys());
      out.push(report(index.users.get(user.key), ['tenants', i], u.message, u.options));
    });
  }
  return out;
}

/** A user's roles name a declared role, a known tenant, and an instance (or group) of that tenant. */
export function userRolesResolve({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const user of desired.users.values()) {
    const where = index.users.get(user.key);
    user.roles.forEach((r, i) => {
      if (!desired.roles.has(r.role)) {
        const u = unknown('role', r.role, desired.roles.keys());
        out.push(report(where, ['roles', i, 'role'], u.message, u.options));
      }
      const target = r.on === undefined ? undefined : targetTenant(desired, r.on);
      if (r.on !== undefined && target === undefined) {
        const u = unknown('resource instance', r.on, [...desired.resourceInstances.keys(), ...desired.groups.keys()]);
        out.push(report(where, ['roles', i, 'on'], u.message, u.options));
      }
      if (r.tenant === '') {
        out.push(report(where, ['roles', i], `cannot tell the tenant of role "${r.role}": the user is in ${user.tenants.length === 0 ? 'no tenant' : `${user.tenants.length} tenants`}`, {
          hint: 'write it as { role, tenant }',
        }));
      } else if (!desired.tenants.has(r.tenant)) {
        const u = unknown('tenant', r.tenant, desired.tenants.keys());
        out.push(report(where, ['roles', i, 'tenant'], u.message, u.options));
      } else if (target !== undefined && target !== r.tenant) {
        out.push(report(where, ['roles', i, 'tenant'], `role "${r.role}" on "${r.on}" is given in tenant "${r.tenant}", but the instance is in tenant "${target}"`, {
          hint: `drop tenant (it defaults to the instance's) or use "${target}"`,
        }));
      }
    });
  }
  return out;
}

/** A resource instance's resource and tenant are declared. */
export function instancesResolve({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const [id, instance] of desired.resourceInstances) {
    const where = index.resourceInstances.get(id);
    if (!desired.resources.has(instance.resource)) {
      const u = unknown('resource', instance.resource, desired.resources.keys());
      out.push(report(where, [], `${u.message} in "${id}"`, { ...u.options, on: 'key' }));
    }
    if (!desired.tenants.has(instance.tenant)) {
      const u = unknown('tenant', instance.tenant, desired.tenants.keys());
      out.push(report(where, ['tenant'], u.message, u.options));
    }
  }
  return out;
}

/** An access request configuration's reviewer roles are declared roles. */
export function reviewerRolesResolve({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const config of desired.accessRequests.values()) {
    config.reviewerRoles.forEach((role, i) => {
      if (desired.roles.has(role)) return;
      const u = unknown('role', role, desired.roles.keys());
      out.push(report(index.accessRequests.get(config.key), ['reviewer_roles', i], u.message, u.options));
    });
  }
  return out;
}
