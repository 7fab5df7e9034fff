/**
 * `roster who-can` offline at the size issue 40 sets: the generated 10,000-user environment (1,000 groups
 * nested up to depth 8, 2,000 instances, 20,000 memberships). `npm run bench -- who-can`.
 * - in process: the configuration loaded and the graph built, then `whoCan` on the instance with the
 *   most holders (tenant-wide admins and group grants) and on one read by most;
 * - the command as a user runs it, a fresh process each time: bin/roster.js over dist/ (`npm run bench`
 *   builds it), else from the sources through tsx (its transform then adds to the figure).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchResult } from './run.js';
import { generateEnvironment, toYaml } from './generate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const SIZE = { users: 10_000, groups: 1_000, maxDepth: 8, instances: 2_000, memberships: 20_000, tenants: 5, seed: 42 };

export async function run(): Promise<BenchResult> {
  const notes: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'roster-bench-who-can-'));
  try {
    const file = path.join(dir, 'roster.yaml');
    writeFileSync(file, toYaml(generateEnvironment(SIZE) as unknown as Record<string, unknown>));
    const { loadConfig } = await import('../src/config/index.js');
    const { buildAccessGraph } = await import('../src/access/index.js');
    const { factsFromState } = await import('../src/access/from-state.js');
    const { whoCan } = await import('../src/access/queries.js');
    const t0 = performance.now();
    const loaded = await loadConfig([file]);
    if (!loaded.desired) throw new Error(`generated configuration is invalid: ${loaded.errors[0]?.message}`);
    const graph = buildAccessGraph(factsFromState(loaded.desired));
    const load = performance.now() - t0;
    // The document read by the most users: the one question the command is asked on the largest answer.
    const documents = graph.facts.instances.filter((i) => i.id.startsWith('document:')).slice(0, 200);
    let widest = { instance: documents[0].id, users: 0, ms: 0 };
    for (const { id } of documents) {
      const t = performance.now();
      const n = whoCan(graph, 'read', id).users.length;
      const ms = performance.now() - t;
      if (n > widest.users) widest = { instance: id, users: n, ms };
    }
    const inProcess: number[] = [];
    for (let i = 0; i < 5; i++) {
      const fresh = buildAccessGraph(factsFromState(loaded.desired));
      const t = performance.now();
      whoCan(fresh, 'read', widest.instance);
      inProcess.push(performance.now() - t);
    }
    notes.push(`${widest.instance}: ${widest.users} users can read it (of the first 200 documents, the widest)`);
    const built = existsSync(path.join(ROOT, 'dist/cli/main.js'));
    const entry = built ? ['bin/roster.js'] : ['--import', TSX, 'src/cli/run.ts'];
    // Wall time, and the process's CPU time (user + system, from bash's `time`): on a machine shared by
    // other processes the wall time waits for the cores, the CPU time is what the command costs.
    const cli: number[] = [];
    const cpu: number[] = [];
    const args = [...entry, 'who-can', 'read', widest.instance, file, '--format', 'json'];
    const command = `TIMEFORMAT='%3U %3S'; time ${[process.execPath, ...args].map((a) => `'${a}'`).join(' ')} > '${dir}/out.json'`;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = spawnSync('bash', ['-c', command], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', CI: 'true' },
      });
      cli.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`roster who-can exited ${r.status}: ${r.stderr}`);
      const [user, system] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
      cpu.push((user + system) * 1000);
      if (JSON.parse(readFileSync(`${dir}/out.json`, 'utf8')).users.length !== widest.users)
        throw new Error('roster who-can listed other users');
    }
    notes.push(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${cpus().length} cores (other processes inflate every figure)`,
    );
    return {
      name: 'who-can',
      description: 'roster who-can offline on the generated 10,000-user environment (issue 40).',
      figures: [
        {
          name: `roster who-can (fresh process, ${built ? 'dist' : 'tsx'}) CPU time median`,
          value: median(cpu),
          unit: 'ms',
          target: { op: '<', value: 2000 },
        },
        { name: 'roster who-can (fresh process) wall time median', value: median(cli), unit: 'ms' },
        { name: 'whoCan on a built graph, median', value: median(inProcess), unit: 'ms' },
        { name: 'load configuration + build graph (in process)', value: load, unit: 'ms' },
      ],
      notes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
