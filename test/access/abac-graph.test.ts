/** The access graph's attribute-based access (src/access/abac/graph.ts) on constructed states: table-driven. Pure. */
import { describe, expect, it } from 'vitest';
import { abacFromState, buildAccessGraph, decideAbacIn } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import type { LiveState } from '../../src/types/live.js';
import { abacState, type AbacStateInput } from './abac-state.js';

const graphOf = (s: LiveState) => buildAccessGraph(factsFromState(s));

/** The expense-approval policy of the permit-cli template: approval limits by level and amount. */
const expenses = (over: Partial<AbacStateInput> = {}): AbacStateInput => ({
  resources: { expense: ['approve', 'read'] },
  resourceAttributes: { expense: ['amount'] },
  userAttributes: ['level', 'limit'],
  tenants: { t0: {}, t1: {} },
  users: { alice: { attributes: { level: 3, limit: 800 } }, bob: { attributes: { level: 1, limit: 5000 } } },
  instances: {
    'expense:e1': { tenant: 't0', attributes: { amount: 500 } },
    'expense:e2': { tenant: 't0', attributes: { amount: 5000 } },
  },
  sets: [
    { key: 'senior', conditions: { 'user.level': { 'greater-than-equals': 2 } } },
    { key: 'small', resource: 'expense', conditions: { 'resource.amount': { 'less-than': 1000 } } },
  ],
  rules: [['senior', 'expense:approve', 'small']],
  ...over,
});

describe('the graph decides set rules', () => {
  const cases: {
    name: string;
    state: AbacStateInput;
    user: string;
    action: string;
    instance: string;
    allowed: boolean;
    rules?: string[];
  }[] = [
    {
      name: 'a senior approver on a small expense',
      state: expenses(),
      user: 'alice',
      action: 'approve',
      instance: 'expense:e1',
      allowed: true,
      rules: ['senior_can_expense_approve_small'],
    },
    {
      name: 'not on a large one',
      state: expenses(),
      user: 'alice',
      action: 'approve',
      instance: 'expense:e2',
      allowed: false,
    },
    { name: 'not a junior', state: expenses(), user: 'bob', action: 'approve', instance: 'expense:e1', allowed: false },
    {
      name: 'not another action',
      state: expenses(),
      user: 'alice',
      action: 'read',
      instance: 'expense:e1',
      allowed: false,
    },
    {
      name: 'a user the state does not know is in no set reading an attribute',
      state: expenses(),
      user: 'nobody',
      action: 'approve',
      instance: 'expense:e1',
      allowed: false,
    },
    {
      name: "a reference across sides: the amount under the user's own limit (per pair)",
      state: expenses({
        sets: [
          { key: 'all', conditions: {} },
          {
            key: 'within',
            resource: 'expense',
            conditions: { 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } },
          },
        ],
        rules: [['all', 'expense:approve', 'within']],
      }),
      user: 'bob',
      action: 'approve',
      instance: 'expense:e2',
      allowed: true,
    },
    {
      name: 'the same reference denies above the limit',
      state: expenses({
        sets: [
          { key: 'all', conditions: {} },
          {
            key: 'within',
            resource: 'expense',
            conditions: { 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } },
          },
        ],
        rules: [['all', 'expense:approve', 'within']],
      }),
      user: 'alice',
      action: 'approve',
      instance: 'expense:e2',
      allowed: false,
    },
    {
      name: 'a rule on a role (__autogen_) holds in the tenant where the role is held',
      state: expenses({
        roles: { admin: [] },
        users: { carol: { roles: [{ role: 'admin', tenant: 't0' }] } },
        rules: [['__autogen_admin', 'expense:read', '__autogen_expense']],
      }),
      user: 'carol',
      action: 'read',
      instance: 'expense:e1',
      allowed: true,
      rules: ['__autogen_admin_can_expense_read___autogen_expense'],
    },
    {
      name: 'and not on an instance of another tenant',
      state: expenses({
        roles: { admin: [] },
        users: { carol: { roles: [{ role: 'admin', tenant: 't1' }] } },
        rules: [['__autogen_admin', 'expense:read', '__autogen_expense']],
      }),
      user: 'carol',
      action: 'read',
      instance: 'expense:e1',
      allowed: false,
    },
    {
      name: "a child set applies its parent's conditions too",
      state: expenses({
        sets: [
          { key: 'senior', conditions: { 'user.level': { 'greater-than-equals': 2 } } },
          { key: 'rich', parent: 'senior', conditions: { 'user.limit': { 'greater-than': 1000 } } },
          { key: 'small', resource: 'expense', conditions: {} },
        ],
        rules: [['rich', 'expense:approve', 'small']],
      }),
      user: 'bob',
      action: 'approve',
      instance: 'expense:e1',
      allowed: false,
    },
    {
      name: 'tenant attributes are seen by a member of a group in the tenant (a membership is an assignment there)',
      state: expenses({
        tenantAttributes: ['region'],
        tenants: { t0: { region: 'eu' } },
        users: { dave: {} },
        groups: { 'team:g': { tenant: 't0', members: ['dave'] } },
        sets: [
          { key: 'eu', conditions: { 'tenant.region': { equals: 'eu' } } },
          { key: 'any', resource: 'expense', conditions: {} },
        ],
        rules: [['eu', 'expense:read', 'any']],
      }),
      user: 'dave',
      action: 'read',
      instance: 'expense:e1',
      allowed: true,
    },
    {
      name: 'a stored value without a definition does not count',
      state: expenses({
        users: { erin: { attributes: { level: 3, secret: 'x' } } },
        sets: [
          { key: 's', conditions: { 'user.secret': { equals: 'x' } } },
          { key: 'small', resource: 'expense', conditions: {} },
        ],
        rules: [['s', 'expense:approve', 'small']],
      }),
      user: 'erin',
      action: 'approve',
      instance: 'expense:e1',
      allowed: false,
    },
    {
      name: 'a stored value under a built-in key counts (roles overrides the generated roles)',
      state: expenses({
        users: { erin: { attributes: { roles: ['approver'] } } },
        sets: [
          { key: 's', conditions: { 'user.roles': { array_contains: 'approver' } } },
          { key: 'small', resource: 'expense', conditions: {} },
        ],
        rules: [['s', 'expense:approve', 'small']],
      }),
      user: 'erin',
      action: 'approve',
      instance: 'expense:e1',
      allowed: true,
    },
    {
      name: 'a condition on the context is decided as a check passing none decides it (missing: false, so not-equals fails, not holds)',
      state: expenses({
        sets: [
          { key: 'senior', conditions: { not: { 'context.c': { equals: 1 } } } },
          { key: 'small', resource: 'expense', conditions: {} },
        ],
      }),
      user: 'bob',
      action: 'approve',
      instance: 'expense:e1',
      allowed: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const state = abacState(c.state);
      const graph = graphOf(state);
      const d = graph.can(c.user, c.action, c.instance);
      expect(d.allowed).toBe(c.allowed);
      if (c.rules) expect(d.rules?.map((r) => r.rule)).toEqual(c.rules);
      // The graph and the seam every other reader uses (check, explain) decide alike.
      const [type, key] = c.instance.split(':');
      expect(
        decideAbacIn(state, abacFromState(state), {
          user: c.user,
          action: c.action,
          type,
          key,
          tenant: graph.tenantOf(c.instance) ?? undefined,
        }).allow,
      ).toBe(c.allowed);
    });
  }

  it('a rule depending on the context is marked, three-valued: depends, allowed or not when none is passed', () => {
    const graph = graphOf(
      abacState(
        expenses({
          sets: [
            {
              key: 'senior',
              conditions: { anyOf: [{ 'context.c': { equals: 1 } }, { 'user.level': { 'greater-than': 2 } }] },
            },
            { key: 'small', resource: 'expense', conditions: {} },
          ],
        }),
      ),
    );
    const abac = graph.abac!;
    expect(abac.rules.map((r) => r.context)).toEqual([['context.c']]);
    expect(abac.permissionStatus('alice', 'expense:approve', 'expense:e1')).toBe(1); // level 3 holds whatever the context
    expect(abac.permissionStatus('bob', 'expense:approve', 'expense:e1')).toBe(2); // depends; denied without a context
  });

  it('sets are classified by what they read: per user, per (user, tenant), per instance, per pair', () => {
    const state = abacState(
      expenses({
        tenantAttributes: ['region'],
        sets: [
          { key: 'u', conditions: { 'user.level': { equals: 1 } } },
          { key: 'ut', conditions: { 'user.roles': { array_contains: 'x' } } },
          { key: 'r', resource: 'expense', conditions: { 'resource.amount': { equals: 1 } } },
          { key: 'rt', resource: 'expense', conditions: { 'tenant.region': { equals: 'eu' } } },
          { key: 'cross', resource: 'expense', conditions: { 'resource.amount': { equals: { ref: 'user.limit' } } } },
        ],
        rules: [
          ['u', 'expense:read', 'r'],
          ['ut', 'expense:read', 'rt'],
          ['u', 'expense:read', 'cross'],
        ],
      }),
    );
    const abac = graphOf(state).abac!;
    expect(['u', 'ut', 'r', 'rt', 'cross'].map((k) => [k, abac.set(k)!.cross, abac.set(k)!.tenantDependent])).toEqual([
      ['u', false, false],
      ['ut', false, true],
      ['r', false, false],
      ['rt', false, true],
      ['cross', true, false],
    ]);
  });

  it('usersWith a permission includes the users a set rule allows', () => {
    expect(graphOf(abacState(expenses())).usersWith('expense:approve', 'expense:e1')).toEqual(['alice']);
  });

  it('users with equal attributes share one evaluation of a set', () => {
    const users = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`u${i}`, { attributes: { level: i % 2 } }]));
    const abac = graphOf(abacState(expenses({ users }))).abac!;
    const set = abac.set('senior')!;
    for (const u of Object.keys(users)) abac.userStatus(set, u, 't0');
    expect(new Set(Object.keys(users).map((u) => abac.userKey(u, 't0'))).size).toBe(2);
  });
});
