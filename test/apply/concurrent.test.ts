import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply.js';
import { applyExitCode, applyJson, renderApplySummary } from '../../src/apply/summary.js';
import { readLiveState } from '../../src/api/read-live.js';
import { planChanges } from '../../src/plan/plan.js';
import { runCli } from '../helpers/cli.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { noJitterEnv } from '../helpers/no-jitter.js';
import { SMALL } from './fixtures.js';
import { loadDesired, ORG_KEY, startEnv, type Env } from './helpers.js';

const OPTIONS = { project: 'p', environment: 'e' };

/** Concurrent and repeated applies: what another apply did first counts as done; a race is reported. */
describe('concurrent applies', { timeout: 180_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ projects: ['same', 'race409', 'conflict', 'shared', 'unverified'] });
  });
  afterAll(async () => env?.close());

  it('two applies of the same configuration at once both exit 0, and the environment converges', async () => {
    env.write('roster.yaml', SMALL);
    // Each apply's first write is held until both have planned and reached it: both planned against
    // the empty environment, and their writes then interleave.
    let arrived = 0;
    let both!: () => void;
    const together = new Promise<void>((r) => (both = r));
    const holdFirstWrite = () => {
      let held = false;
      return (r: { method: string }) => {
        if (r.method === 'GET' || held) return undefined;
        held = true;
        if (++arrived === 2) both();
        return { kind: 'hold' as const, until: together };
      };
    };
    const proxies = await Promise.all([
      startFaultProxy(env.server.url, holdFirstWrite()),
      startFaultProxy(env.server.url, holdFirstWrite()),
    ]);
    try {
      const run = (url: string, ...extra: string[]) =>
        runCli(['apply', '--yes', ...extra, '--api-url', url, '--project', 'same', '--env', 'e'], {
          cwd: env.dir,
          env: { ROSTER_API_KEY: ORG_KEY },
          timeoutMs: 120_000,
        });
      const [a, b] = await Promise.all([run(proxies[0].url), run(proxies[1].url, '--format', 'json')]);
      for (const r of [a, b]) {
        expect(r.stderr).not.toContain('FAILED');
        expect(r.code, r.stdout + r.stderr).toBe(0);
      }
      expect(a.stdout).toMatch(/Applied 15 of 15 changes in/);
      const json = JSON.parse(b.stdout) as {
        applied: string[];
        alreadyThere: string[];
        failed: unknown[];
        conflict: boolean;
      };
      expect(json).toMatchObject({ failed: [], conflict: false });
      expect(json.applied).toHaveLength(15);
      // Whoever came second met the other's objects: counted as done, and said so.
      const met =
        json.alreadyThere.length +
        (a.stdout.match(/(\d+) of them were already there/)?.[1]
          ? Number(a.stdout.match(/(\d+) of them were already there/)![1])
          : 0);
      expect(met).toBeGreaterThan(0);
    } finally {
      both();
      for (const p of proxies) await p.close();
    }
    const plan = await runCli(
      ['plan', '--detailed-exitcode', '--api-url', env.server.url, '--project', 'same', '--env', 'e'],
      { cwd: env.dir, env: { ROSTER_API_KEY: ORG_KEY } },
    );
    expect(plan.code).toBe(0);
  });

  it('a create that meets 409 and a delete that meets 404 count as done', async () => {
    const { client } = env.client('race409');
    const desired = await loadDesired(env.write('roster.yaml', SMALL));
    const plan = planChanges(desired, await readLiveState(client), { ...OPTIONS, project: 'race409' });
    // "Another apply" makes the resource and the tenant between this plan and its apply.
    const other = env.client('race409').client;
    await other.post('/v2/schema/race409/e/resources', {
      key: 'document',
      name: 'Document',
      actions: { read: {}, write: {} },
    });
    await other.post('/v2/facts/race409/e/tenants', { key: 'acme', name: 'Acme' });
    const created = await applyPlan(plan, client);
    expect(created.failed).toEqual([]);
    expect(created.skipped).toEqual([]);
    expect(created.alreadyThere.sort()).toEqual(['resource:document', 'tenant:acme']);
    expect(created.done).toHaveLength(plan.changes.length);

    const emptied = await loadDesired(env.write('empty.yaml', 'users: {}\n'));
    const prune = planChanges(emptied, await readLiveState(client), { ...OPTIONS, project: 'race409', prune: true });
    expect(prune.changes.map((c) => c.id).sort()).toEqual(['user:alice', 'user:bob']);
    await other.delete('/v2/facts/race409/e/users/alice');
    const deleted = await applyPlan(prune, client);
    expect(deleted.failed).toEqual([]);
    expect(deleted.done.sort()).toEqual(['user:alice', 'user:bob']);
  });

  it('two different configurations at once, --verify=full: the apply whose writes land on a state it did not plan for reports a conflict', async () => {
    const cli = (url: string, ...args: string[]) =>
      runCli([...args, '--api-url', url, '--project', 'conflict', '--env', 'e'], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY },
        timeoutMs: 120_000,
      });
    env.write('roster.yaml', SMALL);
    expect((await cli(env.server.url, 'apply', '--yes')).code).toBe(0);
    // A renames the viewer role and adds dave; B removes bob (with --prune) and renames the viewer role.
    env.write(
      'a.yaml',
      SMALL.replace('Viewer', 'Viewer A').replace('users:\n', 'users:\n  dave: { tenants: [acme] }\n'),
    );
    env.write(
      'b.yaml',
      SMALL.replace('Viewer', 'Viewer B')
        .replace(/  bob: .*\n/, '')
        .replace('members: [alice, bob]', 'members: [alice]'),
    );
    // A's first write is held at the proxy until B has applied in full: A planned before B wrote.
    let release!: () => void;
    let firstWrite!: () => void;
    const bDone = new Promise<void>((r) => (release = r));
    const aWriting = new Promise<void>((r) => (firstWrite = r));
    let held = false;
    const proxy = await startFaultProxy(env.server.url, (r) => {
      if (r.method === 'GET' || held) return undefined;
      held = true;
      firstWrite();
      return { kind: 'hold', until: bDone };
    });
    try {
      // B changes bob, whom A does not touch: only a whole read again sees it.
      const a = cli(proxy.url, 'apply', 'a.yaml', '--yes', '--verify', 'full');
      await aWriting;
      const b = await cli(env.server.url, 'apply', 'b.yaml', '--yes', '--prune');
      expect(b.code, b.stdout + b.stderr).toBe(0);
      release();
      const done = await a;
      expect(done.code).toBe(1);
      expect(done.stdout).toContain('Conflict: the environment changed while this apply ran');
      expect(done.stdout).toContain('user:bob');
      expect(done.stdout).toContain('Run roster plan to see the environment as it is now');
    } finally {
      release();
      await proxy.close();
    }
  });

  it('two different configurations at once: another apply that changes what this apply wrote before it is read again is a conflict, seen in a few reads', async () => {
    const cli = (url: string, ...args: string[]) =>
      runCli([...args, '--api-url', url, '--project', 'shared', '--env', 'e'], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY },
        timeoutMs: 120_000,
      });
    env.write('roster.yaml', SMALL);
    expect((await cli(env.server.url, 'apply', '--yes')).code).toBe(0);
    // A renames the viewer role and adds carol to the team; B, applied once A has written, renames it
    // again and leaves only alice in the team: A reads both back and finds them changed.
    env.write(
      'a.yaml',
      SMALL.replace('Viewer', 'Viewer A')
        .replace('users:\n', 'users:\n  carol: { tenants: [acme] }\n')
        .replace('members: [alice, bob]', 'members: [alice, bob, carol]'),
    );
    env.write('b.yaml', SMALL.replace('Viewer', 'Viewer B').replace('members: [alice, bob]', 'members: [alice]'));
    // A's reads after its writes (its verification) are held until B has applied in full.
    let release!: () => void;
    let verifying!: () => void;
    const bDone = new Promise<void>((r) => (release = r));
    const aVerifying = new Promise<void>((r) => (verifying = r));
    let wrote = false;
    let held = false;
    const sent: string[] = [];
    const proxy = await startFaultProxy(env.server.url, (r) => {
      if (wrote) sent.push(`${r.method} ${r.path}`);
      if (r.method !== 'GET') wrote = true;
      if (r.method !== 'GET' || !wrote) return undefined;
      if (!held) verifying();
      held = true;
      return { kind: 'hold', until: bDone };
    });
    try {
      // B took carol's access away again: the decision point would disagree with A's plan. A conflict fails
      // the apply, and the decision point is not asked about access the plan no longer describes (nor
      // waited for: --decision-wait is 15 s by default).
      const a = cli(proxy.url, 'apply', 'a.yaml', '--yes', '--format', 'json');
      await aVerifying;
      const b = await cli(env.server.url, 'apply', 'b.yaml', '--yes');
      expect(b.code, b.stdout + b.stderr).toBe(0);
      release();
      const done = await a;
      expect(done.code, done.stdout + done.stderr).toBe(1);
      const json = JSON.parse(done.stdout) as {
        conflict: boolean;
        leftover: string[];
        verification: { requests: number; full: boolean };
      };
      expect(json.conflict).toBe(true);
      expect(json.leftover.sort()).toEqual(['member:carol@team:eng', 'role:viewer']);
      expect(json.verification.full).toBe(false);
      // The resources and roles, carol's record and her assignments: four reads, not the whole environment.
      // (After them the apply reads back what changed for its snapshot, starting with the change history:
      // docs/plan.md "Incremental reads".)
      expect(json.verification.requests).toBe(4);
      const readBack = sent.findIndex((r) => /^GET \/v2\/(history|activity)\b/.test(r));
      const verification = readBack === -1 ? sent : sent.slice(0, readBack);
      expect(verification.filter((r) => r.startsWith('GET'))).toHaveLength(4);
      expect(done.stderr).toContain('Conflict: the environment changed while this apply ran');
      expect(json).not.toHaveProperty('decisions');
      expect(sent.filter((r) => r.includes('/allowed'))).toEqual([]);
    } finally {
      release();
      await proxy.close();
    }
  });

  it('a verification whose reads still fail after their retries is an error of its own: one error line, exit 4', async () => {
    env.write('roster.yaml', SMALL);
    // Behind a balancer, one of two servers gone: every read after the writes answers 502.
    let wrote = false;
    const proxy = await startFaultProxy(env.server.url, (r) => {
      if (r.method !== 'GET') wrote = true;
      return wrote && r.method === 'GET' ? { kind: 'status', status: 502 } : undefined;
    });
    try {
      // Jitter 0: the reads are retried as every read is, without waiting (test/README.md).
      const done = await runCli(['apply', '--yes', '--api-url', proxy.url, '--project', 'unverified', '--env', 'e'], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY, ...noJitterEnv() },
        timeoutMs: 120_000,
      });
      expect(done.code, done.stdout + done.stderr).toBe(4);
      expect(done.stdout).toMatch(/Applied 15 of 15 changes in/);
      const errors = done.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^error: the writes are done but could not be verified .*GET \/v2\/.* answered 502/);
      expect(done.stderr).not.toMatch(/^warning:/m);
      // Retried as every read is.
      const reads = proxy.seen.filter((r) => r.fault === 'status').map((r) => r.path);
      expect(reads.length).toBeGreaterThan(new Set(reads).size);
    } finally {
      await proxy.close();
    }
  });

  it('output stays bounded: the text lists the first failures and skips, --format json every id', () => {
    const result = {
      done: ['tenant:acme'],
      alreadyThere: [],
      failed: Array.from({ length: 30 }, (_, i) => ({
        id: `role:r${i}`,
        error: 'POST /v2/schema/p/e/roles answered 422',
      })),
      skipped: Array.from({ length: 6000 }, (_, i) => ({ id: `assignment:u${i}:r0@acme`, because: 'role:r0' })),
    };
    const outcome = { total: 6031, seconds: 2, result };
    const text = renderApplySummary(outcome);
    expect(text.split('\n')[0]).toBe('Applied 1 of 6,031 changes in 2.0s, 30 failed, 6,000 skipped.');
    expect(text.split('\n').filter((l) => l.startsWith('  failed '))).toHaveLength(10);
    expect(text.split('\n').filter((l) => l.startsWith('  skipped '))).toHaveLength(10);
    expect(text).toContain('  and 20 more failed (--format json lists them all)');
    expect(text).toContain('  and 5,990 more skipped (--format json lists them all)');
    expect(text.split('\n').length).toBeLessThan(30);
    const json = JSON.parse(applyJson(outcome)) as { failed: unknown[]; skipped: unknown[] };
    expect(json.failed).toHaveLength(30);
    expect(json.skipped).toHaveLength(6000);
    expect(applyExitCode(outcome)).toBe(1);
  });
});
