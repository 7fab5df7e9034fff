/**
 * `explain` through set rules (src/access/abac/explain.ts): the rule that allows with the conditions that
 * matched, or per rule the condition that failed (ancestors included), and what is not decided offline.
 */
import { describe, expect, it } from 'vitest';
import { abacFromState, decideAbacIn, type AbacCheck } from '../../src/access/abac/model.js';
import { abacLines, explainAbac, joinAbac, checkOn, type AbacExplanation } from '../../src/access/abac/explain.js';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { renderExplanation } from '../../src/cli/render-explain.js';
import { abacState, EXPENSES } from './abac-builders.js';

const state = abacState({
  ...EXPENSES,
  users: { ...EXPENSES.users, erin: { attributes: { level: 1, region: 'eu' } } },
});
const view = abacFromState(state);
const explain = (user: string, instance: string, passed?: AbacCheck['passed'], action = 'approve') =>
  explainAbac(state, view, checkOn(state, user, `expense:${action}`, instance, passed));
const outcomes = (x: AbacExplanation) => Object.fromEntries(x.rules.map((r) => [r.name, r.outcome]));

describe('explainAbac', () => {
  it.each([
    { user: 'alice', on: 'expense:small', outcome: 'allowed', rule: 'approvers can expense:approve on small-expenses' },
    { user: 'bob', on: 'expense:small', outcome: 'denied' },
    { user: 'erin', on: 'expense:small', outcome: 'denied' },
    { user: 'carol', on: 'expense:small', outcome: 'undecided' },
    {
      user: 'carol',
      on: 'expense:small',
      passed: { context: { urgent: true } },
      outcome: 'allowed',
      rule: '__autogen_manager can expense:approve on urgent',
    },
    { user: 'dave', on: 'expense:small', passed: {}, outcome: 'denied' },
    // The instance stores no amount: the comparison on it is false, as /allowed decides it.
    { user: 'alice', on: 'expense:blank', outcome: 'denied' },
    { user: 'alice', on: 'expense:big', outcome: 'denied' },
    { user: 'carol', on: 'expense:big', passed: { context: { urgent: false } }, outcome: 'denied' },
    {
      user: 'bob',
      on: 'expense:big',
      passed: { user: { level: 5, region: 'eu', limit: 10000 } },
      outcome: 'allowed',
      rule: 'senior-eu can expense:approve on within-limit',
    },
  ])('$user approve $on with $passed: $outcome', ({ user, on, passed, outcome, rule }) => {
    const x = explain(user, on, passed as AbacCheck['passed']);
    expect(x.outcome).toBe(outcome);
    expect(x.exact).toBe(passed !== undefined);
    if (rule) expect(x.rules.find((r) => r.outcome === 'holds')?.name).toBe(rule);
    // Decided exactly (attributes passed), the explanation agrees with the decision /allowed makes.
    if (passed !== undefined)
      expect(
        decideAbacIn(state, view, checkOn(state, user, 'expense:approve', on, passed as AbacCheck['passed'])).allow,
      ).toBe(outcome === 'allowed');
  });

  it('an allowed check names the rule and the conditions that matched, with the values and where they came from', () => {
    const x = explain('alice', 'expense:small');
    const r = x.rules.find((t) => t.outcome === 'holds')!;
    expect(r.user.chain[0].leaves).toEqual([
      {
        attribute: 'user.level',
        operator: 'greater-than-equals',
        value: { literal: 3 },
        actual: 4,
        source: 'stored',
        outcome: 'holds',
        path: 'conditions.allOf[0]["user.level"]',
      },
    ]);
    expect(abacLines({ ...x, rules: [r] })).toEqual([
      'user set approvers × resource set small-expenses (rule: approvers can expense:approve on small-expenses)',
      '  user set approvers: user.level greater-than-equals 3 (user.level = 4, stored)',
      '  resource set small-expenses: resource.amount less-than 1000 (resource.amount = 500, stored)',
    ]);
  });

  it("a denial names, per rule, the condition that failed, an ancestor's included", () => {
    const x = explain('erin', 'expense:small');
    expect(outcomes(x)).toEqual({
      'approvers can expense:approve on small-expenses': 'fails',
      'senior-eu can expense:approve on within-limit': 'fails',
      '__autogen_manager can expense:approve on urgent': 'fails',
    });
    const senior = x.rules.find((r) => r.rule.userSet === 'senior-eu')!.user;
    expect(senior.chain.map((c) => [c.set, c.outcome])).toEqual([
      ['senior-eu', 'holds'],
      ['approvers', 'fails'],
    ]);
    // Rules in key order (the service's rule keys), as decideAbac walks them.
    expect(abacLines(x)).toEqual([
      'role manager × resource set urgent (rule: __autogen_manager can expense:approve on urgent): fails',
      '  role manager: user.roles array_contains "manager" (user.roles = [], generated)',
      'user set approvers × resource set small-expenses (rule: approvers can expense:approve on small-expenses): fails',
      '  user set approvers: user.level greater-than-equals 3 (user.level = 1, stored)',
      'user set senior-eu × resource set within-limit (rule: senior-eu can expense:approve on within-limit): fails',
      "  user set senior-eu's ancestor approvers: user.level greater-than-equals 3 (user.level = 1, stored)",
      '  resource set within-limit: resource.amount less-than-equals user.limit (resource.amount = 500, stored; user.limit missing)',
    ]);
    // erin stores no limit: a stored attribute missing is not waited for, its comparison is false.
    expect(x.rules.find((r) => r.rule.userSet === 'senior-eu')!.resource.outcome).toBe('fails');
  });

  it('without passed attributes, a rule waiting for context is not decided offline, and says on what; a missing stored attribute fails', () => {
    const x = explain('carol', 'expense:small');
    expect(x.rules.map((r) => [r.outcome, r.dependsOn])).toEqual([
      ['unknown', ['context.urgent']],
      ['fails', []],
      ['fails', []],
    ]);
    expect(abacLines(x)[0]).toBe(
      'role manager × resource set urgent (rule: __autogen_manager can expense:approve on urgent): not decided offline: depends on context.urgent',
    );
    // carol stores no level: the comparison on it is false, named as the failing condition.
    expect(abacLines(x)).toContain('  user set approvers: user.level greater-than-equals 3 (user.level missing)');
    // An attribute the instance does not store does not wait either (alice is no manager: that rule is decided).
    const blank = explain('alice', 'expense:blank');
    expect(blank.rules.map((r) => [r.outcome, r.dependsOn])).toEqual([
      ['fails', []],
      ['fails', []],
      ['fails', []],
    ]);
    expect(abacLines(blank)).toContain(
      '  resource set small-expenses: resource.amount less-than 1000 (resource.amount missing)',
    );
  });

  it('a failing condition decides a rule even when the other side waits for attributes', () => {
    // bob is no manager: the urgent rule fails whatever the context says.
    expect(outcomes(explain('bob', 'expense:small'))['__autogen_manager can expense:approve on urgent']).toBe('fails');
  });

  it('passed attributes are used, and win over stored ones', () => {
    const x = explain('bob', 'expense:big', { user: { level: 5, region: 'eu', limit: 10000 } });
    const r = x.rules.find((t) => t.outcome === 'holds')!;
    expect(r.resource.chain[0].leaves[0]).toMatchObject({
      actual: 5000,
      source: 'stored',
      value: { ref: 'user.limit', resolved: 10000, source: 'passed' },
    });
    expect(r.user.chain.flatMap((c) => c.leaves.map((l) => [l.attribute, l.actual, l.source]))).toEqual([
      ['user.region', 'eu', 'passed'],
      ['user.level', 5, 'passed'],
    ]);
  });

  it('not, anyOf and a missing stored attribute under not: context unknown offline, the missing attribute false, decided with attributes', () => {
    const s = abacState({
      resources: { doc: { actions: ['read'], attributes: { secret: 'bool' } } },
      userAttributes: { clearance: 'number', banned: 'bool' },
      users: { u: { attributes: { clearance: 1 } } },
      instances: { 'doc:a': { attributes: { secret: true } } },
      userSets: {
        ok: {
          conditions: {
            allOf: [
              { not: { 'user.banned': { equals: true } } },
              { anyOf: [{ 'user.clearance': { 'greater-than': 2 } }, { 'context.override': { equals: true } }] },
            ],
          },
        },
      },
      resourceSets: { docs: { resource: 'doc', conditions: {} } },
      rules: ['ok doc:read docs'],
    });
    const v = abacFromState(s);
    const x = (passed?: AbacCheck['passed']) => explainAbac(s, v, checkOn(s, 'u', 'doc:read', 'doc:a', passed));
    expect(x().outcome).toBe('undecided');
    // user.banned is not stored: false, so `not` over it holds; only context.override waits.
    expect(x().rules[0].dependsOn).toEqual(['context.override']);
    expect(x({ user: { banned: true } }).outcome).toBe('denied');
    expect(x({ context: { override: true } }).outcome).toBe('allowed');
    expect(x({ user: { banned: true }, context: { override: true } }).outcome).toBe('denied');
    expect(x({ user: { clearance: 3 } }).outcome).toBe('allowed');
    // The resource set with no conditions matches every instance of its type.
    expect(x({ user: { clearance: 3 } }).rules[0].resource.chain[0]).toEqual({
      set: 'docs',
      outcome: 'holds',
      leaves: [],
    });
  });

  it('no rule grants the action: denied with no rules', () => {
    expect(explain('alice', 'expense:small', undefined, 'read')).toMatchObject({ outcome: 'denied', rules: [] });
  });

  it("user.roles is read in the instance's tenant", () => {
    const s = abacState({
      ...EXPENSES,
      tenants: { acme: {} },
      users: { carol: { roles: ['manager@acme'] } },
      instances: { 'expense:a': { tenant: 'acme' }, 'expense:d': {} },
    });
    const v = abacFromState(s);
    const ctx = { context: { urgent: true } };
    expect(explainAbac(s, v, checkOn(s, 'carol', 'expense:approve', 'expense:a', ctx)).outcome).toBe('allowed');
    expect(explainAbac(s, v, checkOn(s, 'carol', 'expense:approve', 'expense:d', ctx)).outcome).toBe('denied');
  });
});

describe('joinAbac', () => {
  const graph = buildAccessGraph(factsFromState(state));
  it("joins the rules into the graph's explanation: allowed by a rule, undecided, denied", () => {
    const allowed = joinAbac(graph.explain('alice', 'approve', 'expense:small'), state, view);
    expect(allowed).toMatchObject({ allowed: true, via: [], abac: { outcome: 'allowed' } });
    expect(allowed.missing).toBeUndefined();
    const undecided = joinAbac(graph.explain('carol', 'approve', 'expense:small'), state, view);
    expect(undecided).toMatchObject({ allowed: false, undecided: true });
    const denied = joinAbac(graph.explain('bob', 'approve', 'expense:small'), state, view);
    expect(denied.allowed).toBe(false);
    expect(denied.undecided).toBeUndefined();
    expect(denied.missing?.message).toBe('No role has expense:approve: only set rules grant it (below).');
  });
  it('the graph counts rules for a check passing nothing; with attributes, or undecided offline, the rules are decided here', () => {
    expect(graph.can('alice', 'approve', 'expense:small').allowed).toBe(true);
    const lower = joinAbac(graph.explain('alice', 'approve', 'expense:small'), state, view, { user: { level: 1 } });
    expect(lower).toMatchObject({ allowed: false, abac: { outcome: 'denied', exact: true } });
    expect(lower.undecided).toBeUndefined();
    // `not` over the context: the graph allows (missing), offline it waits for the context.
    const notOn = (attribute: string) =>
      abacState({
        resources: { doc: { actions: ['read'] } },
        userAttributes: { banned: 'bool' },
        users: { u: {} },
        instances: { 'doc:a': {} },
        userSets: { 'not-banned': { conditions: { not: { [attribute]: { equals: true } } } } },
        resourceSets: { docs: { resource: 'doc', conditions: {} } },
        rules: ['not-banned doc:read docs'],
      });
    const s = notOn('context.banned');
    const g = buildAccessGraph(factsFromState(s));
    expect(g.can('u', 'read', 'doc:a').allowed).toBe(true);
    expect(joinAbac(g.explain('u', 'read', 'doc:a'), s, abacFromState(s))).toMatchObject({
      allowed: false,
      undecided: true,
      abac: { rules: [{ dependsOn: ['context.banned'] }] },
    });
    expect(joinAbac(g.explain('u', 'read', 'doc:a'), s, abacFromState(s), {})).toMatchObject({ allowed: true });
    // `not` over a stored attribute u lacks: false, so the rule holds, offline as in the graph.
    const t = notOn('user.banned');
    const h = buildAccessGraph(factsFromState(t));
    expect(h.can('u', 'read', 'doc:a').allowed).toBe(true);
    const joined = joinAbac(h.explain('u', 'read', 'doc:a'), t, abacFromState(t));
    expect(joined).toMatchObject({ allowed: true, abac: { outcome: 'allowed', exact: false } });
    expect(joined.undecided).toBeUndefined();
  });

  it('a role explanation and a permission no rule grants are left as they are', () => {
    const e = graph.explain('carol', 'manager', 'expense:small');
    expect(joinAbac(e, state, view)).toBe(e);
    const read = graph.explain('alice', 'read', 'expense:small');
    expect(joinAbac(read, state, view)).toBe(read);
  });
});

describe('explain text', () => {
  const s = abacState(EXPENSES);
  const v = abacFromState(s);
  const g = buildAccessGraph(factsFromState(s));
  const text = (user: string, instance: string, passed?: AbacCheck['passed']) =>
    renderExplanation(joinAbac(g.explain(user, 'approve', instance), s, v, passed));

  it('allowed through a rule: the path through the sets, the conditions that matched, where the values came from', () => {
    expect(text('carol', 'expense:small', { context: { urgent: true } })).toBe(
      [
        'carol can expense:approve on expense:small',
        '1 path:',
        '  role manager × resource set urgent (rule: __autogen_manager can expense:approve on urgent)',
        '    role manager: user.roles array_contains "manager" (user.roles = ["manager"], generated)',
        '    resource set urgent: context.urgent equals true (context.urgent = true, passed)',
        '',
      ].join('\n'),
    );
    expect(text('alice', 'expense:small')).toContain(
      '    resource set within-limit: resource.amount less-than-equals user.limit (resource.amount = 500, stored; user.limit = 1000, stored)',
    );
  });

  it('not decided offline: says so first, then on what each rule waits', () => {
    expect(text('carol', 'expense:small').split('\n').slice(0, 4)).toEqual([
      'carol may or may not expense:approve on expense:small: not decided offline',
      '  No role has expense:approve: only set rules grant it (below).',
      '  Set rules granting expense:approve:',
      '    role manager × resource set urgent (rule: __autogen_manager can expense:approve on urgent): not decided offline: depends on context.urgent',
    ]);
    expect(text('bob', 'expense:small', {})).toContain(
      '  Set rules granting expense:approve (decided on the attributes given):',
    );
  });
});
