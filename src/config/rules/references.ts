/** Rules: every reference outside groups resolves to something declared. */
import { splitRef } from '../../types/refs.js';
import { targetTenant } from '../../types/desired.js';
import type { Problem } from '../source.js';
import { didYouMean } from '../suggest.js';
import { declared, report, targetDeclared, unknown, type RuleContext } from './context.js';
import { extendsCycles, roleOnTarget, unknownRoleOn, unknownTenantWideRole } from './resource-roles.js';

/** A role's permissions name a declared resource and one of its actions. */
export function rolePermissionsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const role of desired.roles.values()) {
    role.permissions.forEach((permission, i) => {
      const { type, key: action } = splitRef(permission);
      const where = index.roles.get(role.key);
      const sub = ['permissions', i];
      const resource = desired.resources.get(type);
      if (!resource) {
        if (declared(ctx, 'resources', type)) return; // refused by the schema: its actions are unknown
        const u = unknown(ctx, 'resource', type);
        out.push(report(where, sub, `${u.message} in permission "${permission}"`, u.options));
      } else if (!resource.actions.includes(action) && !index.refused.isTrimmed('resources', type)) {
        const hint = didYouMean(action, resource.actions) ?? `its actions: ${resource.actions.join(', ') || '(none)'}`;
        out.push(report(where, sub, `resource "${type}" has no action "${action}"`, { hint }));
      }
    });
  }
  return out;
}

/** A top-level role's `extends` name other declared top-level roles, without cycles. */
export function roleExtendsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const role of desired.roles.values()) {
    role.extends?.forEach((other, i) => {
      const where = index.roles.get(role.key);
      if (other === role.key) {
        out.push(
          report(where, ['extends', i], `role "${role.key}" extends itself`, { hint: 'a role cannot extend itself' }),
        );
      } else if (!declared(ctx, 'roles', other)) {
        const u = unknown(ctx, 'role', other);
        out.push(report(where, ['extends', i], `${u.message} in extends`, u.options));
      }
    });
  }
  const edges = new Map([...desired.roles.values()].map((r) => [r.key, r.extends ?? []]));
  for (const cycle of extendsCycles(edges)) {
    out.push(
      report(
        index.roles.get(cycle[0]),
        ['extends'],
        `roles extend each other in a cycle: ${[...cycle, cycle[0]].join(' -> ')}`,
        {
          hint: 'a role includes the roles it extends; remove one of these `extends`',
        },
      ),
    );
  }
  return out;
}

/** A user's tenants are declared tenants. */
export function userTenantsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const user of desired.users.values()) {
    user.tenants.forEach((tenant, i) => {
      if (declared(ctx, 'tenants', tenant)) return;
      const u = unknown(ctx, 'tenant', tenant);
      out.push(report(index.users.get(user.key), ['tenants', i], u.message, u.options));
    });
  }
  return out;
}

/**
 * A user's roles name a declared role, a known tenant, and an instance (or group) of that tenant. A
 * tenant the user did not write (taken from the instance or from the user's only tenant) is checked
 * where it is written, not here; nor is the tenant of a role whose instance is unknown.
 */
export function userRolesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const user of desired.users.values()) {
    const where = index.users.get(user.key);
    const written = index.userRoles.get(user.key) ?? [];
    user.roles.forEach((r, i) => {
      // On an instance: its type's resource role, else the top-level role. Tenant-wide: a top-level role.
      if (r.on !== undefined ? roleOnTarget(ctx, r.role, r.on) === 'unknown' : !declared(ctx, 'roles', r.role)) {
        const u = r.on !== undefined ? unknownRoleOn(ctx, r.role, r.on) : unknownTenantWideRole(ctx, r.role);
        out.push(report(where, ['roles', i, 'role'], u.message, u.options));
      }
      const w = written[i];
      const tenantWritten = typeof w === 'object' && w.tenant !== undefined;
      if (tenantWritten && !declared(ctx, 'tenants', r.tenant)) {
        const u = unknown(ctx, 'tenant', r.tenant);
        out.push(report(where, ['roles', i, 'tenant'], u.message, u.options));
      }
      if (r.on !== undefined) {
        const target = targetTenant(desired, r.on);
        if (target === undefined) {
          if (targetDeclared(ctx, r.on)) return;
          const u = unknown(ctx, 'resource instance', r.on);
          out.push(report(where, ['roles', i, 'on'], u.message, u.options));
        } else if (
          tenantWritten &&
          target !== r.tenant &&
          desired.tenants.has(r.tenant) &&
          desired.tenants.has(target)
        ) {
          out.push(
            report(
              where,
              ['roles', i, 'tenant'],
              `role "${r.role}" on "${r.on}" is given in tenant "${r.tenant}", but the instance is in tenant "${target}"`,
              {
                hint: `drop tenant (it defaults to the instance's) or use "${target}"`,
              },
            ),
          );
        }
      } else if (r.tenant === '' && !index.refused.isTrimmed('users', user.key)) {
        out.push(
          report(
            where,
            ['roles', i],
            `cannot tell the tenant of role "${r.role}": the user is in ${user.tenants.length === 0 ? 'no tenant' : `${user.tenants.length} tenants`}`,
            {
              hint: 'write it as { role, tenant }',
            },
          ),
        );
      }
    });
  }
  return out;
}

/** A resource instance's resource and tenant are declared. */
export function instancesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const [id, instance] of desired.resourceInstances) {
    const where = index.resourceInstances.get(id);
    if (!declared(ctx, 'resources', instance.resource)) {
      const u = unknown(ctx, 'resource', instance.resource);
      out.push(report(where, [], `${u.message} in "${id}"`, { ...u.options, on: 'key' }));
    }
    if (!declared(ctx, 'tenants', instance.tenant)) {
      const u = unknown(ctx, 'tenant', instance.tenant);
      out.push(report(where, ['tenant'], u.message, u.options));
    }
  }
  return out;
}

/** An access request configuration's reviewer roles are declared roles. */
export function reviewerRolesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const config of desired.accessRequests.values()) {
    config.reviewerRoles.forEach((role, i) => {
      if (declared(ctx, 'roles', role)) return;
      const u = unknownTenantWideRole(ctx, role);
      out.push(report(index.accessRequests.get(config.key), ['reviewer_roles', i], u.message, u.options));
    });
  }
  return out;
}
