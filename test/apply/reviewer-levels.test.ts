import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { planChanges } from '../../src/plan/plan.js';
import { changeLines, loadDesired, startEnv, type Env } from './helpers.js';

/**
 * `reviewer_roles` against a live configuration whose reviewers sit at LEVEL_2 (docs/config.md,
 * "access_requests"): holders of LEVEL_1 and LEVEL_2 roles review, so both are read as reviewer roles;
 * an update changes only the reviewer roles, leaving a LEVEL_2 reviewer where it is and LEVEL_3/LEVEL_4
 * as they were; and the plan after an apply is empty. Against the real server.
 */
const OPTIONS = { project: 'p', environment: 'e' };
const ROLES = ['admin', 'manager', 'auditor', 'viewer'];

let env: Env;
beforeEach(async () => {
  env = await startEnv();
  for (const key of ROLES)
    expect((await env.server.schema('POST', '/roles', { key, name: key, permissions: [] })).status).toBe(200);
  const made = await env.server.call('POST', '/v2/elements/p/e/config', {
    key: 'default',
    name: 'Default',
    elements_type: 'user_management',
    settings: {},
    roles_to_levels: { LEVEL_1: ['admin'], LEVEL_2: ['manager'], LEVEL_3: ['auditor'], LEVEL_4: ['viewer'] },
  });
  expect(made.status).toBeLessThan(300);
});
afterEach(async () => {
  await env?.close();
});

const config = (reviewers: string[], name = 'Default') =>
  `roles: { ${ROLES.map((r) => `${r}: {}`).join(', ')} }\naccess_requests:\n  default: { name: ${name}, reviewer_roles: [${reviewers.join(', ')}] }\n`;

/** The configuration's levels as the service keeps them, by role key. */
async function levels(): Promise<Record<string, string[]>> {
  const r = await env.server.call('GET', '/v2/elements/p/e/config/default');
  return Object.fromEntries(
    Object.entries(r.body.roles_to_levels as Record<string, { key: string }[]>).map(([l, rs]) => [
      l,
      rs.map((x) => x.key).sort(),
    ]),
  );
}

async function planFor(reviewers: string[], name?: string) {
  const { client } = env.client();
  const desired = await loadDesired(env.write('roster.yaml', config(reviewers, name)));
  return { client, desired, plan: planChanges(desired, await readLiveState(client), OPTIONS) };
}

describe('reviewer roles at LEVEL_1 and LEVEL_2', { timeout: 120_000 }, () => {
  it('a LEVEL_2 reviewer is read as a reviewer role', async () => {
    const { client } = env.client();
    const live = await readLiveState(client);
    expect(live.accessRequests.get('default')).toEqual({
      key: 'default',
      name: 'Default',
      reviewerRoles: ['admin', 'manager'],
    });
  });

  it('a configuration that does not name the LEVEL_2 reviewer plans its removal; the apply removes it and keeps LEVEL_3/LEVEL_4; the next plan is empty', async () => {
    const { client, desired, plan } = await planFor(['admin']);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        id: 'access_requests:default',
        action: 'update',
        fields: [{ field: 'reviewer_roles', before: ['admin', 'manager'], after: ['admin'] }],
      }),
    ]);
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    expect(await levels()).toEqual({ LEVEL_1: ['admin'], LEVEL_2: [], LEVEL_3: ['auditor'], LEVEL_4: ['viewer'] });
    expect(planChanges(desired, await readLiveState(client), OPTIONS).changes).toEqual([]);
  });

  it('the text plan shows the LEVEL_2 reviewer leaving', async () => {
    env.write('roster.yaml', config(['admin']));
    const r = await env.roster('plan', 'roster.yaml');
    expect(r.code, r.stderr).toBe(0);
    expect(changeLines(r.stdout)).toEqual(['~ access_requests:default']);
    expect(r.stdout).toContain('reviewer_roles: -manager');
  });

  it('a configuration that names the LEVEL_2 reviewer plans nothing for it; a rename leaves it at LEVEL_2', async () => {
    expect((await planFor(['admin', 'manager'])).plan.changes).toEqual([]);
    const { client, desired, plan } = await planFor(['admin', 'manager'], 'Renamed');
    expect(
      plan.changes.map((c) => [c.id, c.action, c.action === 'update' ? c.fields.map((f) => f.field) : []]),
    ).toEqual([['access_requests:default', 'update', ['name']]]);
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    expect(await levels()).toEqual({
      LEVEL_1: ['admin'],
      LEVEL_2: ['manager'],
      LEVEL_3: ['auditor'],
      LEVEL_4: ['viewer'],
    });
    expect(planChanges(desired, await readLiveState(client), OPTIONS).changes).toEqual([]);
  });

  it('a new reviewer role goes to LEVEL_1, even one held at LEVEL_3 (which does not review)', async () => {
    const { client, desired, plan } = await planFor(['auditor', 'manager']);
    expect(plan.changes).toEqual([
      expect.objectContaining({
        action: 'update',
        fields: [{ field: 'reviewer_roles', before: ['admin', 'manager'], after: ['auditor', 'manager'] }],
      }),
    ]);
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    expect(await levels()).toEqual({
      LEVEL_1: ['auditor'],
      LEVEL_2: ['manager'],
      LEVEL_3: ['auditor'],
      LEVEL_4: ['viewer'],
    });
    expect(planChanges(desired, await readLiveState(client), OPTIONS).changes).toEqual([]);
  });
});
