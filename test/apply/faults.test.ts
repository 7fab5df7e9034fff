import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { noJitterEnv } from '../helpers/no-jitter.js';
import { SMALL } from './fixtures.js';
import { ORG_KEY, startEnv, type Env } from './helpers.js';

/** The CLI through a fault-injecting proxy in front of the real server. */
describe('plan and apply through faults', { timeout: 180_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ projects: ['trunc', 'dies', 'restart'] });
    env.write('roster.yaml', SMALL);
  });
  afterAll(async () => env?.close());

  const cli = (url: string, project: string, ...args: string[]) =>
    runCli([...args, '--api-url', url, '--project', project, '--env', 'e'], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ORG_KEY },
      timeoutMs: 120_000,
    });
  /**
   * The same with jitter 0 (test/README.md): retries of a malformed answer follow each other at once. Not
   * for a service that refuses connections: that wait is counted in time (src/api/breaker.ts), and is tested.
   */
  const cliNoJitter = (url: string, project: string, ...args: string[]) =>
    runCli([...args, '--api-url', url, '--project', project, '--env', 'e'], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ORG_KEY, ...noJitterEnv() },
      timeoutMs: 120_000,
    });

  it('truncated read answers are retried, and the plan succeeds', async () => {
    expect((await cli(env.server.url, 'trunc', 'apply', '--yes')).code).toBe(0);
    const proxy = await startFaultProxy(env.server.url, (r) =>
      r.method === 'GET' && r.index % 3 === 0 ? { kind: 'truncate' } : undefined,
    );
    try {
      const plan = await cliNoJitter(proxy.url, 'trunc', 'plan', '--detailed-exitcode');
      expect(plan.stderr).not.toContain('internal error');
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(proxy.seen.filter((r) => r.fault === 'truncate').length).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('a read answer that stays malformed ends in one clear error naming the request, not an internal error', async () => {
    const proxy = await startFaultProxy(env.server.url, (r) =>
      r.path.endsWith('/roles') ? { kind: 'wrong-shape' } : undefined,
    );
    try {
      const plan = await cliNoJitter(proxy.url, 'trunc', 'plan');
      expect(plan.code).toBe(1);
      expect(plan.stderr).not.toContain('internal error');
      expect(plan.stderr).toMatch(
        /GET \/v2\/schema\/trunc\/e\/roles answered 200 MALFORMED_ANSWER: JSON of the wrong shape .* \(after 6 attempts\)/,
      );
    } finally {
      await proxy.close();
    }
  });

  it('a service that dies mid-apply ends the apply with what was applied, what was not tried, and exit 1', async () => {
    // The service answers the reads and the first four writes, then is gone for good.
    let writes = 0;
    const proxy = await startFaultProxy(env.server.url, (r) =>
      r.method !== 'GET' && ++writes > 4 ? { kind: 'die' } : undefined,
    );
    try {
      const applied = await cli(proxy.url, 'dies', 'apply', '--yes', '--concurrency', '2');
      expect(applied.code).toBe(1);
      expect(applied.stderr).not.toContain('internal error');
      expect(applied.stdout).toMatch(
        /Applied \d+ of 15 changes in [\d.]+s, \d+ failed(, \d+ skipped)?, \d+ not attempted\./,
      );
      // Gone for good: stopped once no answer came for 8 s (the breaker counts time as well as attempts).
      expect(applied.stdout).toMatch(
        /Stopped: .*the service stopped answering: \d+ attempts in a row over (8|9|\d\d) s got no answer \(last: ECONNREFUSED/,
      );
      expect(applied.stdout).toContain('Run apply again when the service answers');
      // Once stopped, no change is tried again: the failures are the few in flight when it stopped.
      const failed = Number(/, (\d+) failed/.exec(applied.stdout)![1]);
      expect(failed).toBeLessThanOrEqual(4);
    } finally {
      await proxy.close();
    }
    // Back (straight to the server): apply again converges.
    const again = await cli(env.server.url, 'dies', 'apply', '--yes');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect((await cli(env.server.url, 'dies', 'plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('a service restarting for 2 s mid-apply is waited out: the apply completes', async () => {
    // Issue #31: the breaker tripped on 10 refused attempts within a second; an apply now waits as a plan does.
    // Sixty users: eight writes in flight when the service goes, each refused at once.
    const users = Array.from({ length: 60 }, (_, i) => `  u${i}: { email: u${i}@acme.test, tenants: [acme] }`).join(
      '\n',
    );
    const file = env.write('restart.yaml', SMALL.replace('users:\n', `users:\n${users}\n`));
    let writes = 0;
    const proxy = await startFaultProxy(env.server.url, (r) =>
      r.method !== 'GET' && ++writes === 10 ? { kind: 'restart', downMs: 2_000 } : undefined,
    );
    try {
      const applied = await cli(proxy.url, 'restart', 'apply', file, '--yes', '--concurrency', '8');
      expect(applied.stdout + applied.stderr).not.toContain('stopped answering');
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      expect(applied.stdout).toMatch(/Applied 135 of 135 changes/);
      expect(proxy.seen.filter((r) => r.fault === 'restart')).toHaveLength(1);
    } finally {
      await proxy.close();
    }
    expect((await cli(env.server.url, 'restart', 'plan', file, '--detailed-exitcode')).code).toBe(0);
  });

  it('a truncated key-scope answer is reported as such, not as an unscoped key', async () => {
    const proxy = await startFaultProxy(env.server.url, (r) =>
      r.path === '/v2/api-key/scope' ? { kind: 'truncate' } : undefined,
    );
    try {
      const plan = await runCli(['plan', '--api-url', proxy.url], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY, ...noJitterEnv() },
        timeoutMs: 120_000,
      });
      expect(plan.code).toBe(1);
      expect(plan.stderr).toContain(
        'GET /v2/api-key/scope answered 200 MALFORMED_ANSWER: a body that is not valid JSON (truncated or garbled)',
      );
      expect(plan.stderr).not.toContain('not scoped');
    } finally {
      await proxy.close();
    }
  });
});
