import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { openTarget, type TargetOptions } from '../target.js';

export interface ExportCommandOptions extends TargetOptions {
  out?: string;
  diff?: string;
}

/**
 * `roster export [--out DIR|-] [--diff PATH]`: the live environment as configuration (src/config/export.ts).
 * `--out DIR` writes DIR/roster.yaml, `-` (the default) writes to stdout. `--diff PATH` writes nothing:
 * it prints a unified diff from PATH (a file, or a directory's roster.yaml) to the export and exits 1
 * when they differ, 0 when they are the same.
 */
export async function exportCommand(opts: ExportCommandOptions): Promise<void> {
  if (opts.out !== undefined && opts.diff !== undefined) throw new ConfigError('--out and --diff do not go together: --diff only compares');
  const text = await exportLive(opts);
  if (opts.diff !== undefined) {
    const file = existsSync(opts.diff) && statSync(opts.diff).isDirectory() ? path.join(opts.diff, 'roster.yaml') : opts.diff;
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (before === text) {
      process.stderr.write(`${file} matches the live environment.\n`);
      process.exitCode = 0;
      return;
    }
    const { createTwoFilesPatch } = await import('diff');
    process.stdout.write(createTwoFilesPatch(file, `${file} (export)`, before, text, '', '', { context: 3 }));
    process.exitCode = 1;
    return;
  }
  if (opts.out === undefined || opts.out === '-') {
    process.stdout.write(text);
    return;
  }
  mkdirSync(opts.out, { recursive: true });
  const file = path.join(opts.out, 'roster.yaml');
  // Written whole or not at all: a crash never leaves half a configuration behind.
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`wrote ${file}\n`);
}

/** The live environment of the target as configuration text (also `roster init --from-live`). */
export async function exportLive(opts: TargetOptions): Promise<string> {
  const target = await openTarget(opts);
  try {
    const { readLiveState } = await import('../../api/read-live.js');
    const { buildExport } = await import('../../config/export.js');
    return buildExport(await readLiveState(target.client), { source: `${target.project}/${target.environment}` });
  } finally {
    await target.close();
  }
}
