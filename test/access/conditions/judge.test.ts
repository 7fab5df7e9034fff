import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTEXT_UNKNOWN,
  NOTHING_UNKNOWN,
  SCALAR_OPERATORS,
  decidingLeaves,
  evaluate,
  judge,
  judgeChain,
  judgeChainTrees,
  judgeTree,
  parseConditions,
  setChain,
  setMatches,
  type AbacModel,
  type Json,
  type SetDef,
  type UnknownAttributes,
} from '../../../src/access/conditions/index.js';
import { aCheck, aModel, cond } from './builders.js';

describe('judgeTree: why a tree holds or fails, as data', () => {
  const bags = aCheck({ user: { attributes: { level: 2, limit: 100 } }, passed: { amount: 120 } });

  it('names the failing leaf with its value and what the check had', () => {
    const t = judgeTree(
      cond({
        allOf: [
          { 'user.level': { 'greater-than-equals': 2 } },
          { 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } },
        ],
      }),
      bags,
    );
    expect(t.verdict).toBe('fails');
    expect(decidingLeaves(t)).toEqual([
      {
        kind: 'leaf',
        path: 'conditions.allOf[1]["resource.amount"]',
        verdict: 'fails',
        attribute: 'resource.amount',
        operator: 'less-than-equals',
        value: { ref: 'user.limit', resolved: 100 },
        actual: 120,
        missing: [],
      },
    ]);
  });

  it('a missing attribute shows as actual undefined; anyOf names the first leaf that held', () => {
    const t = judgeTree(cond({ anyOf: [{ 'user.dept': { equals: 'x' } }, { 'user.level': { in: [1, 2] } }] }), bags);
    expect(t.verdict).toBe('holds');
    expect(decidingLeaves(t).map((l) => [l.attribute, l.actual])).toEqual([['user.level', 2]]);
    const missing = judgeTree(cond({ 'user.dept': { 'not-equals': 'x' } }), bags);
    expect(missing).toMatchObject({ kind: 'leaf', verdict: 'fails', actual: undefined });
  });

  it('the chain follows the parents', () => {
    const m = aModel(
      [
        { key: 'p', type: 'userset', conditions: { 'user.level': { 'greater-than': 1 } } },
        { key: 'c', type: 'userset', parent: 'p', conditions: { 'user.level': { 'greater-than': 5 } } },
      ],
      [],
    );
    expect(judgeChainTrees(setChain(m.sets, 'c'), bags).map((x) => [x.set, x.tree.verdict])).toEqual([
      ['c', 'fails'],
      ['p', 'holds'],
    ]);
  });

  it('unknown: a leaf reading context is unknown, and the verdict names what it waits for', () => {
    const c = cond({
      allOf: [
        { 'user.level': { equals: 2 } },
        { anyOf: [{ 'context.region': { equals: 'eu' } }, { 'user.limit': { 'less-than': { ref: 'context.max' } } }] },
      ],
    });
    expect(judge(c, bags, { unknown: CONTEXT_UNKNOWN })).toEqual({
      verdict: 'unknown',
      missing: ['context.max', 'context.region'],
    });
    // A failing known leaf decides whatever the context: nothing is waited for.
    const fails = cond({ allOf: [{ 'user.level': { equals: 3 } }, { 'context.region': { equals: 'eu' } }] });
    expect(judge(fails, bags, { unknown: CONTEXT_UNKNOWN })).toEqual({ verdict: 'fails', missing: [] });
    // A check that passes its attributes: nothing unknown, the missing context is false.
    expect(judge(c, bags, { unknown: NOTHING_UNKNOWN }).verdict).toBe('fails');
  });
});

/** Conditions over a small attribute space, every scalar operator, literals and references. */
const ATTRS = ['user.a', 'user.b', 'resource.x', 'context.c', 'tenant.t'];
const literal: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: 0, max: 3 }),
  fc.constantFrom('p', 'q'),
  fc.boolean(),
  fc.array(fc.constantFrom('p', 'q', 1), { maxLength: 2 }),
);
const leaf = fc
  .record({
    attr: fc.constantFrom(...ATTRS),
    op: fc.constantFrom(...SCALAR_OPERATORS),
    value: fc.oneof(
      literal,
      fc.constantFrom(...ATTRS).map((r) => ({ ref: r })),
    ),
  })
  .map(({ attr, op, value }) => ({ [attr]: { [op]: value } }));
const tree: fc.Arbitrary<Json> = fc.letrec<{ t: Json }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('t'), { maxLength: 3 }).map((c) => ({ allOf: c })),
    fc.array(tie('t'), { maxLength: 3 }).map((c) => ({ anyOf: c })),
    tie('t').map((c) => ({ not: c })),
  ),
})).t;
const value = fc.option(literal, { nil: undefined });
type Values = { a?: Json; b?: Json; x?: Json; c?: Json; t?: Json };
const valuesArb: fc.Arbitrary<Values> = fc.record({ a: value, b: value, x: value, c: value, t: value });
const only = (o: Record<string, Json | undefined>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, Json>;
const bagsOf = (v: Values) =>
  aCheck({
    user: { attributes: only({ a: v.a, b: v.b }) },
    passed: only({ x: v.x }),
    context: only({ c: v.c }),
    tenant: { stored: only({ t: v.t }), member: true },
    defined: { user: ['a', 'b'], tenant: ['t'] },
  });
const parsed = (json: Json) => {
  const r = parseConditions(json);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.condition;
};
/** The unknown attributes to try: each entity alone, and none. */
const UNKNOWNS: [string, UnknownAttributes, (keyof Values)[]][] = [
  ['context', CONTEXT_UNKNOWN, ['c']],
  ['user', (ref) => ref.entity === 'user', ['a', 'b']],
  ['resource and tenant', (ref) => ref.entity === 'resource' || ref.entity === 'tenant', ['x', 't']],
];
const runs = { numRuns: 300 };

describe('the judge holds to the two-valued evaluator (property)', () => {
  it("with nothing unknown, the verdict is evaluate's outcome, and setMatches is judgeChain", () => {
    fc.assert(
      fc.property(tree, valuesArb, (t, v) => {
        const bags = bagsOf(v);
        const c = parsed(t);
        expect(judge(c, bags).verdict).toBe(evaluate(c, bags) ? 'holds' : 'fails');
        expect(judgeTree(c, bags).verdict).toBe(evaluate(c, bags) ? 'holds' : 'fails');
        const model: AbacModel = {
          sets: new Map<string, SetDef>([['s', { key: 's', type: 'userset', conditions: c }]]),
          rules: [],
        };
        expect(setMatches(model, 's', bags)).toBe(judgeChain(setChain(model.sets, 's'), bags).verdict === 'holds');
      }),
      runs,
    );
  });

  it('a decided verdict holds whatever the unknown attributes are; an unknown one names only unknown attributes', () => {
    fc.assert(
      fc.property(
        tree,
        valuesArb,
        fc.array(valuesArb, { minLength: 2, maxLength: 4 }),
        fc.constantFrom(...UNKNOWNS),
        (t, known, completions, [, unknown, keys]) => {
          const c = parsed(t);
          // Offline the unknown attributes are absent; the decision-time check fills them in.
          const offline = { ...known, ...Object.fromEntries(keys.map((k) => [k, undefined])) };
          const j = judge(c, bagsOf(offline), { unknown });
          expect(judgeTree(c, bagsOf(offline), { unknown }).verdict).toBe(j.verdict);
          const outcomes = completions.map((w) =>
            evaluate(c, bagsOf({ ...known, ...Object.fromEntries(keys.map((k) => [k, w[k]])) })),
          );
          outcomes.push(evaluate(c, bagsOf(offline)));
          if (j.verdict === 'holds') expect(outcomes.every(Boolean)).toBe(true);
          if (j.verdict === 'fails') expect(outcomes.some(Boolean)).toBe(false);
          if (j.verdict === 'unknown') {
            expect(j.missing.length).toBeGreaterThan(0);
            for (const m of j.missing) expect(keys).toContain(m.split('.')[1]);
          } else expect(j.missing).toEqual([]);
        },
      ),
      runs,
    );
  });
});
