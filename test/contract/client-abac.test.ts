import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { planChanges } from '../../src/plan/plan.js';
import { emptyDesiredState, type DesiredState, type Section } from '../../src/types/desired.js';
import { setRuleKey, type DesiredConditionSet, type DesiredSetRule } from '../../src/types/abac.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { checkExchange, findOperation } from './openapi.js';

/**
 * The client's side of the public contract for attribute-based access: the reads, and every write the
 * apply makes for the ABAC kinds (creates, updates, a replacement of a set with a child, deletions under
 * --prune), recorded by the real server and held against permit-openapi.json: request bodies against
 * `ResourceAttributeCreate/Update`, `ConditionSetCreate/Update`, `ConditionSetRuleCreate/Remove`, answers
 * against their read schemas.
 */
const OPTIONS = { project: 'p', environment: 'e' };
const SECTIONS: Section[] = [
  'resources',
  'roles',
  'user_attributes',
  'tenant_attributes',
  'user_sets',
  'resource_sets',
  'set_rules',
];

const set = (
  key: string,
  conditions: Record<string, unknown>,
  more: Partial<DesiredConditionSet> = {},
): DesiredConditionSet => ({ key, type: 'userset', name: key, conditions, ...more });
const rules = (...list: [string, string, string][]) =>
  new Map(
    list.map(([userSet, permission, resourceSet]): [string, DesiredSetRule] => {
      const [resource, action] = permission.split(':');
      const r = { userSet, resourceSet, resource, action };
      return [setRuleKey(r), r];
    }),
  );

function first(): DesiredState {
  const d = emptyDesiredState();
  for (const s of SECTIONS) d.sections.add(s);
  d.resources.set('expense', {
    key: 'expense',
    name: 'Expense',
    actions: ['approve', 'read'],
    attributes: [
      { key: 'amount', type: 'number' },
      { key: 'owner', type: 'string', description: 'who filed it' },
    ],
  });
  d.roles.set('clerk', { key: 'clerk', name: 'Clerk', permissions: ['expense:read'] });
  d.userAttributes.set('level', { key: 'level', type: 'number', description: 'seniority' });
  d.userAttributes.set('region', { key: 'region', type: 'string' });
  d.tenantAttributes.set('country', { key: 'country', type: 'string' });
  d.conditionSets.set('staff', set('staff', { allOf: [{ 'user.level': { 'greater-than-equals': 1 } }] }));
  d.conditionSets.set(
    'seniors',
    set(
      'seniors',
      { allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] },
      { parent: 'staff', description: 'level 3+' },
    ),
  );
  d.conditionSets.set(
    'leads',
    set(
      'leads',
      { anyOf: [{ 'user.level': { 'greater-than': 5 } }, { 'user.region': { in: ['eu', 'us'] } }] },
      { parent: 'seniors' },
    ),
  );
  d.conditionSets.set('small', {
    key: 'small',
    type: 'resourceset',
    name: 'Small',
    resource: 'expense',
    conditions: { allOf: [{ 'resource.amount': { 'less-than': { ref: 'user.level' } } }] },
  });
  d.setRules = rules(
    ['seniors', 'expense:approve', 'small'],
    ['__autogen_clerk', 'expense:approve', 'small'],
    ['leads', 'expense:read', '__autogen_expense'],
  );
  return d;
}

/** Every updatable field changed; `seniors` leaves its parent (replaced: its child `leads` first). */
function edited(): DesiredState {
  const d = first();
  d.resources.get('expense')!.attributes = [
    { key: 'amount', type: 'number', description: 'in euros' },
    { key: 'owner', type: 'string' },
  ];
  d.userAttributes.set('level', { key: 'level', type: 'number' });
  d.tenantAttributes.set('country', { key: 'country', type: 'string', description: 'ISO code' });
  d.conditionSets.set(
    'seniors',
    set('seniors', { allOf: [{ 'user.level': { 'greater-than-equals': 4 } }] }, { name: 'Seniors' }),
  );
  d.conditionSets.set('small', {
    ...d.conditionSets.get('small')!,
    name: 'Small expenses',
    description: 'under the limit',
  });
  return d;
}

/** Without one object of every ABAC kind: deleted under --prune. */
function pruned(): DesiredState {
  const d = edited();
  d.resources.get('expense')!.attributes = [{ key: 'amount', type: 'number', description: 'in euros' }];
  d.userAttributes.delete('region');
  d.tenantAttributes.delete('country');
  d.conditionSets.delete('leads');
  d.setRules = rules(['seniors', 'expense:approve', 'small'], ['__autogen_clerk', 'expense:approve', 'small']);
  return d;
}

describe.sequential('the client speaks the public API for attribute-based access', { timeout: 120_000 }, () => {
  let server: TestServer;
  let client: ApiClient;
  beforeAll(async () => {
    server = await startTestServer({ record: true });
    client = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const converge = async (desired: DesiredState, prune = false) => {
    const plan = planChanges(desired, await readLiveState(client), { ...OPTIONS, prune });
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    expect(planChanges(desired, await readLiveState(client), { ...OPTIONS, prune }).changes.map((c) => c.id)).toEqual(
      [],
    );
    return plan;
  };

  it('creates, edits (a set replaced under its child), prunes, and converges each time', async () => {
    await converge(first());
    const plan = await converge(edited());
    expect(plan.changes.find((c) => c.id === 'condition_set:seniors')).toMatchObject({
      action: 'create',
      replaces: [{ field: 'parent', before: 'staff', after: null }],
    });
    expect(plan.changes.find((c) => c.id === 'condition_set:leads')).toMatchObject({
      action: 'create',
      replaces: [{ field: 'parent', before: 'seniors', after: 'seniors' }],
    });
    await converge(pruned(), true);
  });

  it('every request is a public operation with a valid body, and every answer fits the public schema', () => {
    const exchanges = server.exchanges;
    expect(exchanges.flatMap((e) => checkExchange(e))).toEqual([]);
    const used = new Set(exchanges.map((e) => `${e.method} ${findOperation(e.method, e.path)!.template}`));
    const schema = '/v2/schema/{proj_id}/{env_id}';
    for (const op of [
      `GET ${schema}/users/attributes`,
      `POST ${schema}/users/attributes`,
      `PATCH ${schema}/users/attributes/{attribute_id}`,
      `DELETE ${schema}/users/attributes/{attribute_id}`,
      `GET ${schema}/resources/{resource_id}/attributes`,
      `POST ${schema}/resources/{resource_id}/attributes`,
      `PATCH ${schema}/resources/{resource_id}/attributes/{attribute_id}`,
      `DELETE ${schema}/resources/{resource_id}/attributes/{attribute_id}`,
      `GET ${schema}/condition_sets`,
      `POST ${schema}/condition_sets`,
      `PATCH ${schema}/condition_sets/{condition_set_id}`,
      `DELETE ${schema}/condition_sets/{condition_set_id}`,
      `GET ${schema}/condition_sets/{condition_set_id}/descendants`,
      'GET /v2/facts/{proj_id}/{env_id}/set_rules',
      'POST /v2/facts/{proj_id}/{env_id}/set_rules',
      'DELETE /v2/facts/{proj_id}/{env_id}/set_rules',
    ]) {
      expect(used, op).toContain(op);
    }
    // Rules on a role's own set name the role (`is_role`), as the public API documents.
    expect(
      exchanges.some(
        (e) =>
          e.method === 'POST' &&
          e.path.endsWith('/set_rules') &&
          (e.body as { is_role?: boolean }).is_role === true &&
          (e.body as { user_set: string }).user_set === 'clerk',
      ),
    ).toBe(true);
    // A set's edit is one PATCH with the public `ConditionSetUpdate` fields only.
    const patches = exchanges.filter((e) => e.method === 'PATCH' && e.path.includes('/condition_sets/'));
    expect(patches.map((e) => Object.keys(e.body as object).sort())).toEqual([['conditions', 'description', 'name']]);
  });
});
