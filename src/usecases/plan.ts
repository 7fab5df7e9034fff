import type { ConfigProblem } from '../errors.js';
import type { Plan } from '../plan/index.js';
import type { TargetOptions } from './target.js';
import { planFromFiles, type RefreshOptions } from './workflow.js';
import { replayPlan } from './replay.js';

/** What `roster plan` does, its options parsed (cli/commands/plan.ts parses them). */
export interface PlanInput extends TargetOptions {
  paths: string[];
  prune?: boolean;
  accessPermissions?: boolean;
  refresh?: RefreshOptions;
  /** `--replay`: replay the decisions logged since then against the plan (src/plan/replay.ts). */
  replaySince?: Date;
  now?: Date;
}

/**
 * `roster plan`: read the configuration and the live state, plan, with its access section (and the
 * assertions on the state after it) and, when asked, the replay of recent decisions. The configuration's
 * warnings go to `onWarnings` as soon as it validates, before the replay's reads.
 */
export async function runPlan(input: PlanInput, onWarnings: (w: ConfigProblem[]) => void): Promise<Plan> {
  const { warnings, target, plan, live } = await planFromFiles(input.paths, 'plan', input, {
    prune: input.prune,
    access: { permissions: input.accessPermissions },
    refresh: input.refresh,
  });
  onWarnings(warnings);
  try {
    const since = input.replaySince;
    if (since) plan.replay = await replayPlan({ target, live, plan, since, now: input.now ?? new Date() });
    return plan;
  } finally {
    await target.close();
  }
}
