import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { cliEntry, ROOT } from '../helpers/cli.js';
import { changeLines, liveCounts, loadDesired, ORG_KEY, startEnv, type Env } from './helpers.js';

/**
 * Apply killed with SIGKILL half-way (after some changes landed), then run again: the second apply
 * re-plans from the live state, finishes, and the service holds exactly the configuration, nothing twice.
 */
const SIZE = { users: 1000, groups: 100, maxDepth: 3, instances: 60, memberships: 1500, tenants: 4, seed: 11 };

// Spawned CLIs and a busy machine: a test may take well over the default 30 s.
describe('kill during apply', { timeout: 180_000 }, () => {
  let env: Env;
  let file: string;
  beforeAll(async () => {
    env = await startEnv();
    file = env.write('roster.yaml', toYaml(generateEnvironment(SIZE) as never));
  });
  afterAll(async () => {
    await env?.close();
  });

  it('re-running apply after kill -9 converges, without duplicates', async () => {
    // Killed once some changes have landed (users come first, so this is early in the apply). A big apply
    // prints no line per change, so the service is asked: its user count.
    const killed = await new Promise<{ signal: NodeJS.Signals | null; done: number }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [...cliEntry(), 'apply', '--yes', file, '--api-url', env.server.url, '--project', 'p', '--env', 'e'],
        {
          cwd: env.dir,
          env: { ...process.env, ROSTER_API_KEY: ORG_KEY, CI: 'true', NO_COLOR: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let done = 0;
      child.stderr.resume();
      const poll = setInterval(async () => {
        const r = await env.server.call('GET', '/v2/facts/p/e/users?per_page=1').catch(() => undefined);
        done = Number(r?.body?.total_count ?? 0);
        if (done >= 150 && child.exitCode === null) child.kill('SIGKILL');
      }, 50);
      child.on('error', reject);
      child.on('close', (_code, signal) => {
        clearInterval(poll);
        resolve({ signal, done });
      });
    });
    expect(killed.signal).toBe('SIGKILL');

    const desired = await loadDesired(file);
    expect((await liveCounts(env)).users).toBeGreaterThan(0);

    const again = await env.roster('apply', '--yes', 'roster.yaml');
    expect(again.stderr).not.toContain('FAILED');
    expect(again.code).toBe(0);
    // The first apply was cut short: the second found work left.
    expect(changeLines(again.stdout).length).toBeGreaterThan(0);
    const plan = await env.roster('plan', '--detailed-exitcode', 'roster.yaml');
    expect(plan.code).toBe(0);

    const users = [...desired.users.values()];
    const groups = [...desired.groups.values()];
    expect(await liveCounts(env)).toEqual({
      users: desired.users.size,
      tenants: desired.tenants.size + 1, // and `default`, which the environment came with
      assignments: users.reduce((n, u) => n + u.roles.length, 0) + groups.reduce((n, g) => n + g.members.length, 0),
      instances: desired.resourceInstances.size + desired.groups.size,
      groups: desired.groups.size,
    });
  });
});
