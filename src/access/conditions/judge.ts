/**
 * The one judge of conditions: for a condition tree (a set, a rule) on the attributes a check sees, it
 * answers `holds`, `fails` or `unknown`, and which attributes an unknown verdict waits for (the shape of
 * OpenFGA's `EvaluationResult{ConditionMet, MissingParameters}`). `unknown` is named by the caller: the
 * attributes only the decision-time check has (`context.*` for the plan; everything but the generated
 * attributes for the review's impact; nothing for a check that passes its attributes, which is then
 * decided exactly as `/allowed` decides it).
 *
 * Kleene's three-valued logic, written once: a leaf reading an unknown attribute is unknown, any other
 * leaf is decided by the two-valued `evaluate` (Rego's semantics); `allOf` fails when a child fails and
 * holds when all hold, `anyOf` the mirror, `not` keeps unknown. `/allowed` (sets.ts `setMatches`), the
 * graph (abac/graph.ts), the diff, explain, check, replay and the review read it. A property test holds it
 * to `evaluate`: equal where nothing is unknown, and every completion of the unknown attributes agrees
 * with a `holds` or `fails` verdict (test/access/conditions/judge.test.ts). Pure.
 */
import { evaluate, resolve, type Bags, type EvaluateOptions } from './evaluate.js';
import { attributesNamed } from './parse.js';
import type { AttributeRef, Condition, Value } from './types.js';

export type Verdict = 'holds' | 'fails' | 'unknown';

/** Which attributes the judge may not read (only the decision-time check has them). */
export type UnknownAttributes = (ref: AttributeRef) => boolean;
/** A check that passes its attributes: everything it does not pass is missing, nothing is unknown. */
export const NOTHING_UNKNOWN: UnknownAttributes = () => false;
/** The plan's and explain's offline reading: stored attributes decide, the check's `context` is unknown. */
export const CONTEXT_UNKNOWN: UnknownAttributes = (ref) => ref.entity === 'context';

export interface JudgeOptions extends EvaluateOptions {
  /** Default: nothing unknown (the two-valued decision). */
  unknown?: UnknownAttributes;
}

export interface Judgement {
  verdict: Verdict;
  /** For `unknown`: the attributes the verdict waits for (`context.region`), sorted, each once. */
  missing: string[];
}

/** A judged tree: each node with its verdict, leaves with what they compared (the explanation is a path, not a verdict). */
export type Judged =
  | { kind: 'allOf' | 'anyOf'; path: string; verdict: Verdict; children: Judged[] }
  | { kind: 'not'; path: string; verdict: Verdict; child: Judged }
  | JudgedLeaf;

export interface JudgedLeaf {
  kind: 'leaf';
  /** Where in the set's conditions (`conditions.allOf[1]["user.level"]`). */
  path: string;
  verdict: Verdict;
  /** `user.level` */
  attribute: string;
  operator: string;
  /** The literal, or `{ref}` with what the reference resolved to (undefined: missing). */
  value: { literal: Value } | { ref: string; resolved: Value | undefined };
  /** What the check had for the attribute; undefined when missing (the comparison is then false). */
  actual: Value | undefined;
  /** The unknown attributes the leaf reads (non-empty exactly when its verdict is `unknown`). */
  missing: string[];
}

export function andVerdict(a: Verdict, b: Verdict): Verdict {
  if (a === 'fails' || b === 'fails') return 'fails';
  return a === 'unknown' || b === 'unknown' ? 'unknown' : 'holds';
}

export function orVerdict(a: Verdict, b: Verdict): Verdict {
  if (a === 'holds' || b === 'holds') return 'holds';
  return a === 'unknown' || b === 'unknown' ? 'unknown' : 'fails';
}

export function notVerdict(a: Verdict): Verdict {
  return a === 'holds' ? 'fails' : a === 'fails' ? 'holds' : 'unknown';
}

// Shared answers of the two-valued path (read-only: `missing` is empty).
const HOLDS: Judgement = Object.freeze({ verdict: 'holds', missing: [] as string[] });
const FAILS: Judgement = Object.freeze({ verdict: 'fails', missing: [] as string[] });
const verdictOf = (b: boolean): Verdict => (b ? 'holds' : 'fails');
const nameOf = (ref: AttributeRef) => `${ref.entity}.${ref.path.join('.')}`;

/** The unknown attributes a tree reads (memoised per tree and predicate: trees are parsed once). */
const readsMemo = new WeakMap<Condition, Map<UnknownAttributes, string[]>>();
const NONE: string[] = [];
function unknownRead(c: Condition, unknown: UnknownAttributes): string[] {
  if (unknown === NOTHING_UNKNOWN) return NONE;
  let byPredicate = readsMemo.get(c);
  if (!byPredicate) readsMemo.set(c, (byPredicate = new Map()));
  let out = byPredicate.get(unknown);
  if (!out)
    byPredicate.set(
      unknown,
      (out = [
        ...new Set(
          attributesNamed(c)
            .filter((a) => unknown(a.attribute))
            .map((a) => nameOf(a.attribute)),
        ),
      ].sort()),
    );
  return out;
}

/** The verdict on a tree, and what an unknown one waits for. A tree reading nothing unknown is decided by `evaluate` alone. */
export function judge(c: Condition, bags: Bags, options: JudgeOptions = {}): Judgement {
  const unknown = options.unknown ?? NOTHING_UNKNOWN;
  if (unknownRead(c, unknown).length === 0) return evaluate(c, bags, options) ? HOLDS : FAILS;
  const tree = judgeTree(c, bags, options);
  return { verdict: tree.verdict, missing: tree.verdict === 'unknown' ? waitsFor(tree) : [] };
}

/** The tree with every node judged (what `explain` renders). */
export function judgeTree(c: Condition, bags: Bags, options: JudgeOptions = {}, path = 'conditions'): Judged {
  const unknown = options.unknown ?? NOTHING_UNKNOWN;
  switch (c.kind) {
    case 'allOf':
    case 'anyOf': {
      const children = c.children.map((child, i) => judgeTree(child, bags, options, `${path}.${c.kind}[${i}]`));
      const [unit, join] = c.kind === 'allOf' ? (['holds', andVerdict] as const) : (['fails', orVerdict] as const);
      return {
        kind: c.kind,
        path,
        verdict: children.reduce<Verdict>((v, child) => join(v, child.verdict), unit),
        children,
      };
    }
    case 'not': {
      const child = judgeTree(c.child, bags, options, `${path}.not`);
      return { kind: 'not', path, verdict: notVerdict(child.verdict), child };
    }
    case 'leaf': {
      const attribute = nameOf(c.attribute);
      const t = c.test;
      const value: JudgedLeaf['value'] =
        'operand' in t
          ? 'literal' in t.operand
            ? { literal: t.operand.literal }
            : { ref: nameOf(t.operand.ref), resolved: resolve(t.operand.ref, bags) }
          : {
              literal: {
                match: Object.fromEntries(t.match.map((m) => [m.field, m.test.operator])),
                ...(t.fkResourceType ? { fk_resource_type: t.fkResourceType } : {}),
              } as Value,
            };
      const actual =
        c.attribute.entity === 'role'
          ? bags.roles.map((r) => r[c.attribute.path[0]]).filter((v) => v !== undefined)
          : resolve(c.attribute, bags);
      const missing = unknownRead(c, unknown);
      const verdict = missing.length > 0 ? 'unknown' : verdictOf(evaluate(c, bags, options));
      return {
        kind: 'leaf',
        path: `${path}[${JSON.stringify(attribute)}]`,
        verdict,
        attribute,
        operator: t.operator,
        value,
        actual,
        missing,
      };
    }
  }
}

/**
 * The leaves that decide a node's verdict: all that held for a holding `allOf`, the first that failed for
 * a failing one, every unknown for an unknown one (and the mirror for `anyOf`).
 */
export function decidingLeaves(j: Judged): JudgedLeaf[] {
  switch (j.kind) {
    case 'leaf':
      return [j];
    case 'not':
      return decidingLeaves(j.child);
    default: {
      const same = j.children.filter((c) => c.verdict === j.verdict);
      const one = j.kind === 'allOf' ? j.verdict === 'fails' : j.verdict === 'holds';
      return (one ? same.slice(0, 1) : same).flatMap(decidingLeaves);
    }
  }
}

/** What an unknown tree waits for: the unknown attributes its deciding leaves read. */
function waitsFor(j: Judged): string[] {
  return [...new Set(decidingLeaves(j).flatMap((l) => (l.verdict === 'unknown' ? l.missing : [])))].sort();
}

/** A set of a chain as the judge needs it (sets.ts `SetDef` is one). */
export interface ChainLink {
  type: 'userset' | 'resourceset';
  resource?: string;
  conditions: Condition;
}

/**
 * A set's verdict (its chain: the set and its ancestors, nearest first, AND-ed, as `parent_id` makes it),
 * for a resource set only on its base type. An empty chain (a set that does not exist) fails.
 */
export function judgeChain(chain: readonly ChainLink[], bags: Bags, options: JudgeOptions = {}): Judgement {
  if (chain.length === 0) return FAILS;
  if (chain[0].type === 'resourceset' && bags.resource.type !== chain[0].resource) return FAILS;
  let verdict: Verdict = 'holds';
  const missing = new Set<string>();
  for (const s of chain) {
    const j = judge(s.conditions, bags, options);
    if (j.verdict === 'fails') return FAILS;
    if (j.verdict === 'unknown') {
      verdict = 'unknown';
      for (const m of j.missing) missing.add(m);
    }
  }
  return verdict === 'holds' ? HOLDS : { verdict, missing: [...missing].sort() };
}

/** Each set of a chain with its judged tree, nearest first (what `explain` renders). */
export function judgeChainTrees(
  chain: readonly (ChainLink & { key: string })[],
  bags: Bags,
  options: JudgeOptions = {},
): { set: string; tree: Judged }[] {
  return chain.map((s) => ({ set: s.key, tree: judgeTree(s.conditions, bags, options) }));
}

/**
 * The access graph's packed verdict, kept in typed arrays: 0 fails and 1 holds whatever the check passes;
 * 2 and 3 are unknown (depend on what the check passes), 2 denied and 3 allowed by a check passing nothing
 * (what `/allowed` answers without them).
 */
export type Status = 0 | 1 | 2 | 3;
/** Allowed by a check passing nothing. */
export const allowsWithout = (s: Status): boolean => s === 1 || s === 3;
/** Whether what the check passes decides it. */
export const dependsOnContext = (s: Status): boolean => s >= 2;
/** A verdict packed, `withNothing` deciding an unknown one as a check passing nothing (called only then). */
export function statusOf(verdict: Verdict, withNothing: () => boolean): Status {
  return verdict === 'holds' ? 1 : verdict === 'fails' ? 0 : withNothing() ? 3 : 2;
}

/** `andVerdict` on packed verdicts, the check passing nothing deciding the unknown ones alike. */
export function andStatus(a: Status, b: Status): Status {
  if (a === 0 || b === 0) return 0;
  if (a === 1) return b;
  if (b === 1) return a;
  return a === 3 && b === 3 ? 3 : 2;
}

/** `orVerdict` on packed verdicts. */
export function orStatus(a: Status, b: Status): Status {
  if (a === 1 || b === 1) return 1;
  if (a === 0) return b;
  if (b === 0) return a;
  return a === 3 || b === 3 ? 3 : 2;
}
