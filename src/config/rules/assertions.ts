/** Rules about assertions (docs/check.md): their shape, and that everything they name is declared. */
import { splitRef } from '../../types/refs.js';
import { targetTenant } from '../../types/desired.js';
import type { Loc, Problem } from '../source.js';
import type { RawAssertion } from '../raw.generated.js';
import { didYouMean } from '../suggest.js';
import { declared, report, targetDeclared, unknown, type RuleContext } from './context.js';
import { roleOnTarget, unknownRoleOn } from './resource-roles.js';

const WHO = ['user', 'users_in'] as const;
const CHECKS = ['can', 'cannot', 'has_role'] as const;

/** An assertion of an exact set (`who_can`, or `on_type` / `exactly`): exact-assertions.ts checks it. */
export const isExact = (raw: RawAssertion): boolean =>
  raw.who_can !== undefined || raw.on_type !== undefined || raw.exactly !== undefined;

/** Exactly one of each pair is written: the other assertion rules skip the rest (assertionShape reports them). */
function wellFormed(ctx: RuleContext, i: number): boolean {
  const raw = ctx.index.assertions[i]?.raw;
  return (
    raw !== undefined &&
    !isExact(raw) &&
    raw.on !== undefined &&
    WHO.filter((f) => raw[f] !== undefined).length === 1 &&
    CHECKS.filter((f) => raw[f] !== undefined).length === 1
  );
}

/** An assertion names exactly one of `user` / `users_in` and exactly one of `can` / `cannot` / `has_role`. */
export function assertionShape({ index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const { loc, raw } of index.assertions) {
    if (isExact(raw)) continue;
    if (raw.on === undefined)
      out.push(report(loc, [], 'an assertion must say on which instance: on', { hint: 'e.g. on: document:readme' }));
    for (const [fields, what] of [
      [WHO, 'who it is about'],
      [CHECKS, 'what it checks'],
    ] as const) {
      const present = fields.filter((f) => raw[f] !== undefined);
      if (present.length === 1) continue;
      const message =
        present.length === 0
          ? `an assertion must say ${what}: one of ${fields.join(', ')}`
          : `an assertion names ${present.join(' and ')}: keep exactly one`;
      out.push(
        report(loc, present.length > 1 ? [present[1]] : [], message, {
          on: present.length > 1 ? 'key' : 'value',
          hint: 'write one assertion per check',
        }),
      );
    }
  }
  return out;
}

/** `user` is a declared user; `users_in` a declared group. */
export function assertionSubjectsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  desired.assertions.forEach((a, i) => {
    if (!wellFormed(ctx, i)) return;
    const where = index.assertions[i]?.loc;
    if (a.user !== undefined && !declared(ctx, 'users', a.user)) {
      const u = unknown(ctx, 'user', a.user);
      out.push(report(where, ['user'], u.message, u.options));
    }
    if (a.usersIn !== undefined && !declared(ctx, 'groups', a.usersIn)) {
      const u = unknown(ctx, 'group', a.usersIn);
      out.push(report(where, ['users_in'], u.message, u.options));
    }
  });
  return out;
}

/** `on` names a declared resource instance or group. */
export function assertionTargetsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  desired.assertions.forEach((a, i) => {
    if (!wellFormed(ctx, i) || targetDeclared(ctx, a.on)) return;
    const u = unknown(ctx, 'resource instance', a.on);
    out.push(report(index.assertions[i]?.loc, ['on'], u.message, u.options));
  });
  return out;
}

/**
 * `can` / `cannot` name an action of the instance's resource (`write`, or `document:write`). Not checked
 * when that resource is undeclared (instancesResolve reports it) or refused by the schema.
 */
export function assertionActionsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  desired.assertions.forEach((a, i) => {
    if (!wellFormed(ctx, i)) return;
    if (a.check === 'has_role' || targetTenant(desired, a.on) === undefined) return;
    const problem = actionProblem(ctx, index.assertions[i]?.loc, a.check, a.subject, splitRef(a.on).type, a.on);
    if (problem) out.push(problem);
  });
  return out;
}

/**
 * `subject` (`write` or `document:write`), written at `field`, is an action of resource `type` (`what`
 * names the instance or resource in the message). Nothing when the resource is undeclared or refused.
 */
export function actionProblem(
  ctx: RuleContext,
  where: Loc | undefined,
  field: string,
  subject: string,
  type: string,
  what: string,
): Problem | undefined {
  const { desired, index } = ctx;
  const action = subject.includes(':') ? splitRef(subject) : { type, key: subject };
  if (action.type !== type)
    return report(where, [field], `"${subject}" is an action of "${action.type}", but "${what}" is a "${type}"`, {
      hint: `write the action alone, e.g. ${field}: ${action.key}`,
    });
  const resource = desired.resources.get(type);
  if (!resource && (desired.resourceInstances.has(what) || declared(ctx, 'resources', type))) return undefined;
  if (index.refused.isTrimmed('resources', type)) return undefined;
  const actions = resource?.actions ?? [];
  if (actions.includes(action.key)) return undefined;
  const hint = didYouMean(action.key, actions) ?? `its actions: ${actions.join(', ') || '(none)'}`;
  return report(where, [field], `resource "${type}" has no action "${action.key}"`, { hint });
}

/** `has_role` names a declared role. */
export function assertionRolesResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  desired.assertions.forEach((a, i) => {
    if (!wellFormed(ctx, i)) return;
    if (a.check !== 'has_role' || roleOnTarget(ctx, a.subject, a.on) !== 'unknown') return;
    const u = unknownRoleOn(ctx, a.subject, a.on);
    out.push(report(index.assertions[i]?.loc, ['has_role'], u.message, u.options));
  });
  return out;
}
