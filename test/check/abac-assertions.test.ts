/**
 * Assertions with attribute-based access: decided offline from the set rules with the assertion's
 * `with:` (RBAC/ReBAC ∨ ABAC), undecided offline when a rule waits for decision-time attributes, and
 * `check --live` sending those attributes in the public check body: against a real `roster serve`,
 * offline and live agree on every assertion that passes attributes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abacFromState } from '../../src/access/abac/model.js';
import { checksNeeded, evaluateAssertions, type AssertionSpec } from '../../src/access/assertions.js';
import { renderCheck } from '../../src/access/check-report.js';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { createClient } from '../../src/api/index.js';
import { readDecisions } from '../../src/api/read-decisions.js';
import { AUTOGEN_SET_PREFIX } from '../../src/types/abac.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../server/builders.js';
import { abacState, EXPENSES, type AbacInput } from '../access/abac-builders.js';

const input: AbacInput = {
  ...EXPENSES,
  roles: { ...EXPENSES.roles, approver: ['expense:approve'] },
  users: { ...EXPENSES.users, olga: { roles: ['approver'] } },
};
const state = abacState(input);
const graph = buildAccessGraph(factsFromState(state));
const abac = { state, view: abacFromState(state) };
const at = (line: number) => ({ file: 'roster.yaml', path: `assertions[${line}]`, line });
const spec = (x: Omit<AssertionSpec, 'source'>, line: number): AssertionSpec => ({ ...x, source: at(line) });

const assertions: AssertionSpec[] = [
  spec({ user: 'alice', check: 'can', subject: 'approve', on: 'expense:small' }, 1), // stored level 4, amount 500
  spec({ user: 'bob', check: 'can', subject: 'approve', on: 'expense:small' }, 2), // level 2: fails, names the condition
  spec({ user: 'carol', check: 'can', subject: 'approve', on: 'expense:small' }, 3), // manager: waits for context.urgent
  spec(
    { user: 'carol', check: 'can', subject: 'approve', on: 'expense:small', passed: { context: { urgent: true } } },
    4,
  ),
  spec(
    { user: 'carol', check: 'cannot', subject: 'approve', on: 'expense:small', passed: { context: { urgent: false } } },
    5,
  ),
  spec(
    {
      user: 'bob',
      check: 'cannot',
      subject: 'approve',
      on: 'expense:big',
      passed: { user: { level: 5, region: 'eu', limit: 9000 } },
    },
    6,
  ), // fails: allowed with these
  spec({ user: 'olga', check: 'can', subject: 'approve', on: 'expense:blank' }, 7), // a role decides: no ABAC needed
  spec({ user: 'alice', check: 'cannot', subject: 'approve', on: 'expense:blank' }, 8), // amount not stored: false, denied
  spec({ user: 'dave', check: 'cannot', subject: 'approve', on: 'expense:small', passed: {} }, 9), // with: {} decides exactly
];

describe('assertions with set rules, offline', () => {
  const report = evaluateAssertions(assertions, graph, { abac });

  it('decides with the stored and passed attributes, and leaves undecided what waits for decision-time attributes', () => {
    expect(report.results.map((r) => [r.assertion.source?.line, r.status])).toEqual([
      [1, 'passed'],
      [2, 'failed'],
      [3, 'undecided'],
      [4, 'passed'],
      [5, 'passed'],
      [6, 'failed'],
      [7, 'passed'],
      [8, 'passed'],
      [9, 'passed'],
    ]);
    expect(report).toMatchObject({ passed: false, total: 9, failed: 2, undecided: 1 });
  });

  it('a failure names the set rule and the condition; an undecided one the attributes it waits for', () => {
    const bob = report.results[1].failures[0];
    expect(bob.message).toBe(
      'bob lacks expense:approve on expense:small; it would take a direct approver on expense:small; or a tenant-wide approver in default. No set rule allows it either:',
    );
    expect(bob.paths).toContain('  user set approvers: user.level greater-than-equals 3 (user.level = 2, stored)');
    const granted = report.results[5].failures[0];
    expect(granted.message).toBe('bob can approve on expense:big: one path grants it.');
    expect(granted.paths).toEqual([
      'user set senior-eu × resource set within-limit (rule: senior-eu can expense:approve on within-limit)',
      '  user set senior-eu: user.region equals "eu" (user.region = "eu", passed); user set senior-eu\'s ancestor approvers: user.level greater-than-equals 3 (user.level = 5, passed)',
      '  resource set within-limit: resource.amount less-than-equals user.limit (resource.amount = 5000, stored; user.limit = 9000, passed)',
    ]);
    expect(report.results[2].undecided).toEqual([
      {
        user: 'carol',
        message:
          "not decided offline: whether carol may expense:approve on expense:small depends on context.urgent (give it in the assertion's with:)",
        paths: [
          'role manager × resource set urgent (rule: __autogen_manager can expense:approve on urgent): not decided offline: depends on context.urgent',
        ],
        dependsOn: ['context.urgent'],
      },
    ]);
    // A stored attribute missing is not waited for: its comparison is false, and the failure names it.
    const blank = evaluateAssertions(
      [spec({ user: 'alice', check: 'can', subject: 'approve', on: 'expense:blank' }, 10)],
      graph,
      { abac },
    ).results[0];
    expect(blank.status).toBe('failed');
    expect(blank.failures[0].paths).toContain(
      '  resource set small-expenses: resource.amount less-than 1000 (resource.amount missing)',
    );
  });

  it('text, JSON and JUnit: undecided is printed, counted apart, skipped in JUnit, and does not fail the run', () => {
    const text = renderCheck(report, 'text', { on: 'desired' });
    expect(text).toContain(
      'UNDECIDED roster.yaml:3: carol can approve on expense:small\n  not decided offline: whether carol may',
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      '9 assertions on the configuration: 6 passed, 2 failed, 1 not decided offline.',
    );
    expect(JSON.parse(renderCheck(report, 'json', { on: 'desired' }))).toMatchObject({
      passed: false,
      failed: 2,
      undecided: 1,
    });
    const junit = renderCheck(report, 'junit', { on: 'desired' });
    expect(junit).toContain('failures="2" errors="0" skipped="1"');
    expect(junit).toContain(
      '<testcase classname="roster.yaml" name="carol can approve on expense:small" file="roster.yaml" line="3">\n      <skipped message="not decided offline',
    );
    const onlyUndecided = evaluateAssertions([assertions[2]], graph, { abac });
    expect(onlyUndecided).toMatchObject({ passed: true, failed: 0, undecided: 1 });
  });

  it("without the state (the plan's call), set rules count as the graph decides them: a check passing nothing", () => {
    expect(evaluateAssertions([assertions[0]], graph).results[0].status).toBe('passed');
    // carol's rule waits for context: the graph decides it as a check passing none (denied), never undecided.
    expect(evaluateAssertions([assertions[2]], graph).results[0].status).toBe('failed');
    const cannot = evaluateAssertions(
      [spec({ user: 'alice', check: 'cannot', subject: 'approve', on: 'expense:small' }, 10)],
      graph,
    ).results[0];
    expect(cannot.failures[0]).toEqual({
      user: 'alice',
      message: 'alice can approve on expense:small: 2 paths grant it.',
      paths: [
        'user set approvers × resource set small-expenses (rule: approvers can expense:approve on small-expenses)',
        'user set senior-eu × resource set within-limit (rule: senior-eu can expense:approve on within-limit)',
      ],
    });
  });
});

describe('check --live with set rules: the attributes go in the public check body', () => {
  let server: TestServer;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startTestServer();
    client = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e', pacing: 'none' });
    await writeAbac(server, input);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('every assertion decided offline gets the same verdict from /allowed/bulk; the undecided ones are decided there', async () => {
    const checks = checksNeeded(assertions, graph);
    expect(checks.find((c) => c.user === 'bob' && c.instance === 'expense:big')).toEqual({
      user: 'bob',
      action: 'approve',
      instance: 'expense:big',
      tenant: 'default',
      passed: { user: { level: 5, region: 'eu', limit: 9000 } },
    });
    const decisions = await readDecisions(client, { project: 'p', environment: 'e' }, checks);
    const live = evaluateAssertions(assertions, graph, { decisions, abac });
    const offline = evaluateAssertions(assertions, graph, { abac });
    for (const [i, r] of offline.results.entries()) {
      if (r.status !== 'undecided') expect(`${r.name}: ${live.results[i].status}`).toBe(`${r.name}: ${r.status}`);
    }
    // Live, nothing waits: the check is exactly what was sent (carol passes no context: denied).
    expect(live.results.map((r) => r.status)).toEqual([
      'passed',
      'failed',
      'failed',
      'passed',
      'passed',
      'failed',
      'passed',
      'passed',
      'passed',
    ]);
    expect(live.results[2].failures[0].paths).toContain(
      '  resource set urgent: context.urgent equals true (context.urgent missing)',
    );
  });
});

/** The environment `input` describes, written through the public API as an SDK would. */
async function writeAbac(s: TestServer, x: AbacInput): Promise<void> {
  const res = x.resources ?? {};
  for (const [key, r] of Object.entries(res)) {
    ok(
      await s.schema('POST', '/resources', {
        key,
        name: key,
        actions: Object.fromEntries(r.actions.map((a) => [a, {}])),
        attributes: Object.fromEntries(Object.entries(r.attributes ?? {}).map(([k, type]) => [k, { type }])),
      }),
    );
  }
  for (const [key, permissions] of Object.entries(x.roles ?? {}))
    ok(await s.schema('POST', '/roles', { key, name: key, permissions }));
  for (const [key, type] of Object.entries(x.userAttributes ?? {}))
    ok(await s.schema('POST', '/users/attributes', { key, type }));
  const t = await s.facts('GET', '/tenants/default');
  if (t.status === 404) ok(await s.facts('POST', '/tenants', { key: 'default', name: 'default' }));
  for (const [key, u] of Object.entries(x.users ?? {})) {
    ok(await s.facts('POST', '/users', { key, ...(u.attributes ? { attributes: u.attributes } : {}) }));
    for (const role of u.roles ?? [])
      ok(await s.facts('POST', '/role_assignments', { user: key, role, tenant: 'default' }));
  }
  for (const [id, i] of Object.entries(x.instances ?? {})) {
    const [resource, key] = id.split(':');
    ok(
      await s.facts('POST', '/resource_instances', {
        key,
        resource,
        tenant: i.tenant ?? 'default',
        ...(i.attributes ? { attributes: i.attributes } : {}),
      }),
    );
  }
  // Parents before children.
  for (const [key, u] of Object.entries(x.userSets ?? {}).sort(
    ([, a], [, b]) => Number(a.parent !== undefined) - Number(b.parent !== undefined),
  )) {
    ok(
      await s.schema('POST', '/condition_sets', {
        key,
        name: key,
        type: 'userset',
        conditions: u.conditions,
        ...(u.parent ? { parent_id: u.parent } : {}),
      }),
    );
  }
  for (const [key, r] of Object.entries(x.resourceSets ?? {}))
    ok(
      await s.schema('POST', '/condition_sets', {
        key,
        name: key,
        type: 'resourceset',
        resource_id: r.resource,
        conditions: r.conditions,
      }),
    );
  for (const text of x.rules ?? []) {
    const [userSet, permission, resourceSet] = text.split(' ');
    const role = userSet.startsWith(AUTOGEN_SET_PREFIX) ? userSet.slice(AUTOGEN_SET_PREFIX.length) : undefined;
    ok(
      await s.facts('POST', '/set_rules', {
        user_set: role ?? userSet,
        permission,
        resource_set: resourceSet,
        ...(role ? { is_role: true } : {}),
      }),
    );
  }
}
