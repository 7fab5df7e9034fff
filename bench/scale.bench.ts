/**
 * Issue 32: what an apply costs as the environment grows. The generated environment at three scales
 * (×1: 10,000 users, about 36k objects; ×3; ×10), the configuration split into files, the CLI run as
 * users run it (bin/roster.js over dist/, a process of its own) against `roster serve`: apply from empty
 * (time, peak memory of the CLI) and a no-op plan timed straight to the service; then the same steps
 * against a fresh service through a counting proxy (bench/count-proxy.ts, a process of its own at the
 * TCP level), for their requests and, for comparison, their time through it; and a 1% membership
 * edit's apply (its requests: the plan's reads, the writes, the verification's reads). Issue 42: the no-op
 * plan and the edit's plan read incrementally, from the snapshot the previous apply kept under the working
 * directory's .roster/ and the change history: their requests, and the line of their header saying so.
 * `ROSTER_BENCH_SCALES=1,3` runs fewer scales.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateEnvironment, moveMemberships, toYaml, type RawConfigObject } from './generate.js';
import { startCountingProxyProcess } from './count-proxy.js';
import { serveProcess } from './plan.bench.js';
import type { BenchFigure, BenchResult } from './run.js';
import { runCompanyWide } from './scale-company.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'bench-key-0123456789abcdef'; // serveProcess's key (plan.bench.ts)

export async function run(): Promise<BenchResult> {
  const scales = (process.env.ROSTER_BENCH_SCALES ?? '1,3,10').split(',').map(Number);
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  // Times depend on what else the machine runs; memory much less. Say how loaded it was.
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / ');
  notes.push(`load average (1 / 5 / 15 min) at the start: ${load()} on ${os.cpus().length} cores`);
  // `ROSTER_BENCH_SHAPES=company` runs the company-wide shape alone (issue 42, scale-company.ts).
  const shapes = (process.env.ROSTER_BENCH_SHAPES ?? 'spread,company').split(',');
  for (const s of shapes.includes('spread') ? scales : []) {
    const work = mkdtempSync(path.join(os.tmpdir(), `roster-bench-scale${s}-`));
    try {
      const raw = generateEnvironment({
        users: 10_000 * s,
        groups: 1_000 * s,
        maxDepth: 8,
        instances: 2_000 * s,
        memberships: 20_000 * s,
        tenants: 5 * s,
        seed: 7,
        groupRoles: 'by-type',
      });
      const config = path.join(work, 'roster');
      writeSplit(config, raw);
      // Timed as users run it: the CLI straight to the service. The counting proxy shares the 2 cores
      // (~4-6 s of an apply from empty at x10), so the requests are counted in a second run of the
      // same steps against a fresh service, through it.
      const direct = await serveProcess(path.join(work, 'data-direct'));
      let timed: { empty: CliRun; noop: CliRun };
      try {
        const cli = (...args: string[]) => runCli(work, direct.url, args);
        const empty = await cli('apply', 'roster', '--yes', '--format', 'json');
        const noop = await cli('plan', 'roster', '--detailed-exitcode');
        if (noop.code !== 0) throw new Error(`no-op plan at ×${s} exited ${noop.code}: ${noop.stderr.slice(0, 400)}`);
        timed = { empty, noop };
      } finally {
        await direct.close();
      }
      const server = await serveProcess(path.join(work, 'data'));
      const proxy = await startCountingProxyProcess(server.url);
      try {
        const cli = (...args: string[]) => runCli(work, proxy.url, args);
        await proxy.reset();
        const empty = await cli('apply', 'roster', '--yes', '--format', 'json');
        const emptyOut = JSON.parse(empty.stdout) as { applied: string[]; verification?: { requests: number } };
        const emptyRequests = (await proxy.counts()).requests;
        await proxy.reset();
        const noop = await cli('plan', 'roster', '--detailed-exitcode');
        if (noop.code !== 0) throw new Error(`no-op plan at ×${s} exited ${noop.code}: ${noop.stderr.slice(0, 400)}`);
        const noopRequests = (await proxy.counts()).requests;
        moveMemberships(raw, 200 * s);
        writeSplit(config, raw);
        // Issue 42: the edit's plan, from the snapshot the previous apply kept and the change history.
        await proxy.reset();
        const editPlan = await cli('plan', 'roster', '--detailed-exitcode');
        if (editPlan.code !== 2) throw new Error(`1% edit plan at ×${s} exited ${editPlan.code}: ${editPlan.stderr}`);
        const editPlanRequests = (await proxy.counts()).requests;
        const readLine = (out: string) => /^Read the live state .*$/m.exec(out)?.[0] ?? 'no read line';
        notes.push(`×${s}: no-op plan after the apply: ${readLine(noop.stdout)}`);
        notes.push(`×${s}: 1% edit plan: ${readLine(editPlan.stdout)}`);
        await proxy.reset();
        const edit = await cli('apply', 'roster', '--yes', '--format', 'json');
        const editOut = JSON.parse(edit.stdout) as {
          applied: string[];
          verification?: { requests: number; full: boolean };
        };
        const editCounts = await proxy.counts();
        const writes = editCounts.writes;
        const verify = editOut.verification?.requests ?? 0;
        const label = `×${s} (${emptyOut.applied.length.toLocaleString('en-US')} changes from empty)`;
        figures.push(
          {
            name: `${label}: apply from empty`,
            value: timed.empty.ms / 1000,
            unit: 's',
            ...(s === 10 ? { target: { op: '<=' as const, value: 61 } } : {}),
          },
          {
            name: `${label}: apply from empty, peak memory`,
            value: timed.empty.maxRss / 2 ** 20,
            unit: 'MB',
            ...(s === 10 ? { target: { op: '<' as const, value: 1024 } } : {}),
          },
          { name: `${label}: apply from empty, requests`, value: emptyRequests, unit: 'requests' },
          { name: `${label}: apply from empty through the counting proxy`, value: empty.ms / 1000, unit: 's' },
          {
            name: `${label}: apply from empty through the counting proxy, peak memory`,
            value: empty.maxRss / 2 ** 20,
            unit: 'MB',
          },
          { name: `${label}: no-op plan`, value: timed.noop.ms / 1000, unit: 's' },
          { name: `${label}: no-op plan, peak memory`, value: timed.noop.maxRss / 2 ** 20, unit: 'MB' },
          {
            name: `${label}: no-op plan after the apply, requests`,
            value: noopRequests,
            unit: 'requests',
            ...(s === 10 ? { target: { op: '<=' as const, value: 20 } } : {}),
          },
          {
            name: `${label}: 1% membership edit, plan requests`,
            value: editPlanRequests,
            unit: 'requests',
            ...(s === 10 ? { target: { op: '<=' as const, value: 100 } } : {}),
          },
          { name: `${label}: 1% membership edit, apply requests`, value: editCounts.requests, unit: 'requests' },
          { name: `${label}: 1% membership edit, writes`, value: writes, unit: 'requests' },
          {
            name: `${label}: 1% membership edit, verification reads`,
            value: verify,
            unit: 'requests',
            ...(s === 1 ? { target: { op: '<=' as const, value: 50 } } : {}),
          },
        );
        notes.push(
          `×${s}: the edit moved ${200 * s} memberships; its apply sent ${editCounts.requests} requests: the plan's reads, ${writes} writes and ${verify} reads to verify them.`,
        );
      } finally {
        await proxy.close();
        await server.close();
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  if (shapes.includes('company')) await runCompanyWide(scales, figures, notes, { writeSplit, runCli });
  notes.push(`load average at the end: ${load()}`);
  return {
    // The company-wide shape alone keeps its own file, so that the spread ladder's figures stay.
    name: shapes.includes('spread') ? 'scale' : 'scale-company',
    description:
      'Issue 32: apply from empty, no-op plan and a 1% edit at ×1, ×3 and ×10 the 10,000-user environment, the CLI against roster serve; issue 42: apply from empty of the company-wide shape (one tenant, 1% tenant-wide holders) at the same sizes.',
    figures,
    notes,
  };
}

/** The configuration as a team splits it: one file per section. */
function writeSplit(dir: string, raw: RawConfigObject): void {
  mkdirSync(dir, { recursive: true });
  const { version: _, ...sections } = raw;
  writeFileSync(path.join(dir, 'roster.yaml'), toYaml({ version: 1, project: 'bench', environment: 'prod' }));
  for (const [name, value] of Object.entries(sections))
    writeFileSync(path.join(dir, `${name}.yaml`), toYaml({ version: 1, [name]: value }));
}

/** The CLI from the build, run as a user's shell runs `roster`, in a process of its own, with its peak memory. */
export type CliRun = { code: number; stdout: string; stderr: string; ms: number; maxRss: number; cpuMs?: number };

function runCli(cwd: string, url: string, args: string[]): Promise<CliRun> {
  const rssFile = path.join(cwd, `maxrss-${Date.now()}`);
  const t = performance.now();
  // The binary itself, as a shell runs `roster`.
  const child = spawn(path.join(ROOT, 'bin/roster.js'), args, {
    cwd,
    env: {
      ...process.env,
      ROSTER_API_URL: url,
      ROSTER_API_KEY: KEY,
      ROSTER_MAXRSS_FILE: rssFile,
      CI: 'true',
      NODE_OPTIONS: `--require ${path.join(ROOT, 'bench/maxrss.cjs')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t;
      let maxRss = 0;
      let cpuMs: number | undefined;
      try {
        maxRss = Number(readFileSync(rssFile, 'utf8'));
        cpuMs = Number(readFileSync(`${rssFile}.cpu`, 'utf8'));
      } catch {
        /* the process died before its exit hook */
      }
      if (code !== 0 && code !== 2)
        return reject(new Error(`roster ${args.join(' ')} exited ${code}: ${stderr.slice(-800)}`));
      resolve({ code: code ?? 1, stdout, stderr, ms, maxRss, ...(cpuMs !== undefined ? { cpuMs } : {}) });
    });
  });
}
