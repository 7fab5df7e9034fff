import { ConfigError } from '../../errors.js';
import type { TargetOptions } from '../../usecases/target.js';
import { planFromFiles } from '../../usecases/workflow.js';
import { printWarnings } from '../report.js';
import { parseReplaySince } from '../../usecases/replay.js';
import { DRIFT_FORMATS, renderDrift } from '../../plan/render-drift.js';
import { readDriftHistory } from '../drift.js';
import { buildDriftReport } from '../../plan/drift.js';

export interface DriftCommandOptions extends TargetOptions {
  format: string;
  since: string;
  detailedExitcode?: boolean;
  prune?: boolean;
}

/**
 * The read a drift report needs: in full, never from a snapshot (once plans may read incrementally, the
 * scheduled full read is what catches what an incremental one could not).
 */
const FULL_READ = { refresh: { mode: 'full' } } as const;

/**
 * `roster drift`: a plan read in full, reported as drift with who changed each object and when (the
 * change history). Exit 0, or 2 with --detailed-exitcode when something drifted; 1 on error.
 */
export async function driftCommand(paths: string[], opts: DriftCommandOptions): Promise<void> {
  if (!(DRIFT_FORMATS as readonly string[]).includes(opts.format))
    throw new ConfigError(`--format must be one of ${DRIFT_FORMATS.join(', ')}, got '${opts.format}'`);
  const since = sinceOf(opts.since, new Date());
  const { warnings, target, plan } = await planFromFiles(paths, 'drift', opts, { prune: opts.prune, ...FULL_READ });
  printWarnings(warnings);
  try {
    const report = buildDriftReport(plan, await readDriftHistory({ target, plan, since }), since);
    process.stdout.write(renderDrift(report, opts.format as 'text'));
    process.exitCode = opts.detailedExitcode && report.objects.length > 0 ? 2 : 0;
  } finally {
    await target.close();
  }
}

function sinceOf(value: string, now: Date): Date {
  try {
    return parseReplaySince(value, now);
  } catch {
    throw new ConfigError(
      `--since takes a duration back from now (30d, 12h) or a date (2026-11-01, 2026-11-01T09:00:00Z), got '${value}'`,
    );
  }
}
