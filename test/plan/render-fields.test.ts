/**
 * An update's attribute and condition changes in text and Markdown (src/plan/render-fields.ts): only the
 * changed keys and leaves, while the plan's JSON keeps the whole values. Pure.
 */
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/plan/index.js';
import { fieldLines } from '../../src/plan/render-fields.js';
import { emptyDesiredState } from '../../src/types/desired.js';
import { emptyLiveState } from '../../src/types/live.js';
import type { DesiredConditionSet } from '../../src/types/abac.js';
import { aTenant, aUser, desired, live, OPTIONS } from './builders.js';

const small = (limit: number): DesiredConditionSet => ({
  key: 'small',
  type: 'resourceset',
  name: 'small',
  resource: 'expense',
  conditions: {
    allOf: [
      { allOf: [{ 'resource.expense_amount': { 'less-than': limit } }, { 'resource.category': { equals: 'travel' } }] },
    ],
  },
});

function userPlan() {
  const before = { job_level: 'Senior', department: 'finance', region: 'eu', badge: 7 };
  const after = { job_level: 'Manager', region: 'eu', badge: 7, location: 'Paris' };
  return planChanges(
    desired({ tenants: [aTenant('acme')], users: [aUser('bob', { tenants: ['acme'], attributes: after })] }),
    live({ tenants: [aTenant('acme')], users: [aUser('bob', { tenants: ['acme'], attributes: before })] }),
    OPTIONS,
  );
}

function setPlan(edit: (s: DesiredConditionSet) => DesiredConditionSet) {
  const d = emptyDesiredState();
  d.sections = new Set(['resource_sets']);
  const l = emptyLiveState();
  l.conditionSets.set('small', small(8000));
  d.conditionSets.set('small', edit(small(8000)));
  return planChanges(d, l, OPTIONS);
}

describe('attribute and condition changes, key by key', () => {
  it('a user\u2019s attributes: one line per changed key, added +, removed -, in text and Markdown', () => {
    const plan = userPlan();
    const text = renderPlanText(plan);
    expect(text).toContain(
      [
        '  ~ user:bob',
        '      -attributes.department: "finance"',
        '      attributes.job_level: "Senior" → "Manager"',
        '      +attributes.location: "Paris"',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('badge');
    expect(renderPlanMarkdown(plan)).toContain(
      '| ~ | `user:bob` | -attributes.department: "finance"; attributes.job_level: "Senior" → "Manager"; +attributes.location: "Paris" |',
    );
  });

  it('a condition set\u2019s conditions: the changed leaf by what it tests, not the whole tree', () => {
    const plan = setPlan((s) => ({
      ...s,
      conditions: {
        allOf: [
          {
            allOf: [
              { 'resource.category': { equals: 'travel' } },
              { 'resource.expense_amount': { 'less-than': 3000 } },
            ],
          },
        ],
      },
    }));
    expect(renderPlanText(plan)).toContain(
      '  ~ condition_set:small\n      conditions: resource.expense_amount less-than: 8000 → 3000\n',
    );
    expect(renderPlanMarkdown(plan)).toContain(
      '| ~ | `condition_set:small` | conditions: resource.expense_amount less-than: 8000 → 3000 |',
    );
  });

  it('leaves added and removed, and where they sit under anyOf and not', () => {
    const lines = fieldLines({
      field: 'conditions',
      before: { anyOf: [{ 'user.level': { 'greater-than': 3 } }, { not: { 'user.dept': { equals: 'sales' } } }] },
      after: {
        anyOf: [
          { allOf: [{ 'user.level': { 'greater-than': 3 } }, { 'user.region': { in: ['eu'] } }] },
          { not: { 'user.dept': { equals: 'legal' } } },
        ],
      },
    });
    expect(lines).toEqual([
      'conditions: anyOf[1] › not › user.dept equals: "sales" → "legal"',
      'conditions: +anyOf[0] › user.region in: ["eu"]',
    ]);
    expect(fieldLines({ field: 'conditions', before: { 'user.level': { equals: 1 } }, after: {} })).toEqual([
      'conditions: -user.level equals: 1',
    ]);
  });

  it('a value of no known shape is shown whole, as before', () => {
    expect(fieldLines({ field: 'conditions', before: { 'user.a': 1, 'user.b': 2 }, after: {} })).toEqual([
      'conditions: {"user.a":1,"user.b":2} → {}',
    ]);
    expect(fieldLines({ field: 'name', before: 'a', after: 'b' })).toEqual(['name: "a" → "b"']);
  });

  it('the plan\u2019s JSON keeps the whole values before and after (what the checksum covers)', () => {
    const json = JSON.parse(renderPlanJson(userPlan()));
    expect(json.changes[0].fields).toEqual([
      {
        field: 'attributes',
        before: { job_level: 'Senior', department: 'finance', region: 'eu', badge: 7 },
        after: { job_level: 'Manager', region: 'eu', badge: 7, location: 'Paris' },
      },
    ]);
    const set = JSON.parse(renderPlanJson(setPlan((s) => ({ ...s, conditions: {} })))).changes[0];
    expect(set.fields).toEqual([{ field: 'conditions', before: small(8000).conditions, after: {} }]);
  });
});
