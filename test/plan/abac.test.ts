/**
 * Planning attribute-based access (src/plan/abac.ts), pure: only managed sections are compared, a
 * resource's attributes opt in per resource, a set edit is one update, another type / resource / no
 * parent is a replacement that plans its rules again, undeclared objects are listed and deleted only
 * under --prune (children first), the service's cascades are shown with the deletion (and with the
 * update that removes an action), a deleted attribute still used by a condition is warned about, and
 * liveAfter is what planning against it again confirms.
 */
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { liveAfter } from '../../src/plan/after.js';
import { renderPlanText } from '../../src/plan/render-text.js';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { diffEnvironments } from '../../src/plan/environments.js';
import { ConfigError } from '../../src/errors.js';
import { emptyDesiredState, type DesiredState, type Section } from '../../src/types/desired.js';
import { emptyLiveState, type LiveState } from '../../src/types/live.js';
import { setRuleKey, type DesiredConditionSet, type DesiredSetRule } from '../../src/types/abac.js';

const OPTIONS = { project: 'p', environment: 'e' };
const ALL: Section[] = [
  'resources',
  'roles',
  'user_attributes',
  'tenant_attributes',
  'user_sets',
  'resource_sets',
  'set_rules',
];

const uset = (
  key: string,
  conditions: Record<string, unknown>,
  more: Partial<DesiredConditionSet> = {},
): DesiredConditionSet => ({ key, type: 'userset', name: key, conditions, ...more });
const rset = (
  key: string,
  resource: string,
  conditions: Record<string, unknown> = {},
  more: Partial<DesiredConditionSet> = {},
): DesiredConditionSet => ({ key, type: 'resourceset', name: key, resource, conditions, ...more });
const rule = (userSet: string, permission: string, resourceSet: string): DesiredSetRule => {
  const [resource, action] = permission.split(':');
  return { userSet, resourceSet, resource, action };
};
const LEVEL = { allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] };

/** An environment with one of every ABAC object, as desired (managing `sections`) or live. */
function world<T extends DesiredState | LiveState>(into: T): T {
  into.resources.set('expense', {
    key: 'expense',
    name: 'expense',
    actions: ['approve', 'read'],
    attributes: [{ key: 'amount', type: 'number' }],
  });
  into.roles.set('clerk', { key: 'clerk', name: 'clerk', permissions: ['expense:read'] });
  into.userAttributes.set('level', { key: 'level', type: 'number' });
  into.tenantAttributes.set('country', { key: 'country', type: 'string' });
  into.conditionSets.set('seniors', uset('seniors', LEVEL));
  into.conditionSets.set(
    'top',
    uset('top', { allOf: [{ 'user.level': { 'greater-than': 5 } }] }, { parent: 'seniors' }),
  );
  into.conditionSets.set('small', rset('small', 'expense', { allOf: [{ 'resource.amount': { 'less-than': 100 } }] }));
  for (const r of [
    rule('seniors', 'expense:approve', 'small'),
    rule('__autogen_clerk', 'expense:approve', 'small'),
    rule('top', 'expense:read', '__autogen_expense'),
  ])
    into.setRules.set(setRuleKey(r), r);
  return into;
}
const desiredWorld = (sections: Section[] = ALL) => {
  const d = world(emptyDesiredState());
  d.sections = new Set(sections);
  return d;
};
const liveWorld = () => world(emptyLiveState());
const lines = (d: DesiredState, l: LiveState, prune = false) =>
  planChanges(d, l, { ...OPTIONS, prune }).changes.map((c) => `${c.action} ${c.id}`);

describe('planning attribute-based access', () => {
  it('the same objects plan nothing; from empty, every kind in dependency order', () => {
    expect(lines(desiredWorld(), liveWorld())).toEqual([]);
    const plan = planChanges(desiredWorld(), emptyLiveState(), OPTIONS);
    expect(plan.changes.map((c) => c.id)).toEqual([
      'resource:expense',
      'resource_attribute:expense.amount',
      'role:clerk',
      'user_attribute:level',
      'tenant_attribute:country',
      'condition_set:seniors',
      'condition_set:small',
      'condition_set:top',
      'set_rule:__autogen_clerk:expense:approve@small',
      'set_rule:seniors:expense:approve@small',
      'set_rule:top:expense:read@__autogen_expense',
    ]);
    const byId = new Map(plan.changes.map((c) => [c.id, c]));
    // A set waits for its parent and every attribute definition the plan makes (conditions may name any).
    expect(byId.get('condition_set:top')!.dependsOn).toEqual([
      'condition_set:seniors',
      'resource_attribute:expense.amount',
      'tenant_attribute:country',
      'user_attribute:level',
    ]);
    expect(byId.get('condition_set:small')!.dependsOn).toContain('resource_attribute:expense.amount');
    expect(byId.get('set_rule:__autogen_clerk:expense:approve@small')!.dependsOn).toEqual([
      'condition_set:small',
      'resource:expense',
      'role:clerk',
    ]);
    expect(byId.get('set_rule:top:expense:read@__autogen_expense')!.dependsOn).toEqual([
      'condition_set:top',
      'resource:expense',
    ]);
  });

  it('compares only the sections the configuration manages; a resource\u2019s attributes only where it writes them', () => {
    const d = desiredWorld(['resources']);
    d.resources.get('expense')!.attributes = undefined;
    const l = liveWorld();
    l.userAttributes.set('extra', { key: 'extra', type: 'bool' });
    l.conditionSets.set('other', uset('other', {}));
    expect(lines(d, l, true)).toEqual([]);
    d.resources.get('expense')!.attributes = [
      { key: 'amount', type: 'number', description: 'euros' },
      { key: 'region', type: 'string' },
    ];
    expect(lines(d, l, false)).toEqual([
      'update resource_attribute:expense.amount',
      'create resource_attribute:expense.region',
    ]);
    d.resources.get('expense')!.attributes = [];
    // Written as empty: exactly none (even without --prune, like a resource's roles).
    expect(lines(d, l, false)).toEqual(['delete resource_attribute:expense.amount']);
  });

  it('an edit of a set is one update of name, description, conditions and parent', () => {
    const d = desiredWorld();
    d.conditionSets.set('top', uset('top', LEVEL, { name: 'Top', description: 'the top', parent: 'seniors' }));
    d.conditionSets.set('seniors', uset('seniors', LEVEL, { parent: undefined }));
    const plan = planChanges(d, liveWorld(), OPTIONS);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ action: 'update', id: 'condition_set:top' });
    expect((plan.changes[0] as { fields: { field: string }[] }).fields.map((f) => f.field)).toEqual([
      'name',
      'description',
      'conditions',
    ]);
  });

  it('another base resource, type, or no parent replaces the set, and its rules are made again', () => {
    const d = desiredWorld();
    d.resources.set('report', { key: 'report', name: 'report', actions: ['approve'] });
    d.conditionSets.set('small', rset('small', 'report'));
    d.setRules.delete(setRuleKey(rule('seniors', 'expense:approve', 'small')));
    d.setRules.delete(setRuleKey(rule('__autogen_clerk', 'expense:approve', 'small')));
    d.setRules.set('x', rule('seniors', 'report:approve', 'small'));
    const l = liveWorld();
    const plan = planChanges(d, l, OPTIONS);
    expect(plan.changes.find((c) => c.id === 'condition_set:small')).toMatchObject({
      action: 'create',
      replaces: [{ field: 'resource', before: 'expense', after: 'report' }],
    });
    // The old rules on it (not declared, kept without --prune) no longer fit it (expense:approve on a set of
    // reports): they go with the replacement, shown with it; the declared one is made.
    expect(plan.changes.map((c) => c.id).filter((id) => id.startsWith('set_rule:'))).toEqual([
      'set_rule:seniors:report:approve@small',
    ]);
    expect(plan.changes.find((c) => c.id === 'condition_set:small')).toMatchObject({
      cascade: ['set_rule:__autogen_clerk:expense:approve@small', 'set_rule:seniors:expense:approve@small'],
    });
    expect(renderPlanText(plan)).toContain(
      '  + condition_set:small (replaces: resource: "expense" → "report")\n      with it: 2 set rules',
    );
    // Leaving a parent: replaced (the public update cannot remove a parent), the rule on it made again.
    const d2 = desiredWorld();
    d2.conditionSets.set('top', uset('top', { allOf: [{ 'user.level': { 'greater-than': 5 } }] }));
    expect(lines(d2, l)).toEqual(['create condition_set:top', 'create set_rule:top:expense:read@__autogen_expense']);
    expect(liveAfter(l, planChanges(d2, l, OPTIONS).changes).setRules.size).toBe(3);
  });

  it('replacing a set whose live child is neither declared nor pruned is refused before anything is sent', () => {
    const d = desiredWorld();
    d.conditionSets.delete('top');
    d.conditionSets.set('seniors', rset('seniors', 'expense'));
    expect(() => planChanges(d, liveWorld(), OPTIONS)).toThrow(ConfigError);
    expect(() => planChanges(d, liveWorld(), OPTIONS)).toThrow(/descendant 'top' is live and not declared/);
  });

  it('undeclared objects are listed; under --prune deleted, child sets before parents, rules before sets', () => {
    const d = desiredWorld();
    d.conditionSets.clear();
    d.setRules.clear();
    d.userAttributes.clear();
    const l = liveWorld();
    const kept = planChanges(d, l, OPTIONS);
    expect(kept.changes).toEqual([]);
    expect(kept.undeclared!.objects.map((o) => `${o.fate} ${o.id}`)).toEqual([
      'kept user_attribute:level',
      'kept condition_set:seniors',
      'kept condition_set:small',
      'kept condition_set:top',
      'kept set_rule:__autogen_clerk:expense:approve@small',
      'kept set_rule:seniors:expense:approve@small',
      'kept set_rule:top:expense:read@__autogen_expense',
    ]);
    expect(kept.undeclared!.objects.find((o) => o.id === 'user_attribute:level')!.access).toEqual([
      'used by the conditions of 2 sets (seniors, top)',
    ]);
    const pruned = planChanges(d, l, { ...OPTIONS, prune: true });
    const ids = pruned.changes.map((c) => c.id);
    expect(ids).toEqual([
      'set_rule:__autogen_clerk:expense:approve@small',
      'set_rule:seniors:expense:approve@small',
      'set_rule:top:expense:read@__autogen_expense',
      'condition_set:small',
      'condition_set:top',
      'condition_set:seniors',
      'user_attribute:level',
    ]);
    expect(pruned.changes.find((c) => c.id === 'condition_set:seniors')!.dependsOn).toEqual(['condition_set:top']);
    // Every set using it goes too: no warning.
    expect(pruned.changes.find((c) => c.id === 'user_attribute:level')).not.toHaveProperty('usedBy');
    expect(liveAfter(l, pruned.changes).conditionSets.size).toBe(0);
  });

  it('deleting a set whose child stays is refused with a clear error', () => {
    const d = desiredWorld(['user_sets']);
    d.conditionSets.delete('seniors');
    d.conditionSets.set(
      'top',
      uset('top', { allOf: [{ 'user.level': { 'greater-than': 5 } }] }, { parent: 'seniors' }),
    );
    expect(() => planChanges(d, liveWorld(), { ...OPTIONS, prune: true })).toThrow(
      /user set 'seniors' is not declared and would be deleted, but .* 'top' stays under it/,
    );
  });

  it('the service\u2019s cascades are shown: a resource takes its sets, attributes and rules; a role and a removed action their rules', () => {
    const l = liveWorld();
    const d = desiredWorld(['resources', 'roles']);
    d.resources.delete('expense');
    d.roles.delete('clerk');
    const plan = planChanges(d, l, { ...OPTIONS, prune: true });
    expect(plan.changes.find((c) => c.id === 'role:clerk')).toMatchObject({
      cascade: ['set_rule:__autogen_clerk:expense:approve@small'],
    });
    expect(plan.changes.find((c) => c.id === 'resource:expense')).toMatchObject({
      cascade: [
        'condition_set:small',
        'resource_attribute:expense.amount',
        'set_rule:seniors:expense:approve@small',
        'set_rule:top:expense:read@__autogen_expense',
      ],
    });
    const after = liveAfter(l, plan.changes);
    expect([...after.conditionSets.keys()]).toEqual(['seniors', 'top']);
    expect(after.setRules.size).toBe(0);
    expect(renderPlanText(plan)).toContain('with it: 1 attribute definition, 1 resource set, 2 set rules');

    const d2 = desiredWorld(['resources']);
    d2.resources.get('expense')!.actions = ['approve'];
    const update = planChanges(d2, l, OPTIONS);
    expect(update.changes).toMatchObject([
      { action: 'update', id: 'resource:expense', cascade: ['set_rule:top:expense:read@__autogen_expense'] },
    ]);
    expect(renderPlanText(update)).toMatch(/~ resource:expense\n.*actions: -read\n\s+with it: 1 set rule/);
    expect(update.summary).toEqual({ create: 0, update: 1, delete: 0 });
    expect(renderPlanText(update)).toContain('0 to create, 1 to update, 0 to delete (and 1 that goes with them).');
    expect(
      liveAfter(l, update.changes).setRules.has(setRuleKey(rule('top', 'expense:read', '__autogen_expense'))),
    ).toBe(false);
  });

  it('an attribute deleted while a condition still uses it is a warning naming the sets, in every format', () => {
    const d = desiredWorld();
    d.userAttributes.delete('level');
    d.resources.get('expense')!.attributes = [];
    const plan = planChanges(d, liveWorld(), { ...OPTIONS, prune: true });
    expect(plan.changes.find((c) => c.id === 'user_attribute:level')).toMatchObject({
      action: 'delete',
      usedBy: ['seniors', 'top'],
    });
    expect(plan.changes.find((c) => c.id === 'resource_attribute:expense.amount')).toMatchObject({
      action: 'delete',
      usedBy: ['small'],
    });
    const text = renderPlanText(plan);
    expect(text).toContain(
      '  - user_attribute:level\n      warning: still used by the conditions of 2 sets (seniors, top); once deleted, the attribute evaluates as undefined there and those conditions fail',
    );
    expect(renderPlanMarkdown(plan)).toContain(
      '| - | `user_attribute:level` | warning: still used by the conditions of 2 sets (seniors, top)',
    );
    expect(
      JSON.parse(JSON.stringify(plan)).changes.find((c: { id: string }) => c.id === 'user_attribute:level').usedBy,
    ).toEqual(['seniors', 'top']);
  });

  it('an environment without ABAC keeps its plan JSON: no new field, no new change', () => {
    const d = emptyDesiredState();
    d.sections = new Set(['resources', 'roles']);
    d.resources.set('doc', { key: 'doc', name: 'doc', actions: ['read'] });
    const plan = planChanges(d, emptyLiveState(), OPTIONS);
    expect(JSON.stringify(plan)).not.toMatch(/attribute|condition_set|set_rule|usedBy/);
  });

  it('roster diff compares the ABAC parts, user sets and resource sets apart', () => {
    const a = liveWorld();
    const b = liveWorld();
    b.conditionSets.set('seniors', uset('seniors', { allOf: [] }));
    b.conditionSets.delete('small');
    b.userAttributes.set('dept', { key: 'dept', type: 'string' });
    expect(diffEnvironments(a, b).map((x) => `${x.kind} ${x.id}`)).toEqual([
      'only-b user_attribute:dept',
      'differs user_set:seniors',
      'only-a resource_set:small',
    ]);
  });
});
