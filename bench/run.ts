/**
 * `npm run bench`: runs every bench/*.bench.ts (or those named on the command line), each of which
 * exports `run(): Promise<BenchResult>`. Figures go to bench/results/<name>.json and a human summary to
 * bench/results/SUMMARY.md. Benchmarks measure; they never fail a build.
 */
import { readdirSync, writeFileSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  /** Target, when the issue sets one, e.g. { op: '<', value: 1 }. */
  target?: { op: '<' | '<=' | '>' | '>='; value: number };
}

export interface BenchResult {
  name: string;
  description: string;
  figures: BenchFigure[];
  notes?: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsDir = path.join(here, 'results');
mkdirSync(resultsDir, { recursive: true });

const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  // `npm run bench -- plan` runs plan.bench.ts only, not access-plan.bench.ts.
  .filter((f) => only.length === 0 || only.some((o) => f === `${o}.bench.ts` || f === o))
  .sort();

function meets(f: BenchFigure): string {
  if (!f.target) return '';
  const { op, value } = f.target;
  const ok =
    op === '<' ? f.value < value : op === '<=' ? f.value <= value : op === '>' ? f.value > value : f.value >= value;
  return `${ok ? 'meets' : 'MISSES'} target ${op} ${value}`;
}

for (const file of files) {
  const mod = await import(pathToFileURL(path.join(here, file)).href);
  process.stdout.write(`bench ${file} ...\n`);
  const result: BenchResult = await mod.run();
  const record = {
    ...result,
    at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      node: process.version,
      memGiB: Math.round(os.totalmem() / 2 ** 30),
    },
  };
  writeFileSync(path.join(resultsDir, `${result.name}.json`), JSON.stringify(record, null, 2) + '\n');
  for (const f of result.figures) process.stdout.write(`  ${f.name}: ${round(f.value)} ${f.unit} ${meets(f)}\n`);
}

// The summary covers every result on disk, so running one bench keeps the others' figures.
const lines = [
  '# Benchmark summary',
  '',
  'Written by `npm run bench`. Figures from the last run of each benchmark.',
  '',
];
for (const f of readdirSync(resultsDir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const r = JSON.parse(readFileSync(path.join(resultsDir, f), 'utf8'));
  lines.push(
    `## ${r.name}`,
    '',
    r.description,
    '',
    `Run at ${r.at} on ${r.machine.cpus} cores (${r.machine.model}), Node ${r.machine.node}.`,
    '',
  );
  lines.push('| figure | value | target |', '|---|---|---|');
  for (const fig of r.figures as BenchFigure[])
    lines.push(`| ${fig.name} | ${round(fig.value)} ${fig.unit} | ${meets(fig)} |`);
  for (const n of r.notes ?? []) lines.push('', `- ${n}`);
  lines.push('');
}
if (existsSync(resultsDir)) writeFileSync(path.join(resultsDir, 'SUMMARY.md'), lines.join('\n'));

function round(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}
