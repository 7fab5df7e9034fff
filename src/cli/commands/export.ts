import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { ConfigError } from '../../errors.js';
import type { TargetOptions } from '../../usecases/target.js';
import { runExport } from '../../usecases/export.js';
import { renderDiffText } from '../render-diff.js';

export interface ExportCommandOptions extends TargetOptions {
  out?: string;
  diff?: string;
}

/**
 * `roster export [--out DIR|-] [--diff PATH]` (src/usecases/export.ts): the live environment as
 * configuration. `--out DIR` writes DIR/roster.yaml, `-` (the default) writes to stdout. `--diff PATH`
 * writes nothing and exits 1 when they differ, 0 when they are the same: for a file, it prints a unified
 * diff from the file to the export; for a directory, the objects whose declared state differs from the live one.
 */
export async function exportCommand(opts: ExportCommandOptions): Promise<void> {
  if (opts.out !== undefined && opts.diff !== undefined)
    throw new ConfigError('--out and --diff do not go together: --diff only compares');
  const run = await runExport(opts);
  if (run.kind === 'directory') {
    const { dir, differences, left } = run;
    const note = left.length > 0 ? `Not compared (${dir} does not manage them): ${left.join(', ')}.` : undefined;
    if (differences.length === 0) {
      process.stderr.write(`${dir} matches the live environment.${note ? ` ${note}` : ''}\n`);
      process.exitCode = 0;
      return;
    }
    process.stdout.write(renderDiffText({ on: 'declared against live', a: dir, b: 'live', differences, note }));
    process.exitCode = 1;
    return;
  }
  if (run.kind === 'file') {
    const { file, before, text } = run;
    if (before === text) {
      process.stderr.write(`${file} matches the live environment.\n`);
      process.exitCode = 0;
      return;
    }
    process.stdout.write(createTwoFilesPatch(file, `${file} (export)`, before, text, '', '', { context: 3 }));
    process.exitCode = 1;
    return;
  }
  if (opts.out === undefined || opts.out === '-') {
    process.stdout.write(run.text);
    return;
  }
  mkdirSync(opts.out, { recursive: true });
  const file = path.join(opts.out, 'roster.yaml');
  // Written whole or not at all: a crash never leaves half a configuration behind.
  writeFileSync(`${file}.tmp`, run.text);
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`wrote ${file}\n`);
}
