import type { DesiredState } from '../config/desired.js';
import type { ConfigProblem } from '../errors.js';
import { ConfigError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import type { LiveState } from '../plan/live.js';
import type { Target } from './target.js';
import { configPaths } from './config-paths.js';
import { problemLine } from './report.js';
import { redactSecrets } from '../secrets.js';

/**
 * The use cases shared by plan, apply, check and export: read the configuration (a config error never
 * reaches the API), read the live state, plan.
 */
export async function loadDesired(paths: string[], command: string): Promise<{ desired: DesiredState; warnings: ConfigProblem[] }> {
  const { loadConfig } = await import('../config/index.js');
  const result = await loadConfig(configPaths(paths, command));
  if (!result.desired || result.errors.length > 0) {
    throw new ConfigError(`the configuration has ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}; nothing was sent to the service`, result.errors);
  }
  return { desired: result.desired, warnings: result.warnings };
}

/** `access`: add the plan's access section (src/plan/access.ts), with the assertions evaluated after the plan. */
export async function computePlan(desired: DesiredState, target: Target, options: { prune?: boolean; access?: { permissions?: boolean } }): Promise<{ plan: Plan; live: LiveState }> {
  const { readLiveState } = await import('../api/read-live.js');
  const { readRequestGrants } = await import('../api/read-request-grants.js');
  const { planChanges } = await import('../plan/plan.js');
  const { withSharedLists } = await import('../api/index.js');
  // Both readers need the users and the element configurations: each list is read once.
  const reader = withSharedLists(target.client);
  const [live, requestGrants] = await Promise.all([readLiveState(reader), readRequestGrants(reader)]);
  const plan = planChanges(desired, live, { project: target.project, environment: target.environment, prune: options.prune, requestGrants });
  // Against a service other than the embedded default, say what applying will cost at the public limits.
  if (target.kind === 'remote' && plan.changes.length > 0) {
    const { estimateApply } = await import('../apply/estimate.js');
    plan.cost = await estimateApply(plan);
  }
  if (options.access) {
    const { planAccess } = await import('../plan/access.js');
    plan.access = planAccess({ live, changes: plan.changes, permissions: options.access.permissions, assertions: desired.assertions });
  }
  return { plan, live };
}

export function printWarnings(warnings: ConfigProblem[]): void {
  for (const w of warnings) process.stderr.write(redactSecrets(`warning: ${problemLine(w)}`) + '\n');
}
