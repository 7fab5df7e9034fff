/** The access section's set-rule lines (abac-diff.ts, plan/access.ts): table-driven on constructed states. Pure. */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { diffAbac, formatAbacLine, formatAbacUndecided } from '../../src/access/abac/diff.js';
import { abacMemo } from '../../src/access/abac/graph.js';
import { diffAccess } from '../../src/access/diff.js';
import { accessMarkdownLines, accessTextLines, planAccess } from '../../src/plan/access.js';
import { planChanges } from '../../src/plan/plan.js';
import { emptyDesiredState, type DesiredState } from '../../src/types/desired.js';
import type { LiveState } from '../../src/types/live.js';
import { abacState, type AbacStateInput } from './abac-state.js';

const base = (over: Partial<AbacStateInput> = {}): AbacStateInput => ({
  resources: { expense: ['approve', 'read'] },
  resourceAttributes: { expense: ['amount'] },
  userAttributes: ['level', 'dept'],
  roles: { approver: ['expense:approve'], admin: [] },
  tenants: { t0: {} },
  users: {
    alice: { attributes: { level: 3 } },
    bob: { attributes: { level: 1 } },
    carol: { attributes: { level: 4 } },
    dave: { attributes: { level: 1 } },
  },
  instances: Object.fromEntries(
    [100, 200, 300, 5000].map((amount, i) => [`expense:e${i}`, { tenant: 't0', attributes: { amount } }]),
  ),
  sets: [
    { key: 'senior', conditions: { 'user.level': { 'greater-than-equals': 2 } } },
    { key: 'small', resource: 'expense', conditions: { 'resource.amount': { 'less-than': 1000 } } },
  ],
  rules: [['senior', 'expense:approve', 'small']],
  ...over,
});

function diff(before: AbacStateInput, after: AbacStateInput) {
  const memo = abacMemo();
  const a = buildAccessGraph(factsFromState(abacState(before)), { abacMemo: memo });
  const b = buildAccessGraph(factsFromState(abacState(after)), { abacMemo: memo });
  const d = diffAbac(a, b);
  return { ...d, text: d.lines.map(formatAbacLine), undecided: d.undecided.map(formatAbacUndecided) };
}

const withUser = (user: string, attributes: Record<string, unknown>, extra: Partial<AbacStateInput> = {}) => {
  const b = base(extra);
  return { ...b, users: { ...b.users, [user]: { ...b.users![user], attributes } } };
};

describe("the set rules' lines of the access section", () => {
  it('a user whose level rises gains the permission on every instance of the resource set, in one line naming the cause', () => {
    const d = diff(base(), withUser('bob', { level: 2 }));
    expect(d.text).toEqual([
      "+bob gains expense:approve on 3 expenses: user set senior × resource set small, after bob's level changed",
    ]);
    expect([d.users, d.gains, d.losses]).toEqual([['bob'], 3, 0]);
  });

  it('a user whose department changes loses what the set gave, and names the attribute', () => {
    const dept = base({
      sets: [
        { key: 'finance', conditions: { 'user.dept': { equals: 'finance' } } },
        { key: 'small', resource: 'expense', conditions: { 'resource.amount': { 'less-than': 1000 } } },
      ],
      rules: [['finance', 'expense:approve', 'small']],
    });
    const before = { ...dept, users: { ...dept.users, bob: { attributes: { dept: 'finance' } } } };
    const after = { ...dept, users: { ...dept.users, bob: { attributes: { dept: 'legal' } } } };
    expect(diff(before, after).text).toEqual([
      "-bob loses expense:approve on 3 expenses: user set finance × resource set small, after bob's dept changed",
    ]);
  });

  it('an instance whose amount changes: every user of the user set, one line', () => {
    const b = base();
    const after = { ...b, instances: { ...b.instances, 'expense:e3': { tenant: 't0', attributes: { amount: 50 } } } };
    expect(diff(b, after).text).toEqual([
      "+2 users gain expense:approve on expense:e3: user set senior × resource set small, after expense:e3's amount changed",
    ]);
  });

  it('a new rule: its user set × its resource set, in one line', () => {
    const b = base({ rules: [] });
    const d = diff(
      { ...b, rules: [['senior', 'expense:read', 'small']] },
      {
        ...b,
        rules: [
          ['senior', 'expense:read', 'small'],
          ['senior', 'expense:approve', 'small'],
        ],
      },
    );
    expect(d.text).toEqual([
      '+2 users gain expense:approve on 3 expenses: user set senior × resource set small, after the rule was added',
    ]);
  });

  it('a removed rule takes away what only it granted', () => {
    const d = diff(base(), base({ rules: [] }));
    expect(d.text).toEqual([
      '-2 users lose expense:approve on 3 expenses: user set senior × resource set small, after the rule was removed',
    ]);
  });

  it('a set whose conditions change: who enters and who leaves', () => {
    const after = base({
      sets: [
        { key: 'senior', conditions: { 'user.level': { 'greater-than-equals': 4 } } },
        { key: 'small', resource: 'expense', conditions: { 'resource.amount': { 'less-than': 1000 } } },
      ],
    });
    expect(diff(base(), after).text).toEqual([
      "-alice loses expense:approve on 3 expenses: user set senior × resource set small, after user set senior's conditions changed",
    ]);
  });

  it('a user who keeps the permission through a role loses nothing; through another rule, nothing either', () => {
    const role = withUser('alice', { level: 3 }, {});
    const before = {
      ...role,
      users: { ...role.users, alice: { attributes: { level: 3 }, roles: [{ role: 'approver', tenant: 't0' }] } },
    };
    const after = {
      ...before,
      users: { ...before.users, alice: { attributes: { level: 1 }, roles: [{ role: 'approver', tenant: 't0' }] } },
    };
    expect(diff(before, after).text).toEqual([]);
    const two = base({
      sets: [...base().sets!, { key: 'a', conditions: { 'user.key': { equals: 'alice' } } }],
      rules: [
        ['senior', 'expense:approve', 'small'],
        ['a', 'expense:approve', 'small'],
      ],
    });
    expect(diff(two, { ...two, users: { ...two.users, alice: { attributes: { level: 1 } } } }).text).toEqual([]);
  });

  it('a role that moves user.roles changes what a rule on the role grants (__autogen_), named as the role', () => {
    const b = base({ rules: [['__autogen_admin', 'expense:read', '__autogen_expense']] });
    const after = {
      ...b,
      users: { ...b.users, dave: { attributes: { level: 1 }, roles: [{ role: 'admin', tenant: 't0' }] } },
    };
    expect(diff(b, after).text).toEqual([
      "+dave gains expense:read on 4 expenses: role admin × every expense, after dave's roles and tenants changed",
    ]);
  });

  it('a rule whose set reads the context is not decided: listed with what it depends on', () => {
    const b = base({
      sets: [
        {
          key: 'senior',
          conditions: {
            allOf: [{ 'user.level': { 'greater-than-equals': 2 } }, { 'context.amount': { 'less-than': 1000 } }],
          },
        },
        { key: 'small', resource: 'expense', conditions: {} },
      ],
    });
    const d = diff(b, withUser('bob', { level: 2 }, { sets: b.sets }));
    expect(d.text).toEqual([]);
    expect(d.undecided).toEqual([
      '? expense:approve: user set senior × resource set small depends on context.amount: not decided offline; 1 user on 4 instances may gain or lose it',
    ]);
  });

  it('new users read "new", deleted users "deleted", not "the record of N users changed"', () => {
    const b = base();
    const more = {
      ...b,
      users: { ...b.users, eve: { attributes: { level: 5 } }, frank: { attributes: { level: 5 } } },
    };
    expect(diff(b, more).text).toEqual([
      '+2 users gain expense:approve on 3 expenses: user set senior × resource set small, after 2 new users',
    ]);
    const { alice: _, ...rest } = b.users!;
    expect(diff(b, { ...b, users: rest }).text).toEqual([
      '-alice loses expense:approve on 3 expenses: user set senior × resource set small, after deleted user alice',
    ]);
  });

  it('a deleted instance\u2019s losses are a line of their own, its cause said only there', () => {
    const b = base();
    const { 'expense:e0': _, ...rest } = b.instances!;
    const d = diff(b, { ...b, instances: rest, users: { ...b.users, alice: { attributes: { level: 1 } } } });
    expect(d.text).toEqual([
      '-2 users lose expense:approve on expense:e0: user set senior × resource set small, after deleted instance expense:e0',
      "-alice loses expense:approve on 2 expenses: user set senior × resource set small, after alice's level changed",
    ]);
    expect([d.losses, d.users]).toEqual([4, ['alice', 'carol']]);
    const added = {
      ...b,
      instances: {
        ...b.instances,
        'expense:e8': { tenant: 't0', attributes: { amount: 5 } },
        'expense:e9': { tenant: 't0', attributes: { amount: 6 } },
      },
    };
    expect(diff(b, added).text).toEqual([
      '+2 users gain expense:approve on 2 expenses: user set senior × resource set small, after 2 new expenses',
    ]);
  });

  it('a set made again (it leaves its parent) reads "defined again"; a rule that went with it, "removed with" it', () => {
    const small = base().sets![1];
    const child = base({
      sets: [
        { key: 'top', conditions: { 'user.level': { 'greater-than-equals': 4 } } },
        { key: 'senior', parent: 'top', conditions: { 'user.level': { 'greater-than-equals': 2 } } },
        small,
      ],
    });
    expect(diff(child, base()).text).toEqual([
      '+alice gains expense:approve on 3 expenses: user set senior × resource set small, after user set senior was defined again',
    ]);
    const moved = base({
      resources: { expense: ['approve', 'read'], invoice: ['approve'] },
      sets: [base().sets![0], { ...small, resource: 'invoice' }],
      rules: [['senior', 'invoice:approve', 'small']],
    });
    expect(diff(base({ resources: moved.resources }), moved).text).toEqual([
      // (The rule on invoices gains nothing: there are no invoices.)
      '-2 users lose expense:approve on 3 expenses: user set senior × resource set small, after the rule was removed with resource set small, defined again',
    ]);
  });

  it('cross-side references are decided per pair', () => {
    const cross = base({
      userAttributes: ['level', 'limit'],
      sets: [
        { key: 'all', conditions: {} },
        {
          key: 'within',
          resource: 'expense',
          conditions: { 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } },
        },
      ],
      rules: [['all', 'expense:approve', 'within']],
    });
    const before = { ...cross, users: { ...cross.users, bob: { attributes: { limit: 150 } } } };
    const after = { ...cross, users: { ...cross.users, bob: { attributes: { limit: 250 } } } };
    expect(diff(before, after).text).toEqual([
      "+bob gains expense:approve on expense:e1: user set all × resource set within, after bob's limit changed",
    ]);
  });
});

describe('planAccess with set rules', () => {
  function plan(live: LiveState, edit: (d: DesiredState) => void, permissions = false) {
    const desired: DesiredState = {
      ...emptyDesiredState(),
      ...structuredClone(live),
      sections: new Set(['users']),
    } as DesiredState;
    edit(desired);
    const p = planChanges(desired, live, { project: 'p', environment: 'e' });
    return planAccess({ live, changes: p.changes, permissions });
  }

  it("an edit of one user's attribute shows the gain in the section, text, Markdown and JSON", () => {
    const live = abacState(base());
    const a = plan(live, (d) => (d.users.get('bob')!.attributes = { level: 5 }));
    expect(a.abac?.lines.map((l) => l.line)).toEqual([
      "+bob gains expense:approve on 3 expenses: user set senior × resource set small, after bob's level changed",
    ]);
    expect([a.users, a.gains, a.losses]).toEqual([1, 3, 0]);
    const text = accessTextLines(a).join('\n');
    expect(text).toContain('Through set rules (attributes): 1 user; 3 gained, 0 lost (user × instance).');
    expect(text).toContain('bob; on expense:e0, expense:e1, expense:e2');
    expect(accessMarkdownLines(a).join('\n')).toContain(
      "- `+bob gains expense:approve on 3 expenses: user set senior × resource set small, after bob's level changed`: bob; on `expense:e0`, `expense:e1`, `expense:e2`",
    );
    expect(JSON.parse(JSON.stringify(a)).abac.lines[0]).toMatchObject({
      sign: '+',
      permission: 'expense:approve',
      rule: 'senior_can_expense_approve_small',
      userCount: 1,
      instanceCount: 3,
    });
  });

  it('the headline names the rules not decided offline beside the decided counts', () => {
    const b = base();
    const live = abacState({
      ...b,
      sets: [...b.sets!, { key: 'urgent', resource: 'expense', conditions: { 'context.urgent': { equals: true } } }],
      rules: [...b.rules!, ['senior', 'expense:read', 'urgent']],
    });
    const a = plan(live, (d) => (d.users.get('bob')!.attributes = { level: 5 }));
    expect(accessTextLines(a)[0]).toBe(
      'Access changes: 1 user; 3 gained, 0 lost; not decided offline: 1 set rule depends on attributes a check passes (below).',
    );
    expect(accessMarkdownLines(a)[2]).toBe(
      '1 user; 3 gained, 0 lost; not decided offline: 1 set rule depends on attributes a check passes (below).',
    );
  });

  it("the permission view does not count a role's loss of a permission a rule still grants", () => {
    const b = base();
    const live = abacState({
      ...b,
      users: { ...b.users, alice: { attributes: { level: 3 }, roles: [{ role: 'approver', tenant: 't0' }] } },
    });
    const a = plan(live, (d) => (d.users.get('alice')!.roles = []), true);
    // alice loses approver (expense:approve on e3, the large one); on e0..e2 the rule keeps it.
    expect(a.summary.map((s) => s.line)).toEqual([
      '-1 user loses expense:approve through approver in t0, on expense:e3',
    ]);
    const live2 = abacState({
      ...b,
      users: { ...b.users, alice: { attributes: { level: 3 }, roles: [{ role: 'approver', tenant: 't0' }] } },
    });
    const graphs = [buildAccessGraph(factsFromState(live2)), buildAccessGraph(factsFromState(abacState(b)))];
    expect(
      diffAccess(graphs[0], graphs[1], { permissions: true }).changes.map(
        (c) => `${c.sign}${c.user} ${c.subject} ${c.instance}`,
      ),
    ).toEqual(['-alice expense:approve expense:e3']);
  });
});
