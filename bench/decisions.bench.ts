/**
 * The decision log (issue 30) on the generated 10,000-user environment (bench/generate.ts, as the plan
 * bench loads it): `/allowed` latency and throughput with the log and without it (the same data
 * directory, the server restarted with `decisionLog: false`, rounds alternated so that the shared
 * machine's noise falls on both), then `plan --replay` of 10,000 logged decisions after a 1% edit: its
 * time and the requests it sends (the client's own counters).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import type { BenchFigure, BenchResult } from './run.js';
import { generateEnvironment, moveMemberships, prng, toYaml, type RawConfigObject } from './generate.js';
import { createClient, type ApiClient } from '../src/api/index.js';
import { startServer, type RunningServer } from '../src/server/listen.js';
import type { Target } from '../src/usecases/target.js';
import { applyPlan } from '../src/apply/apply.js';
import { replayPlan } from '../src/usecases/replay.js';
import { readRecentDecisions } from '../src/api/read-audit-logs.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'bench-key-0123456789abcdef';
const CHECKS = 4000;
const ROUNDS = 3;
// (throughput runs over all CHECKS; the sequential latency over the first half)
const REPLAYED = 10_000;

type Check = { user: { key: string }; action: string; resource: { type: string; key: string } };

export async function run(): Promise<BenchResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-decisions-'));
  const raw = generateEnvironment({
    users: 10_000,
    groups: 1_000,
    maxDepth: 8,
    instances: 2_000,
    memberships: 20_000,
    tenants: 5,
    seed: 7,
    groupRoles: 'by-type',
  });
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  const file = path.join(work, 'config', 'roster.yaml');
  mkdirSync(path.dirname(file));
  const data = path.join(work, 'data');
  const start = (log: boolean) =>
    startServer({
      dataDir: data,
      port: 0,
      orgKey: KEY,
      environments: [{ project: 'bench', env: 'prod' }],
      ...(log ? {} : { decisionLog: false as const }),
    });
  try {
    // Load the environment (log on: the apply asks no decisions here).
    let server = await start(true);
    writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));
    let client = newClient(server.url);
    const first = await planOnce(file, server.url, client);
    const applied = await applyPlan(first.plan, client, { concurrency: 8 });
    if (applied.failed.length > 0) throw new Error(`apply failed: ${applied.failed[0].id}: ${applied.failed[0].error}`);
    await client.close();
    await server.close();

    // /allowed, without and with the log, alternating.
    const checks = sampleChecks(raw, CHECKS);
    const results: Record<'off' | 'on', { p50: number[]; tput: number[]; cpu: number[] }> = {
      off: { p50: [], tput: [], cpu: [] },
      on: { p50: [], tput: [], cpu: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['off', 'on'] as const) {
        server = await start(mode === 'on');
        try {
          const r = await measureAllowed(server, checks);
          results[mode].p50.push(r.p50);
          results[mode].tput.push(r.perSecond);
          results[mode].cpu.push(r.cpuMs);
        } finally {
          await server.close();
        }
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const off = { p50: med(results.off.p50), tput: med(results.off.tput), cpu: med(results.off.cpu) };
    const on = { p50: med(results.on.p50), tput: med(results.on.tput), cpu: med(results.on.cpu) };
    figures.push(
      { name: '/allowed p50 without the log (sequential)', value: off.p50, unit: 'ms' },
      { name: '/allowed p50 with the log (sequential)', value: on.p50, unit: 'ms' },
      {
        name: '/allowed p50 with the log / without',
        value: on.p50 / off.p50,
        unit: 'x',
        target: { op: '<=', value: 1.2 },
      },
      { name: '/allowed throughput without the log (8 in flight)', value: off.tput, unit: 'checks/s' },
      { name: '/allowed throughput with the log (8 in flight)', value: on.tput, unit: 'checks/s' },
      {
        name: '/allowed throughput without / with the log',
        value: off.tput / on.tput,
        unit: 'x',
        target: { op: '<=', value: 1.2 },
      },
      { name: '/allowed CPU per check without the log (server + client, 8 in flight)', value: off.cpu, unit: 'ms' },
      { name: '/allowed CPU per check with the log (server + client, 8 in flight)', value: on.cpu, unit: 'ms' },
      {
        name: '/allowed CPU per check with the log / without',
        value: on.cpu / off.cpu,
        unit: 'x',
        target: { op: '<=', value: 1.2 },
      },
    );
    notes.push(
      `/allowed: ${CHECKS} checks a run (half through a membership's grant), ${ROUNDS} rounds each way alternated; medians. Raw p50s off ${results.off.p50.map((x) => x.toFixed(3)).join(', ')} / on ${results.on.p50.map((x) => x.toFixed(3)).join(', ')} ms.`,
    );

    // plan --replay of 10,000 logged decisions, after a 1% membership edit.
    server = await start(true);
    try {
      const replayChecks = sampleChecks(raw, REPLAYED, 99);
      const pool = new Pool(server.url, { connections: 4 });
      for (let i = 0; i < replayChecks.length; i += 1000) {
        const res = await pool.request({
          method: 'POST',
          path: '/allowed/bulk?project=bench&environment=prod',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(replayChecks.slice(i, i + 1000)),
        });
        await res.body.text();
      }
      await pool.close();
      moveMemberships(raw, 200);
      writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));
      client = newClient(server.url);
      const edit = await planOnce(file, server.url, client);
      const before = client.counters().requests;
      // The read alone, then the whole replay (read + decide again) as plan --replay runs it.
      let t = performance.now();
      await readRecentDecisions(
        client,
        { project: 'bench', environment: 'prod' },
        { since: new Date(Date.now() - 86_400_000), until: new Date() },
      );
      const readMs = performance.now() - t;
      const requests = client.counters().requests - before;
      t = performance.now();
      const replay = await replayPlan({
        target: target(server.url, client),
        live: edit.live,
        plan: edit.plan,
        since: new Date(Date.now() - 86_400_000),
        now: new Date(),
      });
      const ms = performance.now() - t;
      await client.close();
      figures.push(
        {
          name: 'replay of 10,000 logged decisions (read + decide again), 10,000-user environment',
          value: ms / 1000,
          unit: 's',
        },
        { name: 'replay: reading the 10,000 decisions (100 pages, 4 at a time)', value: readMs / 1000, unit: 's' },
        {
          name: 'replay: requests (audit-log pages of 100)',
          value: requests,
          unit: 'requests',
          target: { op: '<=', value: 100 },
        },
        {
          name: 'replay: seconds those requests need at the public rate limits (1,000/min, a third at once)',
          value: paceSeconds(requests),
          unit: 's',
        },
      );
      notes.push(
        `replay: ${replay.read} decisions read, ${replay.distinct} distinct, ${replay.changes.length} change under the 1% edit (${edit.plan.changes.length} changes), ${replay.disagreements.length} disagreements, ${replay.unreplayable.length} unreplayable reasons.`,
      );
    } finally {
      await server.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    name: 'decisions',
    description:
      'The decision log (issue 30): /allowed with and without it, and plan --replay of 10,000 logged decisions on the 10,000-user environment.',
    figures,
    notes,
  };
}

/** Half uniformly random (mostly denied), half a member's group grant (allowed). */
function sampleChecks(raw: RawConfigObject, n: number, seed = 31): Check[] {
  const rnd = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const users = Object.keys(raw.users);
  const instances = Object.keys(raw.resource_instances);
  const withGrants = Object.entries(raw.groups).filter(
    ([, g]) => (g.members?.length ?? 0) > 0 && (g.roles?.length ?? 0) > 0,
  );
  const check = (user: string, instance: string): Check => {
    const [type, key] = [instance.slice(0, instance.indexOf(':')), instance.slice(instance.indexOf(':') + 1)];
    return { user: { key: user }, action: pick(raw.resources[type]?.actions ?? ['read']), resource: { type, key } };
  };
  return Array.from({ length: n }, (_, i) => {
    if (i % 2 === 0) return check(pick(users), pick(instances));
    const [, g] = pick(withGrants);
    return check(pick(g.members!), pick(g.roles!).on);
  });
}

async function measureAllowed(
  server: RunningServer,
  checks: Check[],
): Promise<{ p50: number; perSecond: number; cpuMs: number }> {
  const pool = new Pool(server.url, { connections: 8, pipelining: 1 });
  const call = async (c: Check) => {
    const res = await pool.request({
      method: 'POST',
      path: '/allowed?project=bench&environment=prod',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(c),
    });
    await res.body.text();
  };
  const inFlight = async (list: Check[]) => {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < list.length) await call(list[next++]);
      }),
    );
    return list.length / ((performance.now() - t) / 1000);
  };
  try {
    // Warm: every connection open, the statements prepared, the JIT settled.
    await inFlight(checks.slice(0, 1000));
    for (const c of checks.slice(0, 300)) await call(c);
    const lat: number[] = [];
    for (const c of checks.slice(0, CHECKS / 2)) {
      const t = performance.now();
      await call(c);
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    const cpu0 = process.cpuUsage();
    const perSecond = await inFlight(checks);
    const cpu = process.cpuUsage(cpu0);
    return { p50: lat[Math.floor(lat.length / 2)], perSecond, cpuMs: (cpu.user + cpu.system) / 1000 / checks.length };
  } finally {
    await pool.close();
  }
}

/** The public limit of 1,000 requests a minute with a third at once (src/api/pacing.ts PUBLIC_LIMITS, 90% headroom). */
function paceSeconds(requests: number): number {
  const limit = Math.floor(1000 * 0.9);
  const burst = Math.floor(limit / 3);
  return requests <= burst ? 0 : ((requests - burst) * 60) / (limit - burst);
}

const target = (url: string, client: ApiClient): Target => ({
  kind: 'remote',
  url,
  where: url,
  project: 'bench',
  environment: 'prod',
  client,
  close: async () => {},
});

async function planOnce(file: string, url: string, client: ApiClient) {
  const { planFromFiles } = (await import(
    pathToFileURL(path.join(ROOT, 'dist/usecases/workflow.js')).href
  )) as typeof import('../src/usecases/workflow.js');
  return planFromFiles([file], 'plan', {}, { access: {} }, async () => target(url, client));
}

function newClient(url: string): ApiClient {
  return createClient({ baseUrl: url, apiKey: KEY, project: 'bench', environment: 'prod', pacing: 'none' });
}
