import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  OPERATORS,
  SCALAR_OPERATORS,
  evaluate,
  parseConditions,
  setMatches,
  type AbacModel,
  type Json,
  type SetDef,
} from '../../../src/access/conditions/index.js';
import { aCheck } from './builders.js';

/** Conditions JSON over a small attribute space, every scalar operator, literals and references. */
const ATTRS = ['user.a', 'user.b', 'resource.x', 'context.c'];
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
const bagsArb = fc.record({ a: value, b: value, x: value, c: value }).map(({ a, b, x, c }) => {
  const only = (o: Record<string, Json | undefined>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Record<string, Json>;
  return aCheck({
    user: { attributes: only({ a, b }) },
    passed: only({ x }),
    context: only({ c }),
    defined: { user: ['a', 'b'] },
  });
});

const ev = (json: Json, bags: ReturnType<typeof aCheck>) => {
  const r = parseConditions(json);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return evaluate(r.condition, bags);
};

const runs = { numRuns: 400 };

describe('conditions laws', () => {
  it('every generated tree parses', () => {
    fc.assert(
      fc.property(tree, (t) => {
        expect(parseConditions(t).ok).toBe(true);
      }),
      runs,
    );
  });

  it('not(x) == !x; allOf is AND, anyOf is OR; empty allOf true, empty anyOf false', () => {
    fc.assert(
      fc.property(fc.array(tree, { maxLength: 4 }), bagsArb, (ts, bags) => {
        const each = ts.map((t) => ev(t, bags));
        expect(ev({ allOf: ts }, bags)).toBe(each.every(Boolean));
        expect(ev({ anyOf: ts }, bags)).toBe(each.some(Boolean));
        for (const [i, t] of ts.entries()) expect(ev({ not: t }, bags)).toBe(!each[i]);
        expect(ev({ not: ts }, bags)).toBe(!each.every(Boolean));
      }),
      runs,
    );
  });

  it('De Morgan: not(anyOf) == allOf(not)', () => {
    fc.assert(
      fc.property(fc.array(tree, { maxLength: 3 }), bagsArb, (ts, bags) => {
        expect(ev({ not: { anyOf: ts } }, bags)).toBe(ev({ allOf: ts.map((t) => ({ not: t })) }, bags));
      }),
      runs,
    );
  });

  it('a missing attribute makes every scalar comparison on it false, not-equals included', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SCALAR_OPERATORS), literal, (op, v) => {
        expect(ev({ 'user.missing': { [op]: v } }, aCheck({}))).toBe(false);
        expect(ev({ 'user.a': { [op]: { ref: 'user.missing' } } }, aCheck({ user: { attributes: { a: 1 } } }))).toBe(
          false,
        );
      }),
      runs,
    );
  });

  it("a set with parents matches exactly when its own and every ancestor's conditions hold (AND)", () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), bagsArb, (ts, bags) => {
        const sets: SetDef[] = ts.map((t, i) => {
          const r = parseConditions(t);
          if (!r.ok) throw new Error('unparsed');
          return { key: `s${i}`, type: 'userset', conditions: r.condition, ...(i > 0 ? { parent: `s${i - 1}` } : {}) };
        });
        const model: AbacModel = { sets: new Map(sets.map((s) => [s.key, s])), rules: [] };
        expect(setMatches(model, `s${ts.length - 1}`, bags)).toBe(ts.every((t) => ev(t, bags)));
      }),
      runs,
    );
  });

  it('the fifteen operators', () => {
    expect(OPERATORS).toHaveLength(15);
  });
});
