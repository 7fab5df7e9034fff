/**
 * Latency mode (issue #12): `roster plan` as a user runs it against the public service, on the
 * 10,000-user environment. A proxy (bench/proxy.ts) between the CLI and a `roster serve` process adds
 * 50 ms to every request; the CLI paces itself to the public limits (`--pacing public`), as it does
 * against any remote host. Figures: a no-op plan and a 1% membership edit (wall time of the CLI process,
 * requests the proxy saw), and the cost of applying from empty and of the edit at the public limits.
 *
 * Two environments: `by-type` (teams hold the working role of each resource type; one group in 20 is a
 * squad holding any role) and `any` (every group any role: the worst case for reading group roles,
 * since every (group type, resource) pair then carries several roles and each group's roles are read).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchResult } from './run.js';
import {
  generateEnvironment,
  moveMemberships,
  toYaml,
  type GenerateOptions,
  type RawConfigObject,
} from './generate.js';
import { startProxy } from './proxy.js';
import { serveProcess } from './plan.bench.js';
import { createClient } from '../src/api/index.js';
import { readLiveState } from '../src/api/read-live.js';
import { applyPlan } from '../src/apply/apply.js';
import { dryRun, estimateApply, pacingSeconds } from '../src/apply/estimate.js';
import { PUBLIC_LIMITS } from '../src/api/index.js';
import { loadConfig } from '../src/config/index.js';
import { planChanges } from '../src/plan/plan.js';
import type { Plan } from '../src/plan/types.js';
import { costLine, duration } from '../src/plan/render-common.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'bench-key-0123456789abcdef';
const LATENCY_MS = 50;
const SIZE: GenerateOptions = {
  users: 10_000,
  groups: 1_000,
  maxDepth: 8,
  instances: 2_000,
  memberships: 20_000,
  tenants: 5,
  seed: 7,
};

export async function run(): Promise<BenchResult> {
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  const work = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-latency-'));
  try {
    for (const groupRoles of ['by-type', 'any'] as const) {
      const dir = path.join(work, groupRoles);
      mkdirSync(dir);
      const r = await scenario(dir, generateEnvironment({ ...SIZE, groupRoles }));
      const label = `${groupRoles} group roles`;
      const worst = groupRoles === 'any';
      figures.push(
        {
          name: `${label}: no-op plan at ${LATENCY_MS} ms, requests`,
          value: r.noop.requests,
          unit: 'requests',
          ...(worst ? {} : { target: { op: '<=', value: 250 } }),
        },
        {
          name: `${label}: no-op plan at ${LATENCY_MS} ms`,
          value: r.noop.seconds,
          unit: 's',
          ...(worst ? {} : { target: { op: '<', value: 15 } }),
        },
        {
          name: `${label}: no-op plan without added latency (roster plan, wall time; median of 3)`,
          value: r.direct,
          unit: 's',
          ...(worst ? {} : { target: { op: '<', value: 1 } }),
        },
      );
      if (!worst) {
        figures.push(
          {
            name: `${label}: 1% membership edit, plan at ${LATENCY_MS} ms, requests`,
            value: r.edit.requests,
            unit: 'requests',
            target: { op: '<=', value: 250 },
          },
          {
            name: `${label}: 1% membership edit, plan at ${LATENCY_MS} ms`,
            value: r.edit.seconds,
            unit: 's',
            target: { op: '<', value: 15 },
          },
          {
            name: `${label}: 1% membership edit, creates`,
            value: r.edit.summary.create,
            unit: 'changes',
            target: { op: '<=', value: 200 },
          },
          {
            name: `${label}: 1% membership edit, deletes`,
            value: r.edit.summary.delete,
            unit: 'changes',
            target: { op: '<=', value: 200 },
          },
          { name: `${label}: 1% membership edit, apply requests`, value: r.edit.cost.requests, unit: 'requests' },
          {
            name: `${label}: 1% membership edit, apply time at the public limits (ETA)`,
            value: r.edit.cost.seconds,
            unit: 's',
          },
          ...costFigures(`${label}: apply from empty`, r.fromEmpty),
          {
            name: `${label}: apply from empty with group roles and links as bulk tuples (not built), schema writes`,
            value: r.alternative.schemaWrites,
            unit: 'requests',
          },
          {
            name: `${label}: apply from empty with group roles and links as bulk tuples (not built), time at the public limits`,
            value: r.alternative.seconds / 60,
            unit: 'min',
          },
        );
        notes.push(
          `The 1% edit's plan printed: "${r.edit.costLine}"`,
          `Apply from empty: ${r.fromEmpty.requests} requests, ${describeClasses(r.fromEmpty)}; ${duration(r.fromEmpty.seconds)} at the public limits (the client's pacer on a simulated clock; round trips come on top).`,
        );
      }
      notes.push(
        `${label}: ${r.roleReads} groups' roles read one by one in the no-op plan (of ${SIZE.groups} groups).`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  notes.push(
    `The CLI runs as a user runs it (node bin/roster.js, built by npm run bench), against a proxy adding ${LATENCY_MS} ms before each request reaches a roster serve process, with --pacing public. Times are the CLI process's wall time, reading and validating the YAML included.`,
  );
  return {
    name: 'latency',
    description: `Plans at internet latency (${LATENCY_MS} ms per request) on the 10,000-user environment, paced to the public limits (issue #12).`,
    figures,
    notes,
  };
}

function costFigures(label: string, cost: Plan['cost'] & object): BenchFigure[] {
  const out: BenchFigure[] = [{ name: `${label}, requests`, value: cost.requests, unit: 'requests' }];
  for (const [k, v] of Object.entries(cost.byClass))
    if (k !== 'request') out.push({ name: `${label}, ${k} requests`, value: v, unit: 'requests' });
  out.push({ name: `${label}, time at the public limits (ETA)`, value: cost.seconds / 60, unit: 'min' });
  return out;
}

function describeClasses(cost: Plan['cost'] & object): string {
  return Object.entries(cost.byClass)
    .filter(([k]) => k !== 'request')
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
}

async function scenario(dir: string, raw: RawConfigObject) {
  const serve = await serveProcess(path.join(dir, 'data'));
  const file = path.join(dir, 'roster.yaml');
  const write = () =>
    writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));
  write();
  try {
    // Apply from empty, straight to the server (no latency, no pacing): only its cost is reported here.
    const client = createClient({
      baseUrl: serve.url,
      apiKey: KEY,
      project: 'bench',
      environment: 'prod',
      pacing: 'none',
    });
    const loaded = await loadConfig([file]);
    if (!loaded.desired) throw new Error(`generated config invalid: ${loaded.errors[0]?.message}`);
    const plan = planChanges(loaded.desired, await readLiveState(client), { project: 'bench', environment: 'prod' });
    const fromEmpty = await estimateApply(plan);
    const alternative = await groupPiecesInBulk(plan);
    const result = await applyPlan(plan, client, { concurrency: 8 });
    await client.close();
    if (result.failed.length > 0) throw new Error(`apply failed: ${result.failed[0].id}: ${result.failed[0].error}`);

    const proxy = await startProxy({ upstream: serve.url, latencyMs: LATENCY_MS });
    try {
      // Without added latency, straight to the server, as the CLI runs (node bin/roster.js, built).
      const direct = await planDirect(serve.url, file);
      const noop = await planThrough(proxy, file);
      if (noop.summary.create + noop.summary.update + noop.summary.delete !== 0)
        throw new Error(`no-op plan has changes: ${JSON.stringify(noop.summary)}`);
      const roleReads = proxy.seen.filter((r) => /\/groups\/[^/]+\/roles$/.test(r.path)).length;
      moveMemberships(raw, 200);
      write();
      const edit = await planThrough(proxy, file);
      return { fromEmpty, alternative, direct, noop, edit, roleReads };
    } finally {
      await proxy.close();
    }
  } finally {
    await serve.close();
  }
}

/** Median wall time of three `roster plan` runs straight to the server (loopback: no pacing). */
async function planDirect(url: string, file: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await cli(['plan', file, '--api-url', url, '--format', 'json']);
    times.push((performance.now() - t) / 1000);
  }
  return times.sort((a, b) => a - b)[1];
}

/** `roster plan --format json` through the proxy: wall time, requests, summary, cost. */
async function planThrough(proxy: Awaited<ReturnType<typeof startProxy>>, file: string) {
  proxy.reset();
  const t = performance.now();
  const out = await cli(['plan', file, '--api-url', proxy.url, '--pacing', 'public', '--format', 'json']);
  const seconds = (performance.now() - t) / 1000;
  const plan = JSON.parse(out) as Plan;
  return {
    seconds,
    requests: proxy.seen.length,
    summary: plan.summary,
    cost: plan.cost ?? { requests: 0, byClass: {}, seconds: 0, limits: 'public' as const },
    costLine: costLine(plan) ?? '',
  };
}

function cli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/roster.js'), ...args], {
      env: { ...process.env, ROSTER_API_KEY: KEY, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`roster ${args[0]} exited ${code}: ${stderr.slice(0, 500)}`)),
    );
  });
}

/**
 * What applying from empty would cost if a group's roles and links were written as relationship tuples
 * in bulk (1,000 a call) plus one relation and derivation per (group type, resource, role), instead of
 * one `POST /groups/{key}/roles` or `PUT .../assign_group` each: measured to decide (docs/performance.md).
 */
async function groupPiecesInBulk(plan: Plan): Promise<{ schemaWrites: number; seconds: number }> {
  const sent = await dryRun(plan);
  const piece = (r: { method: string; path: string }) =>
    (r.method === 'POST' && /\/groups\/[^/]+\/roles$/.test(r.path)) ||
    (r.method === 'PUT' && r.path.endsWith('/assign_group'));
  const kept = sent.filter((r) => !piece(r));
  const pieces = sent.length - kept.length;
  const schema = `/v2/schema/${plan.project}/${plan.environment}`;
  const kinds = new Set<string>();
  for (const c of plan.changes) {
    if (c.action !== 'create') continue;
    const f = c.after as Record<string, string>;
    if (c.kind === 'grant') kinds.add(`${f.group.split(':')[0]} ${f.on.split(':')[0]} ${f.role}`);
    if (c.kind === 'link') kinds.add(`${f.group.split(':')[0]} link`);
  }
  // Per kind: the relation and the derivation (two schema writes).
  const derivations = [...kinds].flatMap(() => [
    { method: 'POST', path: `${schema}/resources/r/relations` },
    { method: 'POST', path: `${schema}/resources/r/roles/x/implicit_grants` },
  ]);
  const bulk = Array.from({ length: Math.ceil(pieces / 1000) }, () => ({
    method: 'POST',
    path: `/v2/facts/${plan.project}/${plan.environment}/relationship_tuples/bulk`,
  }));
  const requests = [...kept, ...derivations, ...bulk];
  return {
    schemaWrites: requests.filter((r) => r.method !== 'GET' && r.path.startsWith('/v2/schema/')).length,
    seconds: await pacingSeconds(requests, PUBLIC_LIMITS),
  };
}
