import type { Command } from 'commander';
import { ConfigError } from '../errors.js';
import { parseDuration } from '../types/duration.js';
import { REFRESH_MODES, type RefreshMode } from '../types/read.js';
import type { RefreshOptions } from '../usecases/workflow.js';

/** `--refresh` and its limits, on `plan` and `apply` (docs/plan.md, "Incremental reads"). */
export function refreshFlags<T extends Command>(cmd: T): T {
  return cmd
    .option(
      '--refresh <how>',
      'how the live state is read: auto (from the last snapshot and the change history when possible, else in full) | full | incremental (fail instead of reading in full)',
      'auto',
    )
    .option('--refresh-max-age <duration>', 'read in full when the snapshot is older than this (default 7d)')
    .option(
      '--refresh-max-calls <n>',
      'read in full when the change history lists more writes than this since the snapshot (default 1000)',
    ) as T;
}

export interface RefreshFlags {
  refresh?: string;
  refreshMaxAge?: string;
  refreshMaxCalls?: string;
}

export function refreshOptions(opts: RefreshFlags): RefreshOptions {
  const mode = (opts.refresh ?? 'auto') as RefreshMode;
  if (!REFRESH_MODES.includes(mode))
    throw new ConfigError(`--refresh must be one of ${REFRESH_MODES.join(', ')}, got '${opts.refresh}'`);
  let maxAgeMs: number | undefined;
  if (opts.refreshMaxAge !== undefined) {
    const d = parseDuration(opts.refreshMaxAge);
    if (!d.ok) throw new ConfigError(`--refresh-max-age: ${d.message}`);
    maxAgeMs = d.ms;
  }
  let maxCalls: number | undefined;
  if (opts.refreshMaxCalls !== undefined) {
    if (!/^[0-9]+$/.test(opts.refreshMaxCalls))
      throw new ConfigError(`--refresh-max-calls must be a whole number, got '${opts.refreshMaxCalls}'`);
    maxCalls = Number(opts.refreshMaxCalls);
  }
  return { mode, maxAgeMs, maxCalls };
}
