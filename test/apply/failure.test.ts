import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { changeLines, ORG_KEY, startEnv, type Env } from './helpers.js';

/**
 * A change the configuration accepts but the service refuses: a tenant with more attributes than the
 * service takes (1,000; the configuration sets no limit). Its dependents are skipped, independent
 * changes land, apply exits 1 listing the failure with the service's error; once fixed, apply converges.
 */
const attributes = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`a${i}`, i]));
const config = (bad: Record<string, unknown>) => `version: 1
resources:
  document: { actions: [read] }
roles:
  viewer: { permissions: [document:read] }
tenants:
  good: { name: Good }
  bad: ${JSON.stringify({ name: 'Bad', ...bad })}
users:
  alice: { roles: [{ role: viewer, tenant: bad }, { role: viewer, tenant: good }] }
  bob: { tenants: [bad] }
resource_instances:
  document:in-good: { tenant: good }
  document:in-bad: { tenant: bad }
groups:
  team:in-bad: { tenant: bad, members: [alice], roles: [{ role: viewer, on: document:in-bad }] }
`;

// Spawned CLIs and a busy machine: a test may take well over the default 30 s.
describe('partial failure', { timeout: 120_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('skips the dependents of a refused change, applies the rest, exits 1 naming each failure with its API error', async () => {
    env.write('roster.yaml', config({ attributes }));
    const r = await env.roster('apply', '--yes');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Applied 8 of 16 changes');
    expect(r.stdout).toContain('1 failed, 7 skipped.');
    expect(r.stdout).toMatch(
      / {2}failed tenant:bad: POST \/v2\/facts\/p\/e\/tenants answered 422 VALIDATION_ERROR: body.attributes: must NOT have more than 1000 properties \(request [0-9a-f-]+\)\n/,
    );
    const skipped = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('  skipped '))
      .map((l) => l.trim());
    expect(skipped).toEqual([
      'skipped tenant_user:alice@bad: depends on tenant:bad',
      'skipped tenant_user:bob@bad: depends on tenant:bad',
      'skipped instance:document:in-bad: depends on tenant:bad',
      'skipped group:team:in-bad: depends on tenant:bad',
      'skipped assignment:alice:viewer@bad: depends on tenant:bad',
      'skipped member:alice@team:in-bad: depends on group:team:in-bad',
      'skipped grant:team:in-bad:viewer@document:in-bad: depends on group:team:in-bad',
    ]);
    expect(r.stdout).toContain('Fix the failures and run apply again');
    expect(r.stdout + r.stderr).not.toContain(ORG_KEY);
    // What did not depend on the refused tenant landed.
    expect((await env.server.facts('GET', '/resource_instances/document:in-good')).status).toBe(200);
    expect((await env.server.facts('GET', '/users/alice')).body.associated_tenants).toEqual([
      { tenant: 'good', roles: ['viewer'], status: 'active' },
    ]);
  });

  it('once the configuration is fixed, apply carries out what is left and the plan is empty', async () => {
    env.write('roster.yaml', config({ attributes: { region: 'eu' } }));
    const r = await env.roster('apply', '--yes');
    expect(r.code).toBe(0);
    expect(changeLines(r.stdout)).toEqual([
      '+ tenant:bad',
      '+ tenant_user:alice@bad',
      '+ tenant_user:bob@bad',
      '+ instance:document:in-bad',
      '+ group:team:in-bad',
      '+ assignment:alice:viewer@bad',
      '+ member:alice@team:in-bad',
      '+ grant:team:in-bad:viewer@document:in-bad',
    ]);
    expect((await env.roster('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('a refused key is reported without the key', async () => {
    const key = 'wrong-key-that-must-not-leak-0123456789';
    const r = await runCli(['plan', '--api-url', env.server.url, '--project', 'p', '--env', 'e'], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: key },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: the service refused a request: GET \/v2\/\S+ answered 401/);
    expect(r.stdout + r.stderr).not.toContain(key);
  });
});
