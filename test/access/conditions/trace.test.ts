import { describe, expect, it } from 'vitest';
import { decidingLeaves, traceCondition, traceSet } from '../../../src/access/conditions/index.js';
import { aCheck, aModel, cond } from './builders.js';

describe('traceCondition: why a tree holds or fails, as data', () => {
  const bags = aCheck({ user: { attributes: { level: 2, limit: 100 } }, passed: { amount: 120 } });

  it('names the failing leaf with its value and what the check had', () => {
    const t = traceCondition(cond({ allOf: [{ 'user.level': { 'greater-than-equals': 2 } }, { 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } }] }), bags);
    expect(t.holds).toBe(false);
    expect(decidingLeaves(t)).toEqual([
      { kind: 'leaf', path: 'conditions.allOf[1]["resource.amount"]', holds: false, attribute: 'resource.amount', operator: 'less-than-equals', value: { ref: 'user.limit', resolved: 100 }, actual: 120 },
    ]);
  });

  it('a missing attribute shows as actual undefined; anyOf names the first leaf that held', () => {
    const t = traceCondition(cond({ anyOf: [{ 'user.dept': { equals: 'x' } }, { 'user.level': { in: [1, 2] } }] }), bags);
    expect(t.holds).toBe(true);
    expect(decidingLeaves(t).map((l) => [l.attribute, l.actual])).toEqual([['user.level', 2]]);
    const missing = traceCondition(cond({ 'user.dept': { 'not-equals': 'x' } }), bags);
    expect(missing).toMatchObject({ kind: 'leaf', holds: false, actual: undefined });
  });

  it('traceSet follows the parents', () => {
    const m = aModel([
      { key: 'p', type: 'userset', conditions: { 'user.level': { 'greater-than': 1 } } },
      { key: 'c', type: 'userset', parent: 'p', conditions: { 'user.level': { 'greater-than': 5 } } },
    ], []);
    expect(traceSet(m, 'c', bags).map((x) => [x.set, x.trace.holds])).toEqual([['c', false], ['p', true]]);
  });
});
