/**
 * Issue 40: `POST /authorized_users` for one instance at the 10,000-user scale (p50 target < 50 ms). The
 * generated environment (bench/generate.ts: 10,000 users, 1,000 nested groups, 2,000 instances, group
 * roles by type) with the folder tree (2,000 files in folders 4 deep, roles deriving down `parent`),
 * applied to `roster serve` (a process of its own, SQLite); then, over HTTP, `read` on files (holders
 * through derivations from folders, teams and nested groups) and on documents (tenant-wide roles, group
 * grants, direct roles), each asked `REPEAT` times.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchFigure, BenchResult } from './run.js';
import { generateEnvironment, toYaml } from './generate.js';
import { OPTS } from './access-plan.bench.js';
import { serveProcess } from './plan.bench.js';
import { median } from './stats.js';
import { createClient } from '../src/api/index.js';
import type { Target } from '../src/usecases/target.js';
import { applyPlan } from '../src/apply/apply.js';
import { planFromFiles } from '../src/usecases/workflow.js';

const KEY = 'bench-key-0123456789abcdef'; // serveProcess's key (plan.bench.ts)
const INSTANCES = 10;
const REPEAT = 20;

export async function run(): Promise<BenchResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-authorized-users-'));
  const server = await serveProcess(path.join(work, 'data'));
  try {
    const raw = generateEnvironment({ ...OPTS, groupRoles: 'by-type', folders: { documents: 2_000, depth: 4 } });
    const file = path.join(work, 'roster.yaml');
    writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));
    const client = createClient({
      baseUrl: server.url,
      apiKey: KEY,
      project: 'bench',
      environment: 'prod',
      pacing: 'none',
    });
    const target: Target = {
      kind: 'remote',
      url: server.url,
      where: server.url,
      project: 'bench',
      environment: 'prod',
      client,
      close: async () => {},
    };
    const { plan } = await planFromFiles([file], 'plan', {}, {}, async () => target);
    const applied = await applyPlan(plan, client, { concurrency: 8 });
    await client.close();
    if (applied.failed.length > 0) throw new Error(`apply failed: ${applied.failed[0].id}: ${applied.failed[0].error}`);

    const refs = Object.keys(raw.resource_instances ?? {});
    const pick = (type: string) =>
      refs.filter((r) => r.startsWith(`${type}:`)).filter((_, i, all) => i % Math.ceil(all.length / INSTANCES) === 0);
    const ask = async (ref: string) => {
      const [type, key] = [ref.slice(0, ref.indexOf(':')), ref.slice(ref.indexOf(':') + 1)];
      const tenant = (raw.resource_instances as Record<string, { tenant: string }>)[ref].tenant;
      const t0 = performance.now();
      const r = await fetch(`${server.url}/authorized_users?project=bench&environment=prod`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'read', resource: { type, key, tenant } }),
      });
      const body = (await r.json()) as { users: Record<string, unknown[]> };
      const ms = performance.now() - t0;
      if (r.status !== 200) throw new Error(`/authorized_users ${ref}: ${r.status} ${JSON.stringify(body)}`);
      return { ms, users: Object.keys(body.users).length };
    };
    const figures: BenchFigure[] = [];
    const notes: string[] = [
      `load average (1 / 5 / 15 min) at the start: ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' / ')} on ${os.cpus().length} cores`,
    ];
    for (const [type, what] of [
      ['file', 'a file (holders through derivations from folders, teams, nested groups)'],
      ['document', 'a document (tenant-wide roles, group grants, direct roles)'],
    ] as const) {
      const chosen = pick(type);
      await ask(chosen[0]); // warm: the environment's rules and the first statements' plans
      const times: number[] = [];
      const sizes: number[] = [];
      for (let i = 0; i < REPEAT; i++)
        for (const ref of chosen) {
          const { ms, users } = await ask(ref);
          times.push(ms);
          sizes.push(users);
        }
      times.sort((a, b) => a - b);
      figures.push(
        { name: `/authorized_users p50, ${what}`, value: median(times), unit: 'ms', target: { op: '<', value: 50 } },
        { name: `/authorized_users p95, ${what}`, value: times[Math.floor(times.length * 0.95)], unit: 'ms' },
        { name: `users listed (median), ${what}`, value: median(sizes), unit: 'users' },
        { name: `users listed (most), ${what}`, value: Math.max(...sizes), unit: 'users' },
      );
    }
    notes.push(
      `${INSTANCES} instances of each type, each asked ${REPEAT} times over HTTP (the client's time: request, decision, JSON of the answer). 10,000 users, 1,000 groups, 2,000 documents and 2,000 files in folders 4 deep, applied with the plan.`,
    );
    return {
      name: 'authorized-users',
      description:
        'Issue 40: `POST /authorized_users` for one instance at the 10,000-user scale (roster serve, SQLite).',
      figures,
      notes,
    };
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}
