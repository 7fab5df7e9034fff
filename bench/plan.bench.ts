/**
 * Plan and apply on the generated 10,000-user environment (issue #5): apply from empty, a no-op plan,
 * and a 1% edit, against the embedded default (the service in this process) and against a separate
 * `roster serve` process over HTTP. Request counts come from the client's own counters.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchFigure, BenchResult } from './run.js';
import { generateEnvironment, moveMemberships, toYaml, type RawConfigObject } from './generate.js';
import { createClient, type ApiClient } from '../src/api/index.js';
import { readLiveState } from '../src/api/read-live.js';
import type { Target } from '../src/usecases/target.js';
import { applyPlan } from '../src/apply/apply.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'bench-key-0123456789abcdef';
const PAGE = 100;

export async function run(): Promise<BenchResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-plan-'));
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
  try {
    for (const mode of ['embedded', 'serve'] as const) {
      const dir = path.join(work, mode);
      mkdirSync(dir);
      const target = mode === 'embedded' ? await embedded(dir) : await serveProcess(dir);
      try {
        const r = await scenario(
          raw,
          target.url,
          path.join(dir, 'config'),
          mode === 'embedded' ? 'embedded' : 'remote',
        );
        const label = mode === 'embedded' ? 'embedded default' : 'roster serve over HTTP';
        figures.push(
          { name: `${label}: apply from empty`, value: r.applyMs / 1000, unit: 's', target: { op: '<', value: 60 } },
          { name: `${label}: apply from empty, requests`, value: r.applyRequests, unit: 'requests' },
          {
            name: `${label}: apply from empty, requests for memberships and assignments`,
            value: r.bulkRequests,
            unit: 'requests',
            target: { op: '<', value: 100 },
          },
          { name: `${label}: no-op plan`, value: r.noopMs / 1000, unit: 's', target: { op: '<', value: 1 } },
          {
            name: `${label}: no-op plan, requests`,
            value: r.noopRequests,
            unit: 'requests',
            target: { op: '<=', value: r.noopBudget },
          },
          { name: `${label}: 1% membership edit, plan + apply + verify`, value: r.editMs / 1000, unit: 's' },
          { name: `${label}: 1% membership edit, plan reads`, value: r.editReads, unit: 'requests' },
          { name: `${label}: 1% membership edit, writes`, value: r.editWrites, unit: 'requests' },
          {
            name: `${label}: 1% membership edit, verification reads`,
            value: r.editVerify,
            unit: 'requests',
            target: { op: '<=', value: 50 },
          },
          {
            name: `${label}: 1% membership edit, creates`,
            value: r.editSummary.create,
            unit: 'changes',
            target: { op: '<=', value: 200 },
          },
          {
            name: `${label}: 1% membership edit, deletes`,
            value: r.editSummary.delete,
            unit: 'changes',
            target: { op: '<=', value: 200 },
          },
          {
            name: `${label}: 1% membership edit, updates`,
            value: r.editSummary.update,
            unit: 'changes',
            target: { op: '<=', value: 0 },
          },
        );
        notes.push(
          `${label}: ${r.objects} live objects; request budget for a no-op plan = ceil(objects/${PAGE}) + 20 = ${r.noopBudget}.`,
        );
      } finally {
        await target.close();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  notes.push(
    'Times include reading and validating the YAML (10,000 users, 1,000 groups, 20,000 memberships), which runs on a worker thread while the live state is read, as in roster plan.',
    "Group roles 'by-type' (bench/generate.ts): 50 squads' roles are read one by one; in the 'any' environment every group's are (1,000 more requests: bench/results/latency.json).",
    'The 1% edit moves 200 memberships to another group of the same tenant and type (membership-only): it must plan exactly +200/-200 and no tenant change.',
  );
  return {
    name: 'plan',
    description: 'Plan and apply on the generated 10,000-user environment (issue #5).',
    figures,
    notes,
  };
}

async function scenario(raw: RawConfigObject, url: string, configDir: string, kind: Target['kind']) {
  mkdirSync(configDir, { recursive: true });
  const file = path.join(configDir, 'roster.yaml');
  writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));

  // What `roster plan` does (src/usecases/workflow.ts): the files validated on a worker thread while the live
  // state is read, the users and element configurations read once for both readers. Run from the build
  // (dist/, which `npm run bench` makes), as users run it: from the sources the worker thread would
  // compile TypeScript first, which no user pays.
  const { planFromFiles } = (await import(
    pathToFileURL(path.join(ROOT, 'dist/usecases/workflow.js')).href
  )) as typeof import('../src/usecases/workflow.js');
  const planOnce = async (client: ApiClient) => {
    const target: Target = {
      kind,
      url,
      where: kind === 'embedded' ? 'embedded bench' : url,
      project: 'bench',
      environment: 'prod',
      client,
      close: async () => {},
    };
    return planFromFiles([file], 'plan', {}, {}, async () => target);
  };

  // Apply from empty.
  let client = newClient(url);
  let t = performance.now();
  const first = await planOnce(client);
  const result = await applyPlan(first.plan, client, { concurrency: 8 });
  const applyMs = performance.now() - t;
  if (result.failed.length > 0) throw new Error(`apply failed: ${result.failed[0].id}: ${result.failed[0].error}`);
  const applyRequests = client.counters().requests;
  const bulkRequests = bulkCalls;
  await client.close();

  // No-op plan.
  client = newClient(url);
  t = performance.now();
  const noop = await planOnce(client);
  const noopMs = performance.now() - t;
  if (noop.plan.changes.length !== 0)
    throw new Error(`no-op plan has ${noop.plan.changes.length} changes, first ${noop.plan.changes[0].id}`);
  const noopRequests = client.counters().requests;
  const objects = countObjects(noop.live);
  await client.close();

  // A 1% membership edit: 200 memberships move to another group of the same tenant and type.
  moveMemberships(raw, 200);
  writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));
  client = newClient(url);
  t = performance.now();
  const edit = await planOnce(client);
  const editReads = client.counters().requests;
  await applyPlan(edit.plan, client, { concurrency: 8 });
  const editWrites = client.counters().requests - editReads;
  // The check after the writes, as `roster apply` makes it (src/apply/verify.ts, --verify=changes).
  const { verifyApplied } = (await import(
    pathToFileURL(path.join(ROOT, 'dist/apply/verify.js')).href
  )) as typeof import('../src/apply/verify.js');
  const verified = await verifyApplied({
    desired: edit.desired,
    client,
    plan: edit.plan,
    live: edit.live,
    requestGrants: edit.requestGrants,
  });
  if (verified.ids.length > 0)
    throw new Error(`the 1% edit verified with leftovers: ${verified.ids.slice(0, 3).join(', ')}`);
  const editMs = performance.now() - t;
  await client.close();
  return {
    applyMs,
    applyRequests,
    bulkRequests,
    noopMs,
    noopRequests,
    noopBudget: Math.ceil(objects / PAGE) + 20,
    objects,
    editMs,
    editSummary: edit.plan.summary,
    editReads,
    editWrites,
    editVerify: verified.requests,
  };
}

let bulkCalls = 0;
function newClient(url: string): ApiClient {
  bulkCalls = 0;
  return createClient({
    baseUrl: url,
    apiKey: KEY,
    project: 'bench',
    environment: 'prod',
    pacing: 'none',
    onRequest: (i) => {
      if (i.path.includes('/role_assignments/bulk')) bulkCalls++;
    },
  });
}

function countObjects(live: Awaited<ReturnType<typeof readLiveState>>): number {
  let n =
    live.resources.size + live.roles.size + live.tenants.size + live.resourceInstances.size + live.accessRequests.size;
  for (const u of live.users.values()) n += 1 + u.roles.length;
  for (const g of live.groups.values()) n += 1 + g.members.length + g.roles.length + g.memberOf.length;
  return n;
}

/** The embedded default as the CLI starts it: the service on a thread of its own, from the build. */
async function embedded(dir: string) {
  const { startServerAside } = (await import(
    pathToFileURL(path.join(ROOT, 'dist/server/aside.js')).href
  )) as typeof import('../src/server/aside.js');
  return startServerAside({ dataDir: dir, orgKey: KEY, environments: [{ project: 'bench', env: 'prod' }] });
}

export async function serveProcess(dir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      tsx,
      path.join(ROOT, 'src/cli/run.ts'),
      'serve',
      '--port',
      '0',
      '--data',
      dir,
      '--api-key',
      KEY,
      '--create-env',
      'bench/prod',
      '--quiet',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`roster serve exited ${code}: ${err}`)));
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
