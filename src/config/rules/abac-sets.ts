/**
 * Rules about user sets, resource sets and set rules (api-notes "Attribute-based access"): what they
 * name is declared and of the right kind, parents form no cycle, and a set that matches everything (or
 * nothing) is said.
 */
import type { DesiredConditionSet } from '../../types/abac.js';
import type { RawSetRule } from '../raw.generated.js';
import type { Loc, Problem } from '../source.js';
import { didYouMean } from '../suggest.js';
import { declared, report, unknown, type RuleContext } from './context.js';
import { kindOf, parsedConditions, sectionOf } from './abac-scope.js';

const LISTED = 8;

/** `unknown user set "x"`, with the closest set of that kind (or the sets of that kind, when few). */
function unknownSet(
  ctx: RuleContext,
  type: DesiredConditionSet['type'],
  key: string,
): { message: string; options: { hint?: string } } {
  const section = type === 'userset' ? 'user_sets' : 'resource_sets';
  const kind = type === 'userset' ? 'user set' : 'resource set';
  const keys = [
    ...[...ctx.desired.conditionSets.values()].filter((s) => s.type === type).map((s) => s.key),
    ...ctx.index.refused.namesOf(section),
  ];
  const hint =
    didYouMean(key, keys) ??
    (keys.length === 0
      ? `no ${kind}s are declared`
      : keys.length <= LISTED
        ? `declared ${kind}s: ${keys.join(', ')}`
        : undefined);
  return { message: `unknown ${kind} "${key}"`, options: hint ? { hint } : {} };
}

/** Whether `key` may be a set of `type`: declared as one, or in a refused part of its section. */
function setDeclared(ctx: RuleContext, type: DesiredConditionSet['type'], key: string): boolean {
  const set = ctx.desired.conditionSets.get(key);
  return set ? set.type === type : ctx.index.refused.covers(type === 'userset' ? 'user_sets' : 'resource_sets', key);
}

/**
 * A resource set's `resource` is a declared resource; a set's `parent` is a declared set of the same
 * kind (and, for a resource set, of the same resource).
 */
export function setsResolve(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  for (const set of desired.conditionSets.values()) {
    const where = index.conditionSets.get(set.key);
    if (set.resource !== undefined && !declared(ctx, 'resources', set.resource)) {
      const u = unknown(ctx, 'resource', set.resource);
      out.push(report(where, ['resource'], u.message, u.options));
    }
    if (set.parent === undefined || set.parent === set.key) continue;
    const parent = desired.conditionSets.get(set.parent);
    if (!parent) {
      if (index.refused.covers(sectionOf(set), set.parent)) continue;
      const u = unknownSet(ctx, set.type, set.parent);
      out.push(report(where, ['parent'], `${u.message} as parent`, u.options));
    } else if (parent.type !== set.type) {
      out.push(
        report(
          where,
          ['parent'],
          `"${set.parent}" is a ${kindOf(parent)}, so it cannot be the parent of ${kindOf(set)} "${set.key}"`,
          {
            hint: `a ${kindOf(set)}'s parent is another ${kindOf(set)}`,
          },
        ),
      );
    } else if (parent.resource !== set.resource) {
      out.push(
        report(
          where,
          ['parent'],
          `resource set "${set.parent}" holds "${parent.resource}" instances, but "${set.key}" holds "${set.resource}" instances`,
          {
            hint: "a resource set's parent is a resource set of the same resource",
          },
        ),
      );
    }
  }
  return out;
}

/** Parents form no cycle (a set that is its own ancestor would apply its own conditions forever: the service refuses it). */
export function setParentsAcyclic({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  const reported = new Set<string>();
  for (const start of desired.conditionSets.values()) {
    const chain: string[] = [];
    let key: string | undefined = start.key;
    while (key !== undefined && !chain.includes(key) && desired.conditionSets.has(key)) {
      chain.push(key);
      key = desired.conditionSets.get(key)!.parent;
    }
    if (key === undefined || !chain.includes(key)) continue;
    const cycle = chain.slice(chain.indexOf(key));
    const first = [...cycle].sort()[0];
    if (reported.has(first)) continue;
    reported.add(first);
    const rotated = [...cycle.slice(cycle.indexOf(first)), ...cycle.slice(0, cycle.indexOf(first))];
    const set = desired.conditionSets.get(first)!;
    out.push(
      report(
        index.conditionSets.get(first),
        ['parent'],
        `${kindOf(set)}s are each other's parents in a cycle: ${[...rotated, first].join(' -> ')}`,
        {
          hint: "a set applies its ancestors' conditions: remove one of these `parent`",
        },
      ),
    );
  }
  return out;
}

/**
 * A set whose conditions are `{}` or `allOf: []` (and that has no parent) matches every user (every
 * instance of its resource); one whose conditions are `anyOf: []` matches nothing. Warnings: either may
 * be meant (`acknowledge: {empty-set: [...]}`).
 */
export function emptySets(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const set of ctx.desired.conditionSets.values()) {
    const parsed = parsedConditions(ctx, set);
    if (!parsed.ok || ctx.index.refused.isTrimmed(sectionOf(set), set.key)) continue;
    const c = parsed.condition;
    const every = c.kind === 'allOf' && c.children.length === 0 && set.parent === undefined;
    const nothing = c.kind === 'anyOf' && c.children.length === 0;
    if (!every && !nothing) continue;
    const what = every
      ? set.type === 'userset'
        ? 'every user'
        : `every instance of "${set.resource}"`
      : set.type === 'userset'
        ? 'no user'
        : 'no instance';
    out.push({
      ...report(
        ctx.index.conditionSets.get(set.key),
        ['conditions'],
        `${kindOf(set)} "${set.key}" matches ${what}: its conditions are ${JSON.stringify(set.conditions)}`,
        {
          on: 'key',
          severity: 'warning',
          hint: `if that is meant, acknowledge it: \`acknowledge: {empty-set: [${set.key}]}\``,
        },
      ),
      rule: 'empty-set',
      object: set.key,
    });
  }
  return out;
}

const WHO = ['user_set', 'role'] as const;
const ON = ['resource_set', 'resource'] as const;

/** A set rule names exactly one of `user_set` / `role` and exactly one of `resource_set` / `resource`. */
export function setRuleShape({ index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const { loc, raw } of index.setRulesWritten) {
    for (const [fields, what] of [
      [WHO, 'who it is for'],
      [ON, 'what it is on'],
    ] as const) {
      const present = fields.filter((f) => raw[f] !== undefined);
      if (present.length === 1) continue;
      const message =
        present.length === 0
          ? `a set rule must say ${what}: one of ${fields.join(', ')}`
          : `a set rule names ${present.join(' and ')}: keep exactly one`;
      out.push(
        report(loc, present.length > 1 ? [present[1]] : [], message, {
          on: present.length > 1 ? 'key' : 'value',
          hint: 'write one set rule per user set and resource set',
        }),
      );
    }
  }
  return out;
}

/**
 * What a set rule names is declared and of the right kind: a user set (or a top-level role), a resource
 * set (or a resource), and actions of the resource set's resource.
 */
export function setRulesResolve(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const { loc, raw } of ctx.index.setRulesWritten) {
    if (WHO.filter((f) => raw[f] !== undefined).length !== 1 || ON.filter((f) => raw[f] !== undefined).length !== 1)
      continue;
    out.push(...whoResolves(ctx, loc, raw));
    const base = onResolves(ctx, loc, raw, out);
    if (base !== undefined) out.push(...actionsResolve(ctx, loc, raw, base));
  }
  return out;
}

function whoResolves(ctx: RuleContext, loc: Loc, raw: RawSetRule): Problem[] {
  if (raw.role !== undefined) {
    if (declared(ctx, 'roles', raw.role)) return [];
    const of = [...ctx.desired.resources.values()].find((r) => r.roles?.some((x) => x.key === raw.role));
    if (of) {
      return [
        report(
          loc,
          ['role'],
          `role "${raw.role}" is a resource role (of "${of.key}"): a set rule's role is a top-level role`,
          {
            hint: 'the service keeps a user set for each top-level role (`__autogen_<role>`); resource roles have none',
          },
        ),
      ];
    }
    const u = unknown(ctx, 'role', raw.role);
    return [report(loc, ['role'], u.message, u.options)];
  }
  const key = raw.user_set!;
  if (setDeclared(ctx, 'userset', key)) return [];
  if (ctx.desired.conditionSets.get(key)?.type === 'resourceset') {
    return [
      report(loc, ['user_set'], `"${key}" is a resource set, not a user set`, {
        hint: 'user_set names who the rule is for; resource_set what it is on',
      }),
    ];
  }
  const u = unknownSet(ctx, 'userset', key);
  return [report(loc, ['user_set'], u.message, u.options)];
}

/** The base resource of what the rule is on, when known (undefined: unknown, or already reported). */
function onResolves(ctx: RuleContext, loc: Loc, raw: RawSetRule, out: Problem[]): string | undefined {
  if (raw.resource !== undefined) {
    if (declared(ctx, 'resources', raw.resource)) return raw.resource;
    const u = unknown(ctx, 'resource', raw.resource);
    out.push(report(loc, ['resource'], u.message, u.options));
    return undefined;
  }
  const key = raw.resource_set!;
  const set = ctx.desired.conditionSets.get(key);
  if (set?.type === 'resourceset') return set.resource;
  if (set) {
    out.push(
      report(loc, ['resource_set'], `"${key}" is a user set, not a resource set`, {
        hint: 'user_set names who the rule is for; resource_set what it is on',
      }),
    );
  } else if (!ctx.index.refused.covers('resource_sets', key)) {
    const u = unknownSet(ctx, 'resourceset', key);
    out.push(report(loc, ['resource_set'], u.message, u.options));
  }
  return undefined;
}

function actionsResolve(ctx: RuleContext, loc: Loc, raw: RawSetRule, base: string): Problem[] {
  const resource = ctx.desired.resources.get(base);
  if (!resource) return []; // refused, or an unknown resource reported by setsResolve
  const on = raw.resource !== undefined ? `"${base}"` : `resource set "${raw.resource_set}" (of "${base}")`;
  const out: Problem[] = [];
  const written = Array.isArray(raw.can) ? raw.can : [raw.can];
  written.forEach((w, i) => {
    const sub = Array.isArray(raw.can) ? ['can', i] : ['can'];
    const colon = w.indexOf(':');
    const named = colon < 0 ? base : w.slice(0, colon);
    const action = colon < 0 ? w : w.slice(colon + 1);
    if (named !== base) {
      out.push(
        report(loc, sub, `"${w}" is an action of "${named}", but the rule is on ${on}`, {
          hint: `a set rule permits actions of its resource set's resource: write an action of "${base}"`,
        }),
      );
    } else if (!resource.actions.includes(action) && !ctx.index.refused.isTrimmed('resources', base)) {
      const hint = didYouMean(action, resource.actions) ?? `its actions: ${resource.actions.join(', ') || '(none)'}`;
      out.push(report(loc, sub, `resource "${base}" has no action "${action}"`, { hint }));
    }
  });
  return out;
}
