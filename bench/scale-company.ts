/**
 * Issue 42, "Apply from empty in bounded memory": the scale ladder's company-wide shape. One tenant, and
 * one user in 100 holding `admin` tenant-wide over every instance (a company-wide deployment), at the
 * same sizes as scale.bench.ts's environment (×1: 10,000 users, 2,000 instances, 1,000 groups). The
 * spread environment puts 5 tenants per ×1, so its tenant-wide holders reach a fifth of the instances
 * at ×1 and a fiftieth at ×10; here they reach every instance at every size, and the (user, instance)
 * pairs they hold grow with users × instances (20 million at ×10). Recorded: the apply from empty's time
 * and the CLI's peak resident memory, straight to `roster serve`, with no V8 flag (the CLI runs as users
 * run it; NODE_OPTIONS carries only the preload that records its peak).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateEnvironment } from './generate.js';
import { serveProcess } from './plan.bench.js';
import type { BenchFigure } from './run.js';
import type { RawConfigObject } from './generate.js';
import type { CliRun } from './scale.bench.js';

/** scale.bench.ts's own ways of writing the configuration and running the CLI (passed in: no import cycle). */
export interface ScaleTools {
  writeSplit: (dir: string, raw: RawConfigObject) => void;
  runCli: (cwd: string, url: string, args: string[]) => Promise<CliRun>;
}

export const COMPANY_WIDE = { tenants: 1, tenantWideEvery: 100 } as const;

export async function runCompanyWide(
  scales: number[],
  figures: BenchFigure[],
  notes: string[],
  { writeSplit, runCli }: ScaleTools,
): Promise<void> {
  const times = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const s of scales) {
    const work = mkdtempSync(path.join(os.tmpdir(), `roster-bench-company${s}-`));
    try {
      const raw = generateEnvironment({
        users: 10_000 * s,
        groups: 1_000 * s,
        maxDepth: 8,
        instances: 2_000 * s,
        memberships: 20_000 * s,
        seed: 7,
        groupRoles: 'by-type',
        ...COMPANY_WIDE,
      });
      writeSplit(path.join(work, 'roster'), raw);
      const service = await serveProcess(path.join(work, 'data'));
      try {
        const empty = await runCli(work, service.url, ['apply', 'roster', '--yes', '--format', 'json']);
        const out = JSON.parse(empty.stdout) as { applied: string[] };
        const holders = Object.values(raw.users).filter((u) => u.roles?.some((r) => 'tenant' in r)).length;
        const instances = Object.keys(raw.resource_instances).length;
        const label = `company-wide ×${s} (${out.applied.length.toLocaleString('en-US')} changes from empty)`;
        times.set(s, empty.ms / 1000);
        cpu.set(s, (empty.cpuMs ?? 0) / 1000);
        figures.push(
          { name: `${label}: apply from empty`, value: empty.ms / 1000, unit: 's' },
          {
            name: `${label}: apply from empty, peak memory`,
            value: empty.maxRss / 2 ** 20,
            unit: 'MB',
            ...(s === 10 ? { target: { op: '<' as const, value: 1024 } } : {}),
          },
          { name: `${label}: apply from empty, CPU of the CLI`, value: (empty.cpuMs ?? 0) / 1000, unit: 's' },
        );
        notes.push(
          `company-wide ×${s}: ${holders.toLocaleString('en-US')} tenant-wide holders over ${instances.toLocaleString('en-US')} instances (${(holders * instances).toLocaleString('en-US')} pairs).`,
        );
      } finally {
        await service.close();
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  // Time per object at ×10 over time per object at ×1 (the objects grow 10x): at most 1.2.
  const one = times.get(1);
  const ten = times.get(10);
  if (one !== undefined && ten !== undefined)
    figures.push({
      name: 'company-wide: apply from empty, time ×10 / (10 × time ×1)',
      value: ten / (10 * one),
      unit: 'x',
      target: { op: '<=', value: 1.2 },
    });
  // The same of the CLI's CPU time, which other work on the machine moves much less.
  const cpuOne = cpu.get(1);
  const cpuTen = cpu.get(10);
  if (cpuOne && cpuTen)
    figures.push({ name: 'company-wide: CLI CPU ×10 / (10 × CLI CPU ×1)', value: cpuTen / (10 * cpuOne), unit: 'x' });
}
