import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { ENV_KEY } from '../helpers/server.js';
import { changeLines, startEnv, type Env } from './helpers.js';

/**
 * Attribute-based access end to end, through the CLI against the real server: the expenses example
 * (approval limits by level and amount, regional visibility, a role's rule) validates, passes its
 * assertions offline, applies, plans empty, passes them against /allowed, exports and round-trips; an
 * edit of one user's attribute shows the permissions lost in the access section, grouped by set rule;
 * `explain` names the set rule and the condition; /allowed agrees with the plan's world on every check.
 */
describe.sequential('attribute-based access, end to end (examples/expenses)', { timeout: 180_000 }, () => {
  let env: Env;
  const EXAMPLE = readFileSync(path.join(ROOT, 'examples/expenses/roster.yaml'), 'utf8');
  const roster = (...args: string[]): Promise<CliResult> => env.roster(...args);
  const allowed = async (user: string, action: string, key: string, extra: Record<string, unknown> = {}) =>
    (
      await env.server.call(
        'POST',
        '/allowed',
        { user: { key: user }, action, resource: { type: 'expense', key, tenant: 'acme' }, ...extra },
        { key: ENV_KEY },
      )
    ).body.allow;

  beforeAll(async () => {
    env = await startEnv();
    env.write('roster.yaml', EXAMPLE);
  });
  afterAll(async () => env?.close());

  it('validates and passes its assertions offline', async () => {
    const v = await runCli(['validate', path.join(ROOT, 'examples/expenses/roster.yaml')], { cwd: env.dir });
    expect(v.stderr).toBe('');
    expect(v.code).toBe(0);
    const c = await roster('check', 'roster.yaml');
    expect(c.stdout).toContain('8 assertions on the configuration: 8 passed, 0 failed.');
    expect(c.code).toBe(0);
  });

  it('plans definitions, sets and rules in order, with what the rules grant; applies; plans empty', async () => {
    const plan = await roster('plan', 'roster.yaml');
    const lines = changeLines(plan.stdout);
    const at = (id: string) => lines.indexOf(id);
    for (const id of [
      '+ user_attribute:level',
      '+ resource_attribute:expense.amount',
      '+ condition_set:within-limit',
      '+ set_rule:approvers:expense:approve@within-limit',
      '+ set_rule:__autogen_auditor:expense:view@__autogen_expense',
    ]) {
      expect(lines).toContain(id);
    }
    expect(at('+ resource:expense')).toBeLessThan(at('+ resource_attribute:expense.amount'));
    expect(at('+ user_attribute:approval_limit')).toBeLessThan(at('+ condition_set:within-limit'));
    expect(at('+ condition_set:within-limit')).toBeLessThan(at('+ set_rule:approvers:expense:approve@within-limit'));
    expect(at('+ role:auditor')).toBeLessThan(at('+ set_rule:__autogen_auditor:expense:view@__autogen_expense'));
    expect(plan.stdout).toContain(
      '+carol gains expense:approve on 3 expenses: user set approvers × resource set within-limit, after the rule was added',
    );
    expect(plan.stdout).toContain(
      '+bob gains expense:approve on expense:taxi: user set approvers × resource set within-limit',
    );
    expect(plan.stdout).toContain('+dan gains expense:view on 3 expenses: role auditor × every expense');
    const applied = await roster('apply', 'roster.yaml', '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/the decision point agrees with the plan/);
    const again = await roster('plan', 'roster.yaml', '--detailed-exitcode');
    expect(again.stdout).toContain('No changes.');
    expect(again.code).toBe(0);
  });

  it('/allowed agrees with the plan: every user, action and expense; check --live passes every assertion', async () => {
    const expected: Record<string, string[]> = {
      alice: [
        'submit expense:laptop',
        'submit expense:offsite',
        'submit expense:taxi',
        'view expense:laptop',
        'view expense:taxi',
      ],
      bob: [
        'approve expense:taxi',
        'submit expense:laptop',
        'submit expense:offsite',
        'submit expense:taxi',
        'view expense:laptop',
        'view expense:offsite',
        'view expense:taxi',
      ],
      carol: [
        'approve expense:laptop',
        'approve expense:offsite',
        'approve expense:taxi',
        'submit expense:laptop',
        'submit expense:offsite',
        'submit expense:taxi',
        'view expense:laptop',
        'view expense:offsite',
        'view expense:taxi',
      ],
      dan: ['view expense:laptop', 'view expense:offsite', 'view expense:taxi'],
    };
    for (const [user, want] of Object.entries(expected)) {
      const got: string[] = [];
      for (const action of ['approve', 'submit', 'view'])
        for (const key of ['laptop', 'offsite', 'taxi'])
          if (await allowed(user, action, key)) got.push(`${action} expense:${key}`);
      expect(got, user).toEqual(want);
    }
    // Attributes passed in the check win over the stored ones (the assertion's `with:`).
    expect(await allowed('bob', 'approve', 'laptop')).toBe(false);
    expect(
      await allowed('bob', 'approve', 'laptop', { user: { key: 'bob', attributes: { approval_limit: 2000 } } }),
    ).toBe(true);
    const live = await roster('check', 'roster.yaml', '--live');
    expect(live.stdout).toContain('8 assertions on the live service: 8 passed, 0 failed.');
    expect(live.code).toBe(0);
  });

  it('explain names the set rule and the condition that matched, or the one that failed', async () => {
    const yes = await roster('explain', 'bob', 'approve', 'expense:taxi', 'roster.yaml');
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain(
      'user set approvers × resource set within-limit (rule: approvers can expense:approve on within-limit)',
    );
    expect(yes.stdout).toContain('user set approvers: user.level greater-than-equals 2 (user.level = 2, stored)');
    const no = await roster('explain', 'bob', 'approve', 'expense:laptop', 'roster.yaml');
    expect(no.code).toBe(1);
    expect(no.stdout).toContain('bob cannot expense:approve on expense:laptop');
    expect(no.stdout).toContain(
      'resource set within-limit: resource.amount less-than-equals user.approval_limit (resource.amount = 1800, stored; user.approval_limit = 1000, stored)',
    );
  });

  it('export writes the attribute-based policy and plans back to no changes, with --prune too', async () => {
    expect((await roster('export', '--out', 'exported')).code).toBe(0);
    const text = readFileSync(path.join(env.dir, 'exported/roster.yaml'), 'utf8');
    expect(text).toContain('  - {user_set: approvers, can: approve, resource_set: within-limit}');
    expect(text).toContain('  - {role: auditor, can: view, resource: expense}');
    expect(text).toContain('        - resource.amount: {less-than-equals: {ref: user.approval_limit}}');
    for (const flags of [[], ['--prune']]) {
      const r = await roster('plan', 'exported', ...flags, '--detailed-exitcode');
      expect(r.stdout).toContain('No changes.');
      expect(r.code).toBe(0);
    }
  });

  it("an edit of one user's attribute shows the permissions lost, by set rule, and fails the assertions it breaks", async () => {
    env.write(
      'edited.yaml',
      EXAMPLE.replace(
        'attributes: { level: 2, approval_limit: 1000, region: eu }',
        'attributes: { level: 1, approval_limit: 1000, region: eu }',
      ),
    );
    const plan = await roster('plan', 'edited.yaml');
    expect(changeLines(plan.stdout)).toEqual(['~ user:bob']);
    expect(plan.stdout).toContain(
      "-bob loses expense:approve on expense:taxi: user set approvers × resource set within-limit, after bob's level changed",
    );
    expect(plan.stdout).toContain(
      "-bob loses expense:view on expense:offsite: user set approvers × every expense, after bob's level changed",
    );
    // bob still sees the EU expenses through eu-staff: no loss is claimed there.
    expect(plan.stdout).not.toMatch(/bob loses expense:view on expense:(taxi|laptop)/);
    expect(plan.stdout).toContain('FAIL edited.yaml:93: bob can approve on expense:taxi');
    const json = JSON.parse((await roster('plan', 'edited.yaml', '--format', 'json')).stdout);
    expect(json.access.abac).toMatchObject({ users: 1, gains: 0, losses: 2 });
    expect(json.access.abac.lines.map((l: { rule: string }) => l.rule).sort()).toEqual([
      'approvers_can_expense_approve_within-limit',
      'approvers_can_expense_view___autogen_expense',
    ]);
  });
});
