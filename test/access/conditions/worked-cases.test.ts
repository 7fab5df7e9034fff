import { describe, expect, it } from 'vitest';
import { autogenSets, decideAbac, setMatches, type AbacModel } from '../../../src/access/conditions/index.js';
import { aCheck, aModel, cond, rule } from './builders.js';

/**
 * The worked cases of ../shared/spec/abac-facts.md §10 that ABAC decides (the numbers are the table's).
 * RBAC-only cases (1, 3, 26), creation-time refusals (11), writes (27-29) and /user-permissions (30) are
 * in test/server/abac-*.test.ts over HTTP.
 */

// S1: users_over_thirty × document:sign × private_docs.
const S1_SETS = [
  {
    key: 'users_over_thirty',
    type: 'userset' as const,
    conditions: { allOf: [{ allOf: [{ 'user.age': { 'greater-than': 30 } }] }] },
  },
  {
    key: 'private_docs',
    type: 'resourceset' as const,
    resource: 'document',
    conditions: { allOf: [{ allOf: [{ 'resource.private': { equals: false } }] }] },
  },
];
const S1 = aModel(S1_SETS, [rule('users_over_thirty', 'document:sign', 'private_docs')]);
const S1_NO_RULE = aModel(S1_SETS, []);
const A = { attributes: { age: 35 }, key: 'A', rolesInTenant: ['admin'], tenants: ['tesla'] };
const B = { attributes: { age: 27 }, key: 'B', rolesInTenant: ['admin'], tenants: ['tesla'] };
const tesla = { key: 'tesla', member: true };
const defined = { user: ['age'], resource: ['private'], tenant: [] };
const sign = { type: 'document', action: 'sign' };

// S2: clearance = top_secret × doc:read × confidential docs.
const S2 = aModel(
  [
    { key: 'cleared', type: 'userset', conditions: { allOf: [{ 'user.clearance': { equals: 'top_secret' } }] } },
    {
      key: 'confidential',
      type: 'resourceset',
      resource: 'doc',
      conditions: { allOf: [{ 'resource.confidential': { equals: true } }] },
    },
  ],
  [rule('cleared', 'doc:read', 'confidential')],
);

const allow = (m: AbacModel, check: { type: string; action: string }, bags: ReturnType<typeof aCheck>) =>
  decideAbac(m, check, bags).allow;

describe('abac-facts §10 worked cases (ABAC part)', () => {
  it.each([
    [
      '#2 before the rule, A sign',
      S1_NO_RULE,
      aCheck({ user: A, tenant: tesla, passed: { private: false }, defined }),
      false,
    ],
    [
      '#4 A sign, private false passed',
      S1,
      aCheck({ user: A, tenant: tesla, passed: { private: false }, defined }),
      true,
    ],
    ['#5 B (27) same', S1, aCheck({ user: B, tenant: tesla, passed: { private: false }, defined }), false],
    ['#6 A sign, private true', S1, aCheck({ user: A, tenant: tesla, passed: { private: true }, defined }), false],
    ['#7 no attributes and no stored instance', S1, aCheck({ user: A, tenant: tesla, defined }), false],
    [
      '#8 passed age 20 beats stored 35',
      S1,
      aCheck({ user: { ...A, passed: { age: 20 } }, tenant: tesla, passed: { private: false }, defined }),
      false,
    ],
    [
      '#12 stored instance attributes used',
      S1,
      aCheck({ user: A, tenant: tesla, instance: { private: false }, defined }),
      true,
    ],
    [
      '#13 passed beats stored',
      S1,
      aCheck({ user: A, tenant: tesla, instance: { private: false }, passed: { private: true }, defined }),
      false,
    ],
  ])('%s', (_, model, bags, expected) => {
    expect(allow(model, sign, bags)).toBe(expected);
  });

  it('#9/#10 S2: a stored attribute allows without any role or tenant; another value does not', () => {
    const check = (clearance: string) =>
      aCheck({ user: { attributes: { clearance } }, type: 'doc', passed: { confidential: true } });
    expect(allow(S2, { type: 'doc', action: 'read' }, check('top_secret'))).toBe(true);
    expect(allow(S2, { type: 'doc', action: 'read' }, check('public'))).toBe(false);
  });

  it('#14/#15 a reference across entities; a resource set never applies to another type', () => {
    const m = aModel(
      [
        { key: 'anyone', type: 'userset', conditions: {} },
        {
          key: 'small',
          type: 'resourceset',
          resource: 'expense',
          conditions: {
            allOf: [{ 'resource.expense_amount': { 'less-than-equals': { ref: 'user.spending_limit' } } }],
          },
        },
      ],
      [rule('anyone', 'expense:approve', 'small'), rule('anyone', 'invoice:submit', 'small')],
    );
    const at = (type: string, amount: number) =>
      aCheck({ user: { attributes: { spending_limit: 100 } }, type, passed: { expense_amount: amount } });
    expect(allow(m, { type: 'expense', action: 'approve' }, at('expense', 80))).toBe(true);
    expect(allow(m, { type: 'expense', action: 'approve' }, at('expense', 120))).toBe(false);
    expect(allow(m, { type: 'invoice', action: 'submit' }, at('invoice', 80))).toBe(false);
  });

  const userSet = (conditions: unknown) => aModel([{ key: 'us', type: 'userset', conditions }], []);
  const inSet = (conditions: unknown, bags: ReturnType<typeof aCheck>) => setMatches(userSet(conditions), 'us', bags);

  it.each([
    [
      '#16 contains',
      { 'user.email': { contains: '@admin' } },
      { stored: { email: 'bob@admin.io' } },
      { stored: { email: 'bob@x.io' } },
    ],
    [
      '#20 array_intersect',
      { 'user.groups': { array_intersect: ['a', 'b'] } },
      { attributes: { groups: ['b', 'c'] } },
      { attributes: { groups: ['c'] } },
    ],
    [
      '#21 array_subset',
      { 'user.groups': { array_subset: ['a', 'b', 'c'] } },
      { attributes: { groups: ['a', 'b'] } },
      { attributes: { groups: ['a', 'd'] } },
    ],
  ])('%s: match / no match', (_, conditions, yes, no) => {
    expect(inSet(conditions, aCheck({ user: yes as never }))).toBe(true);
    expect(inSet(conditions, aCheck({ user: no as never }))).toBe(false);
  });

  it("#17 user.roles are the roles in the check's tenant", () => {
    const c = { 'user.roles': { array_contains: 'admin' } };
    expect(inSet(c, aCheck({ user: { rolesInTenant: ['admin'] }, tenant: { key: 't1', member: true } }))).toBe(true);
    expect(inSet(c, aCheck({ user: { rolesInTenant: [] }, tenant: { key: 't2' } }))).toBe(false);
  });

  it('#18 roles (a set) never equal a string, nor an array', () => {
    expect(inSet({ 'user.roles': { equals: 'admin' } }, aCheck({ user: { rolesInTenant: ['admin'] } }))).toBe(false);
    expect(inSet({ 'user.roles': { equals: ['admin'] } }, aCheck({ user: { rolesInTenant: ['admin'] } }))).toBe(false);
  });

  it('#19 not-equals on a missing attribute is false', () => {
    expect(
      inSet(
        { 'user.dept': { 'not-equals': 'sales' } },
        aCheck({ user: { attributes: {} }, defined: { user: ['dept'] } }),
      ),
    ).toBe(false);
    expect(inSet({ 'user.dept': { 'not-equals': 'sales' } }, aCheck({ user: { attributes: { dept: 'legal' } } }))).toBe(
      true,
    );
  });

  it('#22 array_contains with a reference to a user attribute', () => {
    const m = aModel(
      [
        {
          key: 'rs',
          type: 'resourceset',
          resource: 'document',
          conditions: { 'resource.allowed_roles': { array_contains: { ref: 'user.role' } } },
        },
      ],
      [],
    );
    expect(
      setMatches(
        m,
        'rs',
        aCheck({ user: { attributes: { role: 'editor' } }, passed: { allowed_roles: ['admin', 'editor'] } }),
      ),
    ).toBe(true);
    expect(
      setMatches(
        m,
        'rs',
        aCheck({ user: { attributes: { role: 'viewer' } }, passed: { allowed_roles: ['admin', 'editor'] } }),
      ),
    ).toBe(false);
  });

  it('#23 stored tenant attributes only for a user with a role in the tenant', () => {
    const c = { 'tenant.tier': { equals: 'gold' } };
    expect(inSet(c, aCheck({ tenant: { key: 't1', stored: { tier: 'gold' }, member: true } }))).toBe(true);
    expect(inSet(c, aCheck({ tenant: { key: 't1', stored: { tier: 'gold' }, member: false } }))).toBe(false);
  });

  it("#24 a role × resource set rule (is_role): the role in the check's tenant and the owner reference", () => {
    const m: AbacModel = {
      sets: new Map([
        ...autogenSets(['admin'], ['task']).map((s) => [s.key, s] as const),
        [
          'own_task',
          {
            key: 'own_task',
            type: 'resourceset',
            resource: 'task',
            conditions: cond({ 'resource.owner': { equals: { ref: 'user.key' } } }),
          },
        ],
      ]),
      rules: [rule('__autogen_admin', 'task:update', 'own_task')],
    };
    const update = { type: 'task', action: 'update' };
    const u1 = (roles: string[], owner: string) =>
      aCheck({ user: { key: 'u1', rolesInTenant: roles }, type: 'task', passed: { owner } });
    expect(allow(m, update, u1(['admin'], 'u1'))).toBe(true);
    expect(allow(m, update, u1(['admin'], 'u2'))).toBe(false);
    expect(allow(m, update, u1([], 'u1'))).toBe(false);
  });

  it('#25 one matching pair with a rule suffices', () => {
    const m = aModel(
      [
        { key: 'a', type: 'userset', conditions: { 'user.x': { equals: 1 } } },
        { key: 'b', type: 'userset', conditions: { 'user.y': { equals: 1 } } },
        { key: 'all_docs', type: 'resourceset', resource: 'document', conditions: {} },
      ],
      [rule('b', 'document:read', 'all_docs')],
    );
    const r = decideAbac(m, { type: 'document', action: 'read' }, aCheck({ user: { attributes: { x: 1, y: 1 } } }));
    expect(r).toEqual({ allow: true, rule: rule('b', 'document:read', 'all_docs') });
  });
});
