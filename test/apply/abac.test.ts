import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { verifyApplied } from '../../src/apply/verify.js';
import { dryRun, estimateApply } from '../../src/apply/estimate.js';
import { planChanges } from '../../src/plan/plan.js';
import { emptyDesiredState, type DesiredState, type Section } from '../../src/types/desired.js';
import { setRuleKey, type DesiredConditionSet, type DesiredSetRule } from '../../src/types/abac.js';
import type { ApiClient, AttemptInfo } from '../../src/api/index.js';
import { startEnv, type Env } from './helpers.js';

/**
 * Attribute-based access applied to a real `roster serve`: every kind created, then planned empty; an
 * edit of a set's conditions is one PATCH; a set leaving its parent is replaced with its rules made
 * again; undeclared sets are deleted children first; verification (scoped and full) finds nothing left.
 */
const OPTIONS = { project: 'p', environment: 'e' };
const ABAC: Section[] = [
  'resources',
  'roles',
  'user_attributes',
  'tenant_attributes',
  'user_sets',
  'resource_sets',
  'set_rules',
];

const userSet = (
  key: string,
  conditions: Record<string, unknown>,
  more: Partial<DesiredConditionSet> = {},
): DesiredConditionSet => ({ key, type: 'userset', name: key, conditions, ...more });
const rule = (userSet: string, permission: string, resourceSet: string): [string, DesiredSetRule] => {
  const [resource, action] = permission.split(':');
  const r = { userSet, resourceSet, resource, action };
  return [setRuleKey(r), r];
};

function base(): DesiredState {
  const d = emptyDesiredState();
  for (const s of ABAC) d.sections.add(s);
  d.resources.set('expense', {
    key: 'expense',
    name: 'Expense',
    actions: ['approve', 'read'],
    attributes: [
      { key: 'amount', type: 'number', description: 'in euros' },
      { key: 'region', type: 'string' },
    ],
  });
  d.roles.set('clerk', { key: 'clerk', name: 'Clerk', permissions: ['expense:read'] });
  d.userAttributes.set('level', { key: 'level', type: 'number' });
  d.tenantAttributes.set('country', { key: 'country', type: 'string' });
  d.conditionSets.set(
    'seniors',
    userSet('seniors', { allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] }, { name: 'Seniors' }),
  );
  d.conditionSets.set(
    'top',
    userSet('top', { allOf: [{ 'user.level': { 'greater-than': 5 } }] }, { parent: 'seniors' }),
  );
  d.conditionSets.set('small', {
    key: 'small',
    type: 'resourceset',
    name: 'Small',
    resource: 'expense',
    conditions: { allOf: [{ 'resource.amount': { 'less-than': 100 } }] },
  });
  d.setRules = new Map([
    rule('seniors', 'expense:approve', 'small'),
    rule('__autogen_clerk', 'expense:approve', 'small'),
    rule('top', 'expense:approve', '__autogen_expense'),
  ]);
  return d;
}

async function planAndApply(client: ApiClient, desired: DesiredState, prune = false) {
  const live = await readLiveState(client);
  const plan = planChanges(desired, live, { ...OPTIONS, prune });
  const result = await applyPlan(plan, client);
  expect(result.failed).toEqual([]);
  return { plan, live, result };
}

const writes = (requests: AttemptInfo[]) =>
  requests
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path.replace(/^\/v2\/(schema|facts)\/p\/e/, '')}`);

describe('applying attribute-based access', { timeout: 120_000 }, () => {
  let env: Env;
  let client: ApiClient;
  let requests: AttemptInfo[];
  beforeAll(async () => {
    env = await startEnv();
    ({ client, requests } = env.client());
  });
  afterAll(async () => {
    await env?.close();
  });

  it('creates every kind, parents before children and rules after sets, then plans empty', async () => {
    const desired = base();
    const { plan } = await planAndApply(client, desired);
    const ids = plan.changes.map((c) => c.id);
    expect(ids.indexOf('condition_set:seniors')).toBeLessThan(ids.indexOf('condition_set:top'));
    expect(ids.indexOf('condition_set:top')).toBeLessThan(
      ids.indexOf('set_rule:top:expense:approve@__autogen_expense'),
    );
    expect(ids.indexOf('role:clerk')).toBeLessThan(ids.indexOf('set_rule:__autogen_clerk:expense:approve@small'));
    expect(ids).toContain('resource_attribute:expense.amount');
    const again = planChanges(desired, await readLiveState(client), OPTIONS);
    expect(again.changes.map((c) => c.id)).toEqual([]);
    const verified = await verifyApplied({
      desired,
      client,
      plan,
      live: await readLiveState(client),
      requestGrants: [],
    });
    expect(verified.ids).toEqual([]);
  });

  it('an edit of a set is one PATCH, and scoped verification re-reads the ABAC lists', async () => {
    const desired = base();
    desired.conditionSets.set(
      'seniors',
      userSet(
        'seniors',
        { allOf: [{ 'user.level': { 'greater-than-equals': 4 } }] },
        { name: 'Senior staff', description: 'level 4 and up' },
      ),
    );
    const live = await readLiveState(client);
    const plan = planChanges(desired, live, OPTIONS);
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual(['update condition_set:seniors']);
    // The estimate counts what the apply sends: one schema write.
    expect(await dryRun(plan)).toEqual([{ method: 'PATCH', path: '/v2/schema/p/e/condition_sets/seniors' }]);
    expect(await estimateApply(plan)).toMatchObject({ requests: 1, byClass: { request: 1, write: 1, schemaWrite: 1 } });
    requests.length = 0;
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    expect(writes(requests)).toEqual(['PATCH /condition_sets/seniors']);
    const verified = await verifyApplied({ desired, client, plan, live, requestGrants: [] });
    expect(verified).toMatchObject({ ids: [], full: false });
    expect(verified.requests).toBe(4);
    expect(planChanges(desired, await readLiveState(client), OPTIONS).changes).toEqual([]);
  });

  it('a set leaving its parent is made again, with its rules', async () => {
    const desired = base();
    desired.conditionSets.set('top', userSet('top', { allOf: [{ 'user.level': { 'greater-than': 5 } }] }));
    const live = await readLiveState(client);
    const plan = planChanges(desired, live, OPTIONS);
    // (seniors also goes back to its first conditions: the edit of the test before.)
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual([
      'update condition_set:seniors',
      'create condition_set:top',
      'create set_rule:top:expense:approve@__autogen_expense',
    ]);
    expect(plan.changes.find((c) => c.id === 'condition_set:top')).toMatchObject({
      action: 'create',
      replaces: [{ field: 'parent', before: 'seniors', after: null }],
    });
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    const now = await readLiveState(client);
    expect(now.conditionSets.get('top')!.parent).toBeUndefined();
    expect(now.setRules.has('top_can_expense_approve___autogen_expense')).toBe(true);
    expect(planChanges(desired, now, OPTIONS).changes).toEqual([]);
  });

  it('deletes undeclared sets children first, with their rules, and warns when a deleted attribute is still used', async () => {
    // Back to the tree: seniors > top.
    await planAndApply(client, base());
    const desired = base();
    desired.conditionSets.delete('seniors');
    desired.conditionSets.delete('top');
    desired.setRules.delete(
      setRuleKey({ userSet: 'seniors', resourceSet: 'small', resource: 'expense', action: 'approve' }),
    );
    desired.setRules.delete(
      setRuleKey({ userSet: 'top', resourceSet: '__autogen_expense', resource: 'expense', action: 'approve' }),
    );
    desired.tenantAttributes.delete('country');
    desired.resources.get('expense')!.attributes = [{ key: 'region', type: 'string' }];
    const live = await readLiveState(client);
    const plan = planChanges(desired, live, { ...OPTIONS, prune: true });
    const ids = plan.changes.map((c) => c.id);
    expect(ids.indexOf('condition_set:top')).toBeLessThan(ids.indexOf('condition_set:seniors'));
    expect(plan.changes.find((c) => c.id === 'condition_set:seniors')!.dependsOn).toEqual(['condition_set:top']);
    // The small resource set uses `resource.amount`: its deletion is shown with the set that still uses it.
    expect(plan.changes.find((c) => c.id === 'resource_attribute:expense.amount')).toMatchObject({
      action: 'delete',
      usedBy: ['small'],
    });
    expect(plan.changes.find((c) => c.id === 'tenant_attribute:country')).not.toHaveProperty('usedBy');
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    const now = await readLiveState(client);
    expect([...now.conditionSets.keys()]).toEqual(['small']);
    expect([...now.setRules.keys()]).toEqual(['__autogen_clerk_can_expense_approve_small']);
    expect(planChanges(desired, now, { ...OPTIONS, prune: true }).changes).toEqual([]);
  });

  it('never touches what the service generates, and a role deletion lists the rules on its own set', async () => {
    const desired = base();
    desired.roles.delete('clerk');
    desired.setRules.delete(
      setRuleKey({ userSet: '__autogen_clerk', resourceSet: 'small', resource: 'expense', action: 'approve' }),
    );
    desired.sections.delete('set_rules');
    const live = await readLiveState(client);
    const plan = planChanges(desired, live, { ...OPTIONS, prune: true });
    const del = plan.changes.find((c) => c.id === 'role:clerk');
    expect(del).toMatchObject({ action: 'delete', cascade: ['set_rule:__autogen_clerk:expense:approve@small'] });
    expect(plan.changes.some((c) => c.id.includes('__autogen_') && c.kind === 'condition_set')).toBe(false);
  });
});
