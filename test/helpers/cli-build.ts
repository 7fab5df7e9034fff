import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { cliBuildDir, ROOT } from './cli-build-dir.js';

/**
 * Global setup: the CLI the tests run as a child process is JavaScript, transpiled from src/ file by file
 * with esbuild (about a second; no type check: `npm run typecheck` does that) into a directory beside src/
 * (`.test-build-<run>/`, the same depth, so that every path a module finds from its own URL holds), and
 * removed at the end. Through tsx each child compiled the sources again: 2 to 3 times the start-up of
 * built JavaScript, paid by every `runCli` (test/README.md, "Where the time goes").
 */
export default async function setup() {
  const out = cliBuildDir();
  // Every project of the run inherits this setup, in the one vitest process: built once, removed after the last.
  const shared = ((globalThis as { [SHARED]?: { users: number; built: Promise<unknown> } })[SHARED] ??= {
    users: 0,
    built: buildInto(out),
  });
  shared.users++;
  await shared.built;
  return () => {
    if (--shared.users === 0) rmSync(out, { recursive: true, force: true });
  };
}

const SHARED = Symbol.for('roster.test.cliBuild');

async function buildInto(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: sources(path.join(ROOT, 'src')),
    outdir: out,
    outbase: path.join(ROOT, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    jsx: 'automatic',
    logLevel: 'warning',
  });
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}
