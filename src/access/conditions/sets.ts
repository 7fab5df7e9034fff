import type { Bags, EvaluateOptions } from './evaluate.js';
import { judgeChain } from './judge.js';
import type { Condition } from './types.js';

/** A condition set as the decision needs it. `resource`: a resource set's base resource key. */
export interface SetDef {
  key: string;
  type: 'userset' | 'resourceset';
  resource?: string;
  conditions: Condition;
  parent?: string;
}

/** A set rule: users of `userSet` may do `resource:action` on resources of `resourceSet`. */
export interface RuleDef {
  userSet: string;
  resourceSet: string;
  resource: string;
  action: string;
}

export interface AbacModel {
  sets: ReadonlyMap<string, SetDef>;
  rules: readonly RuleDef[];
}

export const AUTOGEN_PREFIX = '__autogen_';

/**
 * The sets the service keeps for itself: `__autogen_<role>` per top-level role ("the user holds the role
 * in the check's tenant", i.e. the role is in `user.roles`) and `__autogen_<resource>` per resource (any
 * instance of the type).
 */
export function autogenSets(roles: Iterable<string>, resources: Iterable<string>): SetDef[] {
  return [
    ...[...roles].map((role): SetDef => ({
      key: AUTOGEN_PREFIX + role,
      type: 'userset',
      conditions: {
        kind: 'leaf',
        attribute: { entity: 'user', path: ['roles'] },
        test: { operator: 'array_contains', operand: { literal: role } },
      },
    })),
    ...[...resources].map((resource): SetDef => ({
      key: AUTOGEN_PREFIX + resource,
      type: 'resourceset',
      resource,
      conditions: { kind: 'allOf', children: [] },
    })),
  ];
}

/** The set and its ancestors, nearest first; stops at a missing parent or a cycle (which the server refuses). */
export function setChain(sets: ReadonlyMap<string, SetDef>, key: string): SetDef[] {
  const chain: SetDef[] = [];
  const seen = new Set<string>();
  for (let s = sets.get(key); s && !seen.has(s.key); s = s.parent === undefined ? undefined : sets.get(s.parent)) {
    seen.add(s.key);
    chain.push(s);
  }
  return chain;
}

/**
 * Whether a check's attributes fall in a set: its conditions AND every ancestor's (parent_id), and for a
 * resource set `resource.type` equal to its base resource (what the policy editor adds to every resource set).
 */
export function setMatches(model: AbacModel, key: string, bags: Bags, options?: EvaluateOptions): boolean {
  return judgeChain(setChain(model.sets, key), bags, options).verdict === 'holds';
}

export interface AbacDecision {
  allow: boolean;
  /** The first rule that allowed, in the model's order. */
  rule?: RuleDef;
}

/**
 * ABAC's part of the decision: some rule granting `type:action` joins a user set and a resource set the
 * check falls in. Allow-only: any matching pair suffices (api-notes "Decision point").
 */
export function decideAbac(
  model: AbacModel,
  check: { type: string; action: string },
  bags: Bags,
  options?: EvaluateOptions,
): AbacDecision {
  const memo = new Map<string, boolean>();
  const inSet = (key: string) => {
    let m = memo.get(key);
    if (m === undefined) memo.set(key, (m = setMatches(model, key, bags, options)));
    return m;
  };
  for (const rule of model.rules) {
    if (rule.resource !== check.type || rule.action !== check.action) continue;
    if (inSet(rule.resourceSet) && inSet(rule.userSet)) return { allow: true, rule };
  }
  return { allow: false };
}
