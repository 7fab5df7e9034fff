/**
 * Role keys in conditions on `user.roles` (api-notes "Decision point": the top-level roles the user holds
 * in the check's tenant): a key that is not a declared top-level role never matches, and a misspelt one
 * would pass silently, so it warns with a "did you mean".
 */
import type { Json } from '../../types/conditions.js';
import { attributesNamed } from '../../types/conditions.js';
import type { Problem } from '../source.js';
import { parsedConditions } from './abac-scope.js';
import { declared, report, unknown, type RuleContext } from './context.js';

/** Operators whose literal on `user.roles` holds role keys: a key, or a list of them. */
const OF_KEYS = new Set([
  'array_contains',
  'array_intersect',
  'array_subset',
  'array_superset',
  'equals',
  'not-equals',
  'in',
]);

export function conditionRolesResolve(ctx: RuleContext): Problem[] {
  // Where the configuration does not manage roles they are the service's, which may well hold the key.
  if (!ctx.desired.sections.has('roles')) return [];
  const out: Problem[] = [];
  for (const set of ctx.desired.conditionSets.values()) {
    const parsed = parsedConditions(ctx, set);
    if (!parsed.ok) continue;
    for (const named of attributesNamed(parsed.condition)) {
      const { attribute, test } = named;
      if (attribute.entity !== 'user' || attribute.path.length !== 1 || attribute.path[0] !== 'roles') continue;
      if (!test || !('operand' in test) || !('literal' in test.operand) || !OF_KEYS.has(test.operator)) continue;
      for (const { key, at } of keysIn(test.operand.literal)) {
        if (declared(ctx, 'roles', key)) continue;
        const where = ctx.index.conditionSets.get(set.key);
        out.push(
          report(
            where,
            ['conditions', ...named.at, test.operator, ...at],
            `${unknown(ctx, 'role', key).message} in a condition on user.roles`,
            {
              severity: 'warning',
              hint: hintFor(ctx, key),
            },
          ),
        );
      }
    }
  }
  return out;
}

/** The strings of a literal, a list, or a list of lists (`in`), each with its place below the literal. */
function keysIn(literal: Json, at: number[] = []): { key: string; at: number[] }[] {
  if (typeof literal === 'string') return [{ key: literal, at }];
  if (!Array.isArray(literal) || at.length > 1) return [];
  return literal.flatMap((item, i) => keysIn(item, [...at, i]));
}

/** A resource role's key is told apart (user.roles holds top-level roles only); else "did you mean". */
function hintFor(ctx: RuleContext, key: string): string {
  const resource = [...ctx.desired.resources.values()].find((r) => r.roles?.some((role) => role.key === key));
  if (resource)
    return `"${key}" is a resource role (of "${resource.key}"): user.roles holds the top-level roles the user holds in the check's tenant`;
  return unknown(ctx, 'role', key).options.hint ?? 'user.roles holds the keys of top-level roles';
}
