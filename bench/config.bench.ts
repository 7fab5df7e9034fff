/**
 * Configuration loading at scale, and CLI start-up. `npm run bench` (or `npm run bench config`).
 * - loadConfig over a generated 10,000-user, 1,000-group, 20,000-membership configuration: one cold
 *   run (first in the process: JIT, schema compile), then warm runs for median and p95.
 * - `roster validate` of the same file as a user runs it (a fresh process each time, from dist/).
 * - `roster --version` start-up against a bare `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './run.js';
import { generateEnvironment, toYaml } from './generate.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZE = { users: 10_000, groups: 1_000, maxDepth: 8, instances: 2_000, memberships: 20_000, tenants: 5, seed: 42 };

export async function run(): Promise<BenchResult> {
  const notes: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'roster-bench-'));
  try {
    const file = path.join(dir, 'roster.yaml');
    const text = toYaml(generateEnvironment(SIZE) as unknown as Record<string, unknown>);
    writeFileSync(file, text);
    notes.push(
      `generated configuration: ${(text.length / 2 ** 20).toFixed(2)} MB, ${SIZE.users} users, ${SIZE.groups} groups (depth ${SIZE.maxDepth}), ${SIZE.instances} instances, ${SIZE.memberships} memberships`,
    );

    const { loadConfig } = await import('../src/config/index.js');
    const timeLoad = async () => {
      const t = performance.now();
      const r = await loadConfig([file]);
      if (r.errors.length > 0) throw new Error(`generated configuration is invalid: ${r.errors[0].message}`);
      return performance.now() - t;
    };
    const cold = await timeLoad();
    const warm: number[] = [];
    for (let i = 0; i < 7; i++) warm.push(await timeLoad());

    const built = build(notes);
    const cli = built ? timeProcess(['bin/roster.js', 'validate', file], 3) : [];
    const bare = timeProcess(['-e', '0'], 15);
    const version = built ? timeProcess(['bin/roster.js', '--version'], 15) : [];

    notes.push(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${cpus().length} cores (other processes inflate every figure)`,
    );
    return {
      name: 'config',
      description: 'Loading and validating a large configuration; CLI start-up.',
      figures: [
        { name: 'loadConfig warm median', value: quantile(warm, 0.5), unit: 'ms', target: { op: '<', value: 1500 } },
        { name: 'loadConfig warm p95', value: quantile(warm, 0.95), unit: 'ms', target: { op: '<', value: 1500 } },
        { name: 'loadConfig cold (first in process)', value: cold, unit: 'ms' },
        ...(cli.length
          ? [{ name: 'roster validate (fresh process) median', value: quantile(cli, 0.5), unit: 'ms' }]
          : []),
        { name: 'node -e 0 median', value: quantile(bare, 0.5), unit: 'ms' },
        ...(version.length
          ? [
              { name: 'roster --version median', value: quantile(version, 0.5), unit: 'ms' },
              {
                name: 'roster --version / node -e 0',
                value: quantile(version, 0.5) / quantile(bare, 0.5),
                unit: 'x',
                target: { op: '<' as const, value: 2 },
              },
            ]
          : []),
      ],
      notes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm run build` for dist/; other modules' type errors do not stop tsc from emitting. */
function build(notes: string[]): boolean {
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) notes.push(`npm run build exited ${r.status}; timing the dist/ it emitted anyway`);
  const ok = existsSync(path.join(ROOT, 'dist/cli/main.js'));
  if (!ok) notes.push('dist/cli/main.js missing: CLI figures skipped');
  return ok;
}

function timeProcess(args: string[], runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
    times.push(performance.now() - t);
  }
  return times;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}
