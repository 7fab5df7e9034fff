import { ConfigError } from '../../errors.js';
import type { TargetOptions } from '../../usecases/target.js';
import { runPlan } from '../../usecases/plan.js';
import { parseReplaySince } from '../../usecases/replay.js';
import { printWarnings } from '../report.js';
import { renderPlan, PLAN_FORMATS, type PlanFormat } from '../render-plan.js';
import { savePlanFile } from '../../usecases/plan-file.js';
import { refreshOptions, type RefreshFlags } from '../refresh-flags.js';
import { agree, plural } from '../../words.js';

export interface PlanCommandOptions extends TargetOptions, RefreshFlags {
  prune?: boolean;
  out?: string;
  format: string;
  detailedExitcode?: boolean;
  accessPermissions?: boolean;
  /** `--replay[=SINCE]`: true for the default window. */
  replay?: string | boolean;
}

/** `roster plan`: exit 0 with no changes, 2 with changes under --detailed-exitcode, 1 on error. */
export async function planCommand(paths: string[], opts: PlanCommandOptions): Promise<void> {
  if (!PLAN_FORMATS.includes(opts.format as PlanFormat))
    throw new ConfigError(`--format must be one of ${PLAN_FORMATS.join(', ')}, got '${opts.format}'`);
  const now = new Date();
  const replaySince = opts.replay ? parseReplaySince(opts.replay, now) : undefined;
  const refresh = refreshOptions(opts);
  const plan = await runPlan({ ...opts, paths, refresh, replaySince, now }, printWarnings);
  process.stdout.write(renderPlan(plan, opts.format as PlanFormat));
  // Assertions (docs/check.md) failing on the state after this plan fail it: printed in the plan's
  // access section, and the plan is not saved.
  const failed = plan.access?.assertions?.failed ?? 0;
  if (failed > 0)
    throw new ConfigError(
      `${plural(failed, 'assertion')} of the configuration ${agree(failed, 'fails', 'fail')} on the state after this plan (see above)${opts.out ? `; ${opts.out} was not written` : ''}`,
    );
  if (opts.out) {
    savePlanFile(opts.out, plan);
    // On stderr: stdout holds the plan itself (often redirected to a file or a comment).
    process.stderr.write(
      `Saved the plan to ${opts.out}: apply it with roster apply --plan ${opts.out} (refused if the live environment changes before).\n`,
    );
  }
  process.exitCode = opts.detailedExitcode && plan.changes.length > 0 ? 2 : 0;
}
