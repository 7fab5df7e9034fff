import { evaluate, resolve, type Bags, type EvaluateOptions } from './evaluate.js';
import { setChain, type AbacModel } from './sets.js';
import type { Condition, Value } from './types.js';

/**
 * Why a tree holds or not, as data for `explain` and the plan's access section (which render it):
 * each node with its outcome, leaves with the attribute, operator, value and what the check had. An
 * explanation is a path, not a verdict (style guide).
 */
export type Trace =
  | { kind: 'allOf' | 'anyOf'; path: string; holds: boolean; children: Trace[] }
  | { kind: 'not'; path: string; holds: boolean; child: Trace }
  | {
      kind: 'leaf';
      path: string;
      holds: boolean;
      /** `user.level` */
      attribute: string;
      operator: string;
      /** The literal, or `{ref}` with what the reference resolved to (undefined: missing). */
      value: { literal: Value } | { ref: string; resolved: Value | undefined };
      /** What the check had for the attribute; undefined when missing (the comparison is then false). */
      actual: Value | undefined;
    };

export function traceCondition(c: Condition, bags: Bags, options: EvaluateOptions = {}, path = 'conditions'): Trace {
  const holds = evaluate(c, bags, options);
  switch (c.kind) {
    case 'allOf':
    case 'anyOf':
      return { kind: c.kind, path, holds, children: c.children.map((child, i) => traceCondition(child, bags, options, `${path}.${c.kind}[${i}]`)) };
    case 'not':
      return { kind: 'not', path, holds, child: traceCondition(c.child, bags, options, `${path}.not`) };
    case 'leaf': {
      const attribute = `${c.attribute.entity}.${c.attribute.path.join('.')}`;
      const t = c.test;
      const value = 'operand' in t
        ? 'literal' in t.operand
          ? { literal: t.operand.literal }
          : { ref: `${t.operand.ref.entity}.${t.operand.ref.path.join('.')}`, resolved: resolve(t.operand.ref, bags) }
        : { literal: { match: Object.fromEntries(t.match.map((m) => [m.field, m.test.operator])), ...(t.fkResourceType ? { fk_resource_type: t.fkResourceType } : {}) } as Value };
      const actual = c.attribute.entity === 'role' ? bags.roles.map((r) => r[c.attribute.path[0]]).filter((v) => v !== undefined) : resolve(c.attribute, bags);
      return { kind: 'leaf', path: `${path}[${JSON.stringify(attribute)}]`, holds, attribute, operator: t.operator, value, actual };
    }
  }
}

/** The first leaves that decide a tree's outcome: for a failing tree the leaves that failed, for a holding one those that held. */
export function decidingLeaves(t: Trace): (Trace & { kind: 'leaf' })[] {
  switch (t.kind) {
    case 'leaf':
      return [t];
    case 'not':
      return decidingLeaves(t.child);
    default: {
      const wanted = t.children.filter((c) => c.holds === t.holds);
      return (t.kind === 'allOf' ? (t.holds ? wanted : wanted.slice(0, 1)) : t.holds ? wanted.slice(0, 1) : wanted).flatMap(decidingLeaves);
    }
  }
}

/** A set's trace: its own and every ancestor's conditions, nearest first. */
export function traceSet(model: AbacModel, key: string, bags: Bags, options?: EvaluateOptions): { set: string; trace: Trace }[] {
  return setChain(model.sets, key).map((s) => ({ set: s.key, trace: traceCondition(s.conditions, bags, options) }));
}
