/** Rules about groups: references, tenants, links (member_of) and group types. */
import { targetTenant } from '../../types/desired.js';
import type { Problem } from '../source.js';
import { declared, report, targetDeclared, unknown, type RuleContext } from './context.js';
import { roleOnTarget, unknownRoleOn } from './resource-roles.js';

/** A group's tenant is declared. */
export function groupTenantsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    if (declared(ctx, 'tenants', group.tenant)) continue;
    const u = unknown(ctx, 'tenant', group.tenant);
    out.push(report(index.groups.get(id), ['tenant'], u.message, u.options));
  }
  return out;
}

/** A group's members are declared users. */
export function groupMembersResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    group.members.forEach((member, i) => {
      if (declared(ctx, 'users', member)) return;
      const u = unknown(ctx, 'user', member);
      out.push(report(index.groups.get(id), ['members', i], u.message, u.options));
    });
  }
  return out;
}

/** A group's roles name a declared role and a declared resource instance (or group). */
export function groupRolesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    group.roles.forEach((r, i) => {
      if (roleOnTarget(ctx, r.role, r.on) === 'unknown') {
        const u = unknownRoleOn(ctx, r.role, r.on);
        out.push(report(index.groups.get(id), ['roles', i, 'role'], u.message, u.options));
      }
      if (!targetDeclared(ctx, r.on)) {
        const u = unknown(ctx, 'resource instance', r.on);
        out.push(report(index.groups.get(id), ['roles', i, 'on'], u.message, u.options));
      }
    });
  }
  return out;
}

/**
 * A role given to a group is on an instance of the group's own tenant. Compared only between declared
 * tenants: an unknown one is reported where it is written, and the difference would follow from it.
 */
export function groupRoleTargetInTenant({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    group.roles.forEach((r, i) => {
      const tenant = targetTenant(desired, r.on);
      if (
        tenant === undefined ||
        tenant === group.tenant ||
        !desired.tenants.has(tenant) ||
        !desired.tenants.has(group.tenant)
      )
        return;
      out.push(
        report(
          index.groups.get(id),
          ['roles', i, 'on'],
          `"${r.on}" is in tenant "${tenant}", but group "${id}" is in tenant "${group.tenant}"`,
          { hint: "a group's roles must be on instances of the group's tenant" },
        ),
      );
    });
  }
  return out;
}

/** Every group named in member_of is declared. */
export function memberOfResolves(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    group.memberOf.forEach((parent, i) => {
      if (declared(ctx, 'groups', parent)) return;
      const u = unknown(ctx, 'group', parent);
      out.push(report(index.groups.get(id), ['member_of', i], u.message, u.options));
    });
  }
  return out;
}

/**
 * A group is placed only in groups of the same type and tenant (the service refuses anything else).
 * Tenants are compared only when both are declared (an unknown one is reported where it is written).
 */
export function memberOfSameTypeAndTenant({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const [id, group] of desired.groups) {
    group.memberOf.forEach((parentId, i) => {
      const parent = desired.groups.get(parentId);
      if (!parent) return;
      const where = index.groups.get(id);
      if (parent.type !== group.type) {
        out.push(
          report(
            where,
            ['member_of', i],
            `"${id}" (type "${group.type}") cannot be a member of "${parentId}" (type "${parent.type}")`,
            { hint: 'groups can only be placed in groups of the same type' },
          ),
        );
      } else if (
        parent.tenant !== group.tenant &&
        desired.tenants.has(parent.tenant) &&
        desired.tenants.has(group.tenant)
      ) {
        out.push(
          report(
            where,
            ['member_of', i],
            `"${id}" (tenant "${group.tenant}") cannot be a member of "${parentId}" (tenant "${parent.tenant}")`,
            { hint: 'groups can only be placed in groups of the same tenant' },
          ),
        );
      }
    });
  }
  return out;
}

/** member_of has no cycle; the message prints it. Iterative depth-first search (chains can be long). */
export function memberOfAcyclic({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  const state = new Map<string, 'open' | 'done'>();
  for (const start of desired.groups.keys()) {
    if (state.has(start)) continue;
    const stack: { id: string; next: number }[] = [{ id: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const parents = desired.groups.get(frame.id)!.memberOf;
      if (frame.next >= parents.length) {
        state.set(frame.id, 'done');
        stack.pop();
        continue;
      }
      const i = frame.next++;
      const parent = parents[i];
      if (!desired.groups.has(parent)) continue;
      const s = state.get(parent);
      if (s === 'open') {
        const from = stack.findIndex((f) => f.id === parent);
        const cycle = [...stack.slice(from).map((f) => f.id), parent];
        out.push(
          report(index.groups.get(frame.id), ['member_of', i], `member_of forms a cycle: ${cycle.join(' → ')}`, {
            hint: 'a group cannot contain itself, directly or through other groups',
          }),
        );
      } else if (s === undefined) {
        state.set(parent, 'open');
        stack.push({ id: parent, next: 0 });
      }
    }
  }
  return out;
}

/**
 * A group type is the resource type of its groups. It may be declared under resources (to name it, or to
 * give it actions for roles on groups), but it collides with an ordinary resource when instances of it
 * are declared under resource_instances, or when it declares the action `member`, which would read as
 * the membership role the service manages on every group.
 */
export function groupTypeCollision({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  const firstGroupOfType = new Map<string, string>();
  for (const [id, g] of desired.groups) if (!firstGroupOfType.has(g.type)) firstGroupOfType.set(g.type, id);
  for (const [id, instance] of desired.resourceInstances) {
    const group = firstGroupOfType.get(instance.resource);
    if (!group) continue;
    const same = desired.groups.has(id);
    out.push(
      report(
        index.resourceInstances.get(id),
        [],
        same
          ? `"${id}" is declared both as a resource instance and as a group`
          : `"${instance.resource}" is a group type (of group "${group}"), so "${id}" cannot be an ordinary resource instance`,
        { on: 'key', hint: 'declare it under groups, or rename the group type' },
      ),
    );
  }
  for (const [type, group] of firstGroupOfType) {
    const resource = desired.resources.get(type);
    const i = resource?.actions.indexOf('member') ?? -1;
    if (i < 0) continue;
    out.push(
      report(
        index.resources.get(type),
        ['actions', i],
        `resource "${type}" is a group type (of group "${group}") and declares the action "member", which conflicts with group membership`,
        { hint: 'rename the action' },
      ),
    );
  }
  return out;
}
