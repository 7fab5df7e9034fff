/**
 * Rules of resource roles (`resources.<type>.roles`), and of roles named on an instance, which refer to
 * the resource role of the instance's type when that type has one (docs/config.md, "Resource roles").
 */
import { splitRef } from '../../types/refs.js';
import type { Problem } from '../source.js';
import { didYouMean } from '../suggest.js';
import { declared, report, unknown, type RuleContext } from './context.js';
import type { ProblemOptions } from '../source.js';

/** A resource role's permissions are actions of its resource; its `extends` name roles of that resource, without cycles. */
export function resourceRolesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const resource of desired.resources.values()) {
    if (!resource.roles) continue;
    const where = index.resources.get(resource.key);
    const keys = resource.roles.map((r) => r.key);
    for (const role of resource.roles) {
      role.permissions.forEach((action, i) => {
        if (resource.actions.includes(action) || index.refused.isTrimmed('resources', resource.key)) return;
        const hint = didYouMean(action, resource.actions) ?? `its actions: ${resource.actions.join(', ') || '(none)'}`;
        out.push(
          report(where, ['roles', role.key, 'permissions', i], `resource "${resource.key}" has no action "${action}"`, {
            hint,
          }),
        );
      });
      role.extends.forEach((other, i) => {
        if (keys.includes(other)) return;
        const hint =
          other === role.key
            ? 'a role cannot extend itself'
            : (didYouMean(other, keys) ?? `roles of "${resource.key}": ${keys.join(', ')}`);
        const message =
          other === role.key
            ? `role "${resource.key}#${role.key}" extends itself`
            : `resource "${resource.key}" has no role "${other}"`;
        out.push(report(where, ['roles', role.key, 'extends', i], message, { hint }));
      });
    }
    for (const cycle of extendsCycles(new Map(resource.roles.map((r) => [r.key, r.extends])))) {
      out.push(
        report(
          where,
          ['roles', cycle[0], 'extends'],
          `roles of "${resource.key}" extend each other in a cycle: ${[...cycle, cycle[0]].join(' -> ')}`,
          {
            hint: 'a role includes the roles it extends; remove one of these `extends`',
          },
        ),
      );
    }
  }
  return out;
}

/**
 * Each cycle of `extends` among roles (a resource's, or the top-level ones: role → the roles it extends)
 * once, starting at its smallest key. Self-extension is left out: each rule reports it on its own.
 */
export function extendsCycles(extendsOf: ReadonlyMap<string, readonly string[]>): string[][] {
  const edges = new Map([...extendsOf].map(([key, ext]) => [key, ext.filter((e) => e !== key)]));
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (key: string) => {
    state.set(key, 'open');
    stack.push(key);
    for (const next of edges.get(key) ?? []) {
      if (!edges.has(next)) continue;
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(rotated.join('\0'), rotated);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(key, 'done');
  };
  for (const key of edges.keys()) if (!state.has(key)) visit(key);
  return [...cycles.values()];
}

/** What a role named on `on` refers to. */
export type RoleTarget = 'resource role' | 'top-level role' | 'unknown' | 'unknowable';

/** The resource role of `on`'s type when it has one, else the top-level role; `unknowable` when refused parts could declare it. */
export function roleOnTarget(ctx: RuleContext, role: string, on: string): RoleTarget {
  const resource = ctx.desired.resources.get(splitRef(on).type);
  if (resource?.roles?.some((r) => r.key === role)) return 'resource role';
  if (ctx.desired.roles.has(role)) return 'top-level role';
  return declared(ctx, 'roles', role) || ctx.index.refused.covers('resources', splitRef(on).type)
    ? 'unknowable'
    : 'unknown';
}

/** `unknown role` for a role named on an instance: the hint looks among the type's resource roles and the top-level roles. */
export function unknownRoleOn(
  ctx: RuleContext,
  role: string,
  on: string,
): { message: string; options: ProblemOptions } {
  const type = splitRef(on).type;
  const own = (ctx.desired.resources.get(type)?.roles ?? []).map((r) => r.key);
  // Where the instance's type has resource roles, the instance is part of what the name means.
  if (own.length === 0) return unknown(ctx, 'role', role);
  const message = `unknown role "${role}" on "${on}"`;
  const hint = didYouMean(role, [...own, ...ctx.desired.roles.keys()]);
  return { message, options: { hint: hint ?? `roles of "${type}": ${own.join(', ')}; or a top-level role` } };
}

/**
 * A role named tenant-wide is a top-level role. When the key exists only as a resource role, say so:
 * resource roles are held on instances of their resource only.
 */
export function unknownTenantWideRole(ctx: RuleContext, role: string): { message: string; options: ProblemOptions } {
  const owners = [...ctx.desired.resources.values()]
    .filter((r) => r.roles?.some((x) => x.key === role))
    .map((r) => r.key);
  if (owners.length === 0) return unknown(ctx, 'role', role);
  return {
    message: `role "${role}" is a resource role (of ${owners.map((o) => `"${o}"`).join(', ')}): a tenant-wide role must be a top-level role`,
    options: {
      hint: `give it on an instance (on: ${owners[0]}:<key>), or declare a top-level role "${role}" under roles`,
    },
  };
}

/**
 * Warns when a role named on an instance is a top-level role although the instance's resource declares
 * resource roles: the public service assigns roles on instances as resource roles, so this is most often
 * a role missing from the resource's list (docs/config.md, "Resource roles").
 */
export function topLevelRoleOnInstance(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  const check = (role: string, on: string, where: Parameters<typeof report>[0], sub: (string | number)[]) => {
    const resource = desired.resources.get(splitRef(on).type);
    if (!resource?.roles || resource.roles.length === 0 || roleOnTarget(ctx, role, on) !== 'top-level role') return;
    out.push(
      report(
        where,
        sub,
        `role "${role}" on "${on}" is the top-level role: resource "${resource.key}" declares roles, but not "${role}"`,
        {
          severity: 'warning',
          hint: `declare it under resources.${resource.key}.roles, or check the role's name (roles of "${resource.key}": ${resource.roles.map((r) => r.key).join(', ')})`,
        },
      ),
    );
  };
  for (const user of desired.users.values()) {
    user.roles.forEach(
      (r, i) => r.on !== undefined && check(r.role, r.on, index.users.get(user.key), ['roles', i, 'role']),
    );
  }
  for (const [id, group] of desired.groups)
    group.roles.forEach((r, i) => check(r.role, r.on, index.groups.get(id), ['roles', i, 'role']));
  return out;
}
