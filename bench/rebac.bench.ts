/**
 * Scale of relationship-based access (issue 20, "Scale"): the 10,000-user environment with and without
 * a folder tree (bench/generate.ts `folders`: 2,000 documents in folders 4 deep, teams and users holding
 * folder roles that derive down `parent`). (a) A no-op plan against `roster serve`: time and requests, the
 * tuples read in list pages. (b) The access section of a 1% edit (liveAfter + both graphs + diff), as the
 * access-plan bench measures it, with the folder tree against without: the target is a ratio under 2.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchFigure, BenchResult } from './run.js';
import { generateEnvironment, prng, toYaml, type RawConfigObject } from './generate.js';
import { OPTS, editOnePercent, load } from './access-plan.bench.js';
import { serveProcess } from './plan.bench.js';
import { time, median } from './stats.js';
import { createClient, type ApiClient } from '../src/api/index.js';
import type { Target } from '../src/cli/target.js';
import { applyPlan } from '../src/apply/apply.js';
import { planChanges } from '../src/plan/plan.js';
import { planAccess } from '../src/plan/access.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'bench-key-0123456789abcdef';
const FOLDERS = { documents: 2_000, depth: 4 };
/** The plan bench's environment (group roles by type, as teams are usually given access). */
const PLAN_OPTS = { ...OPTS, groupRoles: 'by-type' as const };

export async function run(): Promise<BenchResult> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-rebac-'));
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  try {
    // (a) No-op plan against roster serve.
    const plans = [];
    for (const folders of [undefined, FOLDERS]) {
      const dir = path.join(work, folders ? 'plan-folders' : 'plan-flat');
      mkdirSync(dir);
      plans.push(await noopPlan(generateEnvironment({ ...PLAN_OPTS, folders }), dir));
    }
    const [flatPlan, treePlan] = plans;
    figures.push(
      { name: 'no-op plan (roster serve), without the folder tree', value: flatPlan.ms / 1000, unit: 's', target: { op: '<', value: 1 } },
      { name: 'no-op plan (roster serve), with the folder tree', value: treePlan.ms / 1000, unit: 's' },
      { name: 'no-op plan, requests, without the folder tree', value: flatPlan.requests, unit: 'requests' },
      { name: 'no-op plan, requests, with the folder tree', value: treePlan.requests, unit: 'requests' },
      { name: 'no-op plan, relationship tuple list pages, with the folder tree', value: treePlan.tuplePages, unit: 'requests', target: { op: '<=', value: Math.ceil(treePlan.tuples / 100) + 5 } },
    );
    notes.push(
      `The folder tree adds ${treePlan.instances - flatPlan.instances} instances and ${treePlan.tuples} \`parent\` tuples; ` +
        `the no-op plan reads them in ${treePlan.tuplePages} relationship tuple pages of 100 (target: ceil(tuples/100) + 5), ` +
        `${treePlan.requests - flatPlan.requests} requests more in all. No-op plan times: medians of 3, each a fresh client.`,
    );

    // (b) The access section of a 1% edit, without and with the folder tree.
    const flat = await accessSection(work, 'flat', generateEnvironment(OPTS), editOnePercent);
    const tree = await accessSection(work, 'tree', generateEnvironment({ ...OPTS, folders: FOLDERS }), (raw) => moveFiles(editOnePercent(raw), 20));
    figures.push(
      { name: 'access section of the 1% edit, without the folder tree', value: flat.ms, unit: 'ms' },
      { name: 'access section of the 1% edit, with the folder tree', value: tree.ms, unit: 'ms' },
      { name: 'access section with / without the folder tree', value: tree.ms / flat.ms, unit: 'x', target: { op: '<', value: 2 } },
    );
    notes.push(
      `Access section (liveAfter + both graphs + diff + caps), median of 5, on the access-plan bench's environment (group roles 'any'). ` +
        `The edit is that bench's 1% edit; with the folder tree it also moves 20 files (1% of 2,000) to another folder of their tenant. ` +
        `Without: ${flat.changes} changes, ${flat.gains} gained, ${flat.losses} lost; with: ${tree.changes} changes, ${tree.gains} gained, ${tree.losses} lost.`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    name: 'rebac',
    description:
      'The 10,000-user environment with a folder tree (2,000 documents in folders 4 deep per tenant, teams holding folder#editor on top folders ' +
      'and folder#viewer on second-level ones, 1 user in 100 a folder role; roles derive down `parent`) against the same environment without it (issue 20, "Scale").',
    figures,
    notes,
  };
}

/** Applies `raw` to a fresh `roster serve`, then times a no-op plan (median of 3) and counts its requests. */
async function noopPlan(raw: RawConfigObject, dir: string) {
  const file = path.join(dir, 'roster.yaml');
  writeFileSync(file, toYaml({ project: 'bench', environment: 'prod', ...raw } as Record<string, unknown>));
  const { planFromFiles } = (await import(pathToFileURL(path.join(ROOT, 'dist/cli/workflow.js')).href)) as typeof import('../src/cli/workflow.js');
  const server = await serveProcess(path.join(dir, 'data'));
  let tuplePages = 0;
  const newClient = () =>
    createClient({
      baseUrl: server.url, apiKey: KEY, project: 'bench', environment: 'prod', pacing: 'none',
      onRequest: (i) => {
        if (i.path.includes('/relationship_tuples')) tuplePages++;
      },
    });
  const planOnce = (client: ApiClient) => {
    const target: Target = { kind: 'remote', url: server.url, where: server.url, project: 'bench', environment: 'prod', client, close: async () => {} };
    return planFromFiles([file], 'plan', {}, {}, async () => target);
  };
  try {
    let client = newClient();
    const first = await planOnce(client);
    const applied = await applyPlan(first.plan, client, { concurrency: 8 });
    if (applied.failed.length > 0) throw new Error(`apply failed: ${applied.failed[0].id}: ${applied.failed[0].error}`);
    await client.close();
    const ms: number[] = [];
    let requests = 0;
    let pages = 0;
    let live!: Awaited<ReturnType<typeof planOnce>>['live'];
    for (let i = 0; i < 3; i++) {
      client = newClient();
      tuplePages = 0;
      const t0 = performance.now();
      const noop = await planOnce(client);
      ms.push(performance.now() - t0);
      if (noop.plan.changes.length !== 0) throw new Error(`no-op plan has ${noop.plan.changes.length} changes, first ${noop.plan.changes[0].id}`);
      requests = client.counters().requests;
      pages = tuplePages;
      live = noop.live;
      await client.close();
    }
    let tuples = 0;
    for (const inst of live.resourceInstances.values()) tuples += inst.relations?.length ?? 0;
    return { ms: median(ms), requests, tuplePages: pages, tuples, instances: live.resourceInstances.size };
  } finally {
    await server.close();
  }
}

async function accessSection(work: string, name: string, raw: RawConfigObject, edit: (raw: RawConfigObject) => RawConfigObject) {
  const dir = path.join(work, `access-${name}`);
  mkdirSync(dir);
  const live = await load(dir, 'before.yaml', raw);
  const desired = await load(dir, 'after.yaml', edit(raw));
  const plan = planChanges(desired, live, { project: 'bench', environment: 'prod' });
  const section = time(() => planAccess({ live, changes: plan.changes }), 5);
  return { ms: section.ms, changes: plan.changes.length, gains: section.value.gains, losses: section.value.losses };
}

/** Moves `count` files to another folder of their tenant (a 1% tuple edit on 2,000 files). */
function moveFiles(raw: RawConfigObject, count: number): RawConfigObject {
  const r = prng(13);
  const files = Object.entries(raw.resource_instances).filter(([id]) => id.startsWith('file:'));
  const folders = Object.entries(raw.resource_instances).filter(([id]) => id.startsWith('folder:'));
  for (let k = 0; k < count; k++) {
    const [, file] = files[Math.floor(r() * files.length)];
    const choices = folders.filter(([id, f]) => f.tenant === file.tenant && id !== file.relations?.parent).map(([id]) => id);
    file.relations = { parent: choices[Math.floor(r() * choices.length)] };
  }
  return raw;
}
