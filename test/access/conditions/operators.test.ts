import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AttrSet,
  applyOperator,
  compareValues,
  evaluate,
  parseConditions,
  type Json,
} from '../../../src/access/conditions/index.js';
import { aCheck, cond } from './builders.js';

describe('every operator', () => {
  it.each<[string, Json, Json, boolean]>([
    ['equals', 5, 5.0, true],
    ['equals', { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, true],
    ['equals', true, 'true', false],
    ['equals', ['x'], 'x', false],
    ['not-equals', 'a', 'b', true],
    ['not-equals', 1, 1, false],
    ['greater-than', 31, 30, true],
    ['greater-than', '0', 3, true], // Rego: string > number
    ['greater-than', null, false, false],
    ['less-than', 2, 10, true],
    ['less-than', 'apple', 'banana', true],
    ['less-than', [1, 2], [1, 3], true],
    ['less-than', [1], [1, 0], true],
    ['greater-than-equals', 30, 30, true],
    ['greater-than-equals', 29, 30, false],
    ['less-than-equals', 30, 30, true],
    ['less-than-equals', { a: 1 }, 'z', false], // objects order after strings
    ['contains', 'bob@admin.io', '@admin', true],
    ['contains', ['@admin'], '@admin', false],
    ['contains', 'abc', 1, false],
    ['array_contains', ['a', 'b'], 'b', true],
    ['array_contains', ['a', 'b'], 'c', false],
    ['array_contains', 'ab', 'a', false],
    ['array_contains', { k: 'v' }, 'v', true], // Rego `in` reads an object's values
    ['array_intersect', ['a', 'b'], ['b', 'c'], true],
    ['array_intersect', ['a'], ['c'], false],
    ['array_intersect', 'a', ['a'], false],
    ['array_subset', ['a', 'b'], ['a', 'b', 'c'], true],
    ['array_subset', ['a', 'd'], ['a', 'b', 'c'], false],
    ['array_subset', [], ['a'], true],
    ['array_superset', ['a', 'b', 'c'], ['a', 'b'], true],
    ['array_superset', ['a'], ['a', 'b'], false],
    ['in', 'US', ['US', 'Canada'], true],
    ['in', 'FR', ['US', 'Canada'], false],
    ['in', 'US', 'US', false],
  ])('%s: %j vs %j is %s', (op, a, v, expected) => {
    expect(applyOperator(op as never, a, v)).toBe(expected);
  });

  it('object_match, any_match and all_match apply their sub-conditions', () => {
    const bags = aCheck({
      user: {
        attributes: {
          address: { city: 'Paris', zip: 75001 },
          shifts: [
            { day: 'mon', start: 9 },
            { day: 'tue', start: 14 },
          ],
          empty: [],
        },
      },
    });
    const holds = (c: unknown) => evaluate(cond(c), bags);
    expect(
      holds({
        'user.address': { object_match: { match: { city: { equals: 'Paris' }, zip: { 'greater-than': 75000 } } } },
      }),
    ).toBe(true);
    expect(holds({ 'user.address': { object_match: { match: { city: { equals: 'Lyon' } } } } })).toBe(false);
    expect(holds({ 'user.shifts': { object_match: { match: {} } } })).toBe(false); // an array is no object
    expect(holds({ 'user.shifts': { any_match: { match: { start: { 'greater-than': 12 } } } } })).toBe(true);
    expect(holds({ 'user.shifts': { all_match: { match: { start: { 'greater-than': 12 } } } } })).toBe(false);
    expect(holds({ 'user.shifts': { all_match: { match: { start: { 'greater-than': 8 } } } } })).toBe(true);
    expect(holds({ 'user.empty': { any_match: { match: {} } } })).toBe(false);
    expect(holds({ 'user.empty': { all_match: { match: {} } } })).toBe(true);
    expect(holds({ 'user.address': { any_match: { match: {} } } })).toBe(false);
  });

  it("fk_resource_type applies match to the named instances' stored attributes, and reports the ones it lacks", () => {
    const bags = aCheck({ user: { attributes: { team: 't1', teams: ['t1', 't2'] } } });
    const c = cond({
      'user.team': { object_match: { fk_resource_type: 'team', match: { region: { equals: 'eu' } } } },
    });
    const missing = new Set<string>();
    expect(evaluate(c, bags, { instances: new Map(), missing })).toBe(false);
    expect([...missing]).toEqual(['team:t1']);
    expect(evaluate(c, bags, { instances: new Map([['team:t1', { region: 'eu' }]]) })).toBe(true);
    const all = cond({
      'user.teams': { all_match: { fk_resource_type: 'team', match: { region: { equals: 'eu' } } } },
    });
    expect(
      evaluate(all, bags, {
        instances: new Map([
          ['team:t1', { region: 'eu' }],
          ['team:t2', null],
        ]),
      }),
    ).toBe(false);
    expect(
      evaluate(all, bags, {
        instances: new Map([
          ['team:t1', { region: 'eu' }],
          ['team:t2', { region: 'eu' }],
        ]),
      }),
    ).toBe(true);
  });

  it('references: a missing target is false; role.* holds through some held role, a ref to role.* never', () => {
    const bags = aCheck({
      user: { attributes: { limit: 10 } },
      passed: { amount: 5 },
      roleAttributes: [{ locations: ['NYC'] }, { locations: ['STL'] }],
    });
    expect(evaluate(cond({ 'resource.amount': { 'less-than': { ref: 'user.limit' } } }), bags)).toBe(true);
    expect(evaluate(cond({ 'resource.amount': { 'less-than': { ref: 'user.nothing' } } }), bags)).toBe(false);
    expect(evaluate(cond({ 'role.locations': { array_contains: 'STL' } }), bags)).toBe(true);
    expect(evaluate(cond({ 'role.locations': { array_contains: 'LA' } }), bags)).toBe(false);
    expect(evaluate(cond({ 'resource.amount': { equals: { ref: 'role.amount' } } }), bags)).toBe(false);
    expect(evaluate(cond({ 'context.ip': { equals: '1.2.3.4' } }), aCheck({ context: { ip: '1.2.3.4' } }))).toBe(true);
    expect(evaluate(cond({ 'subject.limit': { equals: 10 } }), bags)).toBe(true);
  });

  it('{} and {"allOf": []} match everything, {"anyOf": []} nothing; not negates', () => {
    const bags = aCheck({});
    expect(evaluate(cond({}), bags)).toBe(true);
    expect(evaluate(cond({ allOf: [] }), bags)).toBe(true);
    expect(evaluate(cond({ anyOf: [] }), bags)).toBe(false);
    expect(evaluate(cond({ not: { anyOf: [] } }), bags)).toBe(true);
    expect(evaluate(cond({ not: [] }), bags)).toBe(false);
  });
});

describe('parseConditions refuses what the notes do not accept, naming the path and the supported forms', () => {
  it.each<[string, unknown, string, string]>([
    ['noneOf', { noneOf: [] }, 'conditions["noneOf"]', 'supported: {"allOf"'],
    ['and', { allOf: [{ and: [] }] }, 'conditions.allOf[0]["and"]', 'unknown condition'],
    [
      'between',
      { allOf: [{ anyOf: [{ 'user.age': { between: [1, 2] } }] }] },
      'conditions.allOf[0].anyOf[0]["user.age"]["between"]',
      'unknown operator "between"',
    ],
    [
      'starts-with',
      { 'user.email': { 'starts-with': 'a' } },
      'conditions["user.email"]["starts-with"]',
      'supported: equals',
    ],
    [
      'an unknown prefix',
      { 'environment.day': { equals: 1 } },
      'conditions["environment.day"]',
      'entity one of user, subject',
    ],
    [
      'two attributes in one leaf',
      { 'user.a': { equals: 1 }, 'user.b': { equals: 2 } },
      'conditions',
      'exactly one key',
    ],
    ['two operators', { 'user.a': { equals: 1, 'not-equals': 2 } }, 'conditions["user.a"]', 'exactly one operator'],
    ['allOf not an array', { allOf: {} }, 'conditions.allOf', 'array'],
    [
      'a bad ref',
      { 'user.a': { equals: { ref: 'nobody.x' } } },
      'conditions["user.a"]["equals"]',
      '{"ref": "<entity>.<attribute>"}',
    ],
    [
      'a ref with more keys',
      { 'user.a': { equals: { ref: 'user.b', x: 1 } } },
      'conditions["user.a"]["equals"]',
      'reference',
    ],
    [
      'a match without match',
      { 'user.a': { object_match: { equals: 1 } } },
      'conditions["user.a"]["object_match"]',
      '{"match"',
    ],
    [
      'a bad sub-condition',
      { 'user.a': { any_match: { match: { x: { foo: 1 } } } } },
      'conditions["user.a"]["any_match"].match["x"]["foo"]',
      'unknown operator',
    ],
    ['a leaf that is not an object', { allOf: [3] }, 'conditions.allOf[0]', 'expected an object'],
  ])('%s', (_, json, path, message) => {
    const r = parseConditions(json);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0].path).toBe(path);
    expect(r.problems[0].message).toContain(message);
  });

  it('values wrapped in one-element arrays are compared as given', () => {
    expect(evaluate(cond({ 'user.a': { equals: ['x'] } }), aCheck({ user: { attributes: { a: 'x' } } }))).toBe(false);
  });
});

const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -5, max: 5 }),
    fc.constantFrom('a', 'b', '0', ''),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b'), tie('v'), { maxKeys: 2 }),
  ),
})).v;

describe("ordering and equality are Rego's", () => {
  it('compareValues is a total order consistent with equality', () => {
    fc.assert(
      fc.property(json, json, json, (a, b, c) => {
        expect(Math.sign(compareValues(a, b))).toBe(-Math.sign(compareValues(b, a)) || 0);
        if (compareValues(a, b) <= 0 && compareValues(b, c) <= 0) expect(compareValues(a, c)).toBeLessThanOrEqual(0);
        expect(compareValues(a, structuredClone(a))).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('types order null < boolean < number < string < array < set < object', () => {
    const ladder = [null, true, -1e9, '', [], new AttrSet([]), {}];
    for (let i = 1; i < ladder.length; i++) expect(compareValues(ladder[i - 1], ladder[i])).toBeLessThan(0);
  });
});
