/**
 * Rules of relations (`resources.<object>.relations`), role derivations (`granted_to` of a resource role)
 * and relationship tuples (`resource_instances.<ref>.relations`).
 */
import { splitRef } from '../../types/refs.js';
import { targetTenant } from '../../types/desired.js';
import type { Problem } from '../source.js';
import { didYouMean } from '../suggest.js';
import { declared, report, targetDeclared, unknown, type RuleContext } from './context.js';

/** A relation's subject is a declared resource; its key is not one the group machinery uses. */
export function relationsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const resource of desired.resources.values()) {
    for (const r of resource.relations ?? []) {
      const where = index.resources.get(resource.key);
      if (!declared(ctx, 'resources', r.subject)) {
        const u = unknown(ctx, 'resource', r.subject);
        out.push(report(where, ['relations', r.key], `${u.message} as the subject of relation "${r.key}"`, u.options));
      }
      if (r.key === 'group' || r.key.endsWith('_group')) {
        out.push(
          report(
            where,
            ['relations', r.key],
            `relation "${r.key}" has a name the service keeps for groups (<type>_group, group)`,
            {
              on: 'key',
              hint: 'groups make these relations themselves when they are given roles or linked; choose another name',
            },
          ),
        );
      }
    }
  }
  return out;
}

/**
 * A derivation names a resource (`on`), one of its resource roles (`role`) or, on a group type, the
 * membership role `member`, and a relation of the derived role's own resource (`via`) whose subject is `on`.
 */
export function derivationsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const resource of desired.resources.values()) {
    const where = index.resources.get(resource.key);
    for (const role of resource.roles ?? []) {
      role.grantedTo.forEach((d, i) => {
        const sub = ['roles', role.key, 'granted_to', i];
        const on = desired.resources.get(d.on);
        if (!on) {
          if (declared(ctx, 'resources', d.on)) return;
          const u = unknown(ctx, 'resource', d.on);
          out.push(report(where, [...sub, 'on'], u.message, u.options));
          return;
        }
        const onRoles = (on.roles ?? []).map((r) => r.key);
        // `member` of a group type is the service's membership role, made with the first group (api-notes, "Groups").
        const membership = d.role === 'member' && [...desired.groups.values()].some((g) => g.type === on.key);
        if (!onRoles.includes(d.role) && !membership) {
          const hint =
            didYouMean(d.role, onRoles) ??
            (onRoles.length > 0
              ? `roles of "${on.key}": ${onRoles.join(', ')}`
              : `declare it under resources.${on.key}.roles`);
          out.push(report(where, [...sub, 'role'], `resource "${on.key}" has no role "${d.role}"`, { hint }));
        }
        const relations = resource.relations ?? [];
        const via = relations.find((r) => r.key === d.via);
        if (!via) {
          const hint =
            didYouMean(
              d.via,
              relations.map((r) => r.key),
            ) ?? `declare it: resources.${resource.key}.relations.${d.via}: ${d.on}`;
          out.push(report(where, [...sub, 'via'], `resource "${resource.key}" has no relation "${d.via}"`, { hint }));
        } else if (via.subject !== d.on) {
          out.push(
            report(
              where,
              [...sub, 'via'],
              `relation "${d.via}" of "${resource.key}" links "${via.subject}", not "${d.on}"`,
              {
                hint: `a derivation through "${d.via}" takes a role held on a "${via.subject}"`,
              },
            ),
          );
        }
      });
    }
  }
  return out;
}

/** A tuple names a relation of its object's resource and a declared subject of that relation's type, in the object's tenant. */
export function tuplesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const [ref, inst] of desired.resourceInstances) {
    const where = index.resourceInstances.get(ref);
    const resource = desired.resources.get(inst.resource);
    const relations = resource?.relations ?? [];
    for (const t of inst.relations ?? []) {
      const sub = ['relations', t.relation];
      const relation = relations.find((r) => r.key === t.relation);
      if (!relation) {
        if (!resource) continue; // the unknown resource is reported on the instance
        const hint =
          didYouMean(
            t.relation,
            relations.map((r) => r.key),
          ) ??
          (relations.length > 0
            ? `relations of "${resource.key}": ${relations.map((r) => r.key).join(', ')}`
            : `declare it under resources.${resource.key}.relations`);
        out.push(report(where, sub, `unknown relation "${t.relation}" of "${resource.key}"`, { on: 'key', hint }));
        continue;
      }
      const tenant = targetTenant(desired, t.subject);
      if (tenant === undefined) {
        if (targetDeclared(ctx, t.subject)) continue;
        const u = unknown(ctx, 'resource instance', t.subject);
        out.push(report(where, sub, u.message, u.options));
        continue;
      }
      const type = splitRef(t.subject).type;
      if (type !== relation.subject) {
        out.push(
          report(
            where,
            sub,
            `"${t.subject}" is a "${type}", but relation "${t.relation}" of "${inst.resource}" relates a "${relation.subject}"`,
            {
              hint: `name a ${relation.subject} instance, or change the relation's subject`,
            },
          ),
        );
      } else if (tenant !== inst.tenant && desired.tenants.has(tenant) && desired.tenants.has(inst.tenant)) {
        out.push(
          report(where, sub, `"${t.subject}" is in tenant "${tenant}", but "${ref}" is in tenant "${inst.tenant}"`, {
            hint: 'a relationship tuple relates two instances of the same tenant',
          }),
        );
      }
    }
  }
  return out;
}
