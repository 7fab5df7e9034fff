import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { planChanges } from '../../src/plan/plan.js';
import { changeLines, loadDesired, ORG_KEY, startEnv, type Env } from './helpers.js';
import { SMALL } from './fixtures.js';

/**
 * Deleting, through the CLI against the real server: only with --prune, only in the sections the
 * configuration has, in reverse dependency order, and never more than --max-deletes allows. The server
 * starts with SMALL applied (in process) plus a tenant made elsewhere.
 */
// Spawned CLIs and a busy machine: a test may take well over the default 30 s.
describe.sequential('prune', { timeout: 120_000 }, () => {
  let env: Env;
  const outputs: string[] = [];
  const roster = async (...args: string[]) => {
    const r = await env.roster(...args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };

  beforeAll(async () => {
    env = await startEnv();
    const { client } = env.client();
    const result = await applyPlan(
      planChanges(await loadDesired(env.write('roster.yaml', SMALL)), await readLiveState(client), {
        project: 'p',
        environment: 'e',
      }),
      client,
    );
    expect(result.failed).toEqual([]);
    expect((await env.server.facts('POST', '/tenants', { key: 'elsewhere', name: 'Made elsewhere' })).status).toBe(200);
  });
  afterAll(async () => {
    for (const out of outputs) expect(out).not.toContain(ORG_KEY);
    await env?.close();
  });

  it('deletes only with --prune, and only in the sections the configuration has', async () => {
    // No users, instances or groups sections: none of those is ever deleted, even with --prune.
    env.write('partial.yaml', SMALL.slice(0, SMALL.indexOf('users:')));
    const [plain, pruning] = await Promise.all([
      roster('plan', 'partial.yaml', '--detailed-exitcode'),
      roster('plan', 'partial.yaml', '--prune'),
    ]);
    expect(plain.code).toBe(0);
    expect(changeLines(pruning.stdout)).toEqual(['- tenant:elsewhere']);
  });

  it('with --prune, deletes what the configuration dropped, in reverse dependency order', async () => {
    const dropped = SMALL.replace(/resource_instances:[\s\S]*?groups:/, 'resource_instances: {}\ngroups:').replace(
      '    roles: [{ role: editor, on: document:readme }]\n',
      '',
    );
    const tenants = Array.from({ length: 12 }, (_, i) => `  t${String(i).padStart(2, '0')}: { name: T${i} }`).join(
      '\n',
    );
    env.write('dropped.yaml', dropped.replace('tenants:\n', `tenants:\n${tenants}\n`));
    const r = await roster('apply', 'dropped.yaml', '--prune', '--yes');
    expect(r.code).toBe(0);
    expect(changeLines(r.stdout).filter((l) => l.startsWith('-'))).toEqual([
      '- grant:team:eng:editor@document:readme',
      '- instance:document:readme',
      '- tenant:elsewhere',
    ]);
    expect(r.stdout).toContain('12 to create, 0 to update, 3 to delete.');
  });

  it('refuses a plan deleting more than --max-deletes (default: 25% of the managed live objects), naming the flag', async () => {
    env.write('few.yaml', 'version: 1\ntenants:\n  t00: { name: T0 }\n  acme: { name: Acme }\n');
    const refused = await roster('apply', 'few.yaml', '--prune', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: the plan deletes 11 objects, more than the limit of 3 (25% of the 13 managed live objects); review it, then raise the limit with --max-deletes 11 if it is intended',
    );
    // The plan it refuses is shown, for review.
    expect(changeLines(refused.stdout)).toHaveLength(11);
    expect((await env.server.facts('GET', '/tenants/t05')).status).toBe(200);
    const allowed = await roster('apply', 'few.yaml', '--prune', '--yes', '--max-deletes', '11');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('Applied 11 of 11 changes');
  });
});
