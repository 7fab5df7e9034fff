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
import { startProxy } from './proxy.js';
import { median } from './stats.js';
import { createClient, type ApiClient } from '../src/api/index.js';
import type { Target } from '../src/usecases/target.js';
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
      { name: 'no-op plan (roster serve), without the folder tree', value: flatPlan.ms / 1000, unit: 's' },
      { name: 'no-op plan (roster serve), with the folder tree', value: treePlan.ms / 1000, unit: 's' },
      { name: 'no-op plan, requests, without the folder tree', value: flatPlan.requests, unit: 'requests' },
      { name: 'no-op plan, requests, with the folder tree', value: treePlan.requests, unit: 'requests' },
      {
        name: 'no-op plan, `parent` tuple list pages (per_page 100), with the folder tree',
        value: treePlan.pages.get('parent') ?? 0,
        unit: 'requests',
        target: { op: '<=', value: Math.ceil(treePlan.tuples / 100) },
      },
    );
    const more = [...treePlan.byPath]
      .map(([k, n]) => [k, n - (flatPlan.byPath.get(k) ?? 0)] as const)
      .filter(([, d]) => d !== 0)
      .map(([k, d]) => `${k} +${d}`)
      .join(', ');
    const pages = (p: typeof treePlan) =>
      [...p.pages]
        .sort()
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
    notes.push(
      `The folder tree adds ${treePlan.instances - flatPlan.instances} instances and ${treePlan.tuples} \`parent\` tuples. ` +
        `Relationship tuple list pages of a no-op plan by relation, without the tree: ${pages(flatPlan)}; with it: ${pages(treePlan)} ` +
        `(the \`team_group\` tuples grow with the teams' folder roles). ${treePlan.requests - flatPlan.requests} requests more in all: ${more}. ` +
        'No-op plan times: medians of 3, each a fresh client (the plan bench measures 0.64 s for the flat environment on a quiet machine).',
    );

    // (b) The access section of a 1% edit, without and with the folder tree.
    const cases = [
      await accessSection(work, 'flat', generateEnvironment(OPTS), editOnePercent),
      await accessSection(work, 'tree', generateEnvironment({ ...OPTS, folders: FOLDERS }), editOnePercent),
      await accessSection(work, 'moved', generateEnvironment({ ...OPTS, folders: FOLDERS }), (raw) =>
        moveFiles(editOnePercent(raw), 20),
      ),
    ];
    // Interleaved, so that a busy machine weighs on the three alike.
    for (let i = 0; i < RUNS; i++) for (const c of cases) c.measure();
    const [flat, tree, moved] = cases.map((c) => ({ ...c.result(), ms: median(c.ms) }));
    figures.push(
      { name: 'access section of the 1% edit, without the folder tree', value: flat.ms, unit: 'ms' },
      { name: 'access section of the 1% edit, with the folder tree', value: tree.ms, unit: 'ms' },
      { name: 'access section of the 1% edit and 20 files moved, with the folder tree', value: moved.ms, unit: 'ms' },
      {
        name: 'access section with / without the folder tree (same edit)',
        value: tree.ms / flat.ms,
        unit: 'x',
        target: { op: '<', value: 2 },
      },
      {
        name: 'access section with / without the folder tree (edit + 20 files moved)',
        value: moved.ms / flat.ms,
        unit: 'x',
        target: { op: '<', value: 2 },
      },
    );
    const what = (r: typeof flat) =>
      `${r.changes} changes, ${r.users} users with changes, ${r.gains} gained, ${r.losses} lost`;
    notes.push(
      "Access section (liveAfter + both graphs + diff + caps), median of 7 (the three cases interleaved), on the access-plan bench's environment (group roles 'any'), " +
        "with that bench's 1% edit (with the tree, some groups whose roles it drops hold folder roles, so it loses more). Moving files changes tuples: " +
        "the users reaching the moved files' old and new folders are compared too (src/access/delta.ts). " +
        `Without the tree: ${what(flat)}; with it: ${what(tree)}; with 20 files moved too: ${what(moved)}.`,
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
  const { planFromFiles } = (await import(
    pathToFileURL(path.join(ROOT, 'dist/usecases/workflow.js')).href
  )) as typeof import('../src/usecases/workflow.js');
  const server = await serveProcess(path.join(dir, 'data'));
  let tuplePages = 0;
  const newClient = () =>
    createClient({
      baseUrl: server.url,
      apiKey: KEY,
      project: 'bench',
      environment: 'prod',
      pacing: 'none',
      onRequest: (i) => {
        if (i.path.includes('/relationship_tuples')) tuplePages++;
      },
    });
  const planOnce = (client: ApiClient) => {
    const target: Target = {
      kind: 'remote',
      url: server.url,
      where: server.url,
      project: 'bench',
      environment: 'prod',
      client,
      close: async () => {},
    };
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
      if (noop.plan.changes.length !== 0)
        throw new Error(`no-op plan has ${noop.plan.changes.length} changes, first ${noop.plan.changes[0].id}`);
      requests = client.counters().requests;
      pages = tuplePages;
      live = noop.live;
      await client.close();
    }
    let tuples = 0;
    for (const inst of live.resourceInstances.values()) tuples += inst.relations?.length ?? 0;
    // One more (untimed) no-op plan through a proxy, to see the tuple pages by relation.
    const proxy = await startProxy({ upstream: server.url });
    const byRelation = new Map<string, number>();
    const byPath = new Map<string, number>();
    try {
      client = createClient({ baseUrl: proxy.url, apiKey: KEY, project: 'bench', environment: 'prod', pacing: 'none' });
      await planOnce(client);
      await client.close();
      for (const r of proxy.seen) {
        const template = r.path
          .replace(/\/v2\/(schema|facts|elements)\/[^/]+\/[^/]+/, '/v2/$1/{proj}/{env}')
          .replace(/\/groups\/[^/]+/, '/groups/{group}');
        byPath.set(template, (byPath.get(template) ?? 0) + 1);
        if (!r.path.endsWith('/relationship_tuples')) continue;
        const relation = r.query.find(([k]) => k === 'relation')?.[1] ?? '(any)';
        byRelation.set(relation, (byRelation.get(relation) ?? 0) + 1);
      }
    } finally {
      await proxy.close();
    }
    if ([...byRelation.values()].reduce((a, b) => a + b, 0) !== pages)
      throw new Error('the proxy saw other tuple pages than the client');
    return { ms: median(ms), requests, pages: byRelation, byPath, tuples, instances: live.resourceInstances.size };
  } finally {
    await server.close();
  }
}

const RUNS = 7;

async function accessSection(
  work: string,
  name: string,
  raw: RawConfigObject,
  edit: (raw: RawConfigObject) => RawConfigObject,
) {
  const dir = path.join(work, `access-${name}`);
  mkdirSync(dir);
  const live = await load(dir, 'before.yaml', raw);
  const desired = await load(dir, 'after.yaml', edit(raw));
  const plan = planChanges(desired, live, { project: 'bench', environment: 'prod' });
  const ms: number[] = [];
  let section!: ReturnType<typeof planAccess>;
  return {
    ms,
    measure() {
      const t0 = performance.now();
      section = planAccess({ live, changes: plan.changes });
      ms.push(performance.now() - t0);
    },
    result: () => ({
      changes: plan.changes.length,
      users: section.users,
      gains: section.gains,
      losses: section.losses,
    }),
  };
}

/** Moves `count` files to another folder of their tenant (a 1% tuple edit on 2,000 files). */
function moveFiles(raw: RawConfigObject, count: number): RawConfigObject {
  const r = prng(13);
  const files = Object.entries(raw.resource_instances).filter(([id]) => id.startsWith('file:'));
  const folders = Object.entries(raw.resource_instances).filter(([id]) => id.startsWith('folder:'));
  for (let k = 0; k < count; k++) {
    const [, file] = files[Math.floor(r() * files.length)];
    const choices = folders
      .filter(([id, f]) => f.tenant === file.tenant && id !== file.relations?.parent)
      .map(([id]) => id);
    file.relations = { parent: choices[Math.floor(r() * choices.length)] };
  }
  return raw;
}
