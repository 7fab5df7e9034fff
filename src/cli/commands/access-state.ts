import type { DesiredState } from '../../types/desired.js';
import type { LiveState } from '../../types/live.js';
import type { AccessGraph } from '../../access/index.js';
import { openTarget, type Target, type TargetOptions } from '../../usecases/target.js';
import { loadDesired } from '../../usecases/workflow.js';
import { printWarnings } from '../report.js';
import { configPaths } from '../../usecases/config-paths.js';
import { buildAccessGraph } from '../../access/index.js';
import { factsFromState } from '../../access/from-state.js';
import { repositoryScope } from '../../usecases/repository-scope.js';
import { readLiveState } from '../../api/read-live.js';
import { checkExportedFiles } from '../../usecases/provenance.js';

export interface AccessStateOptions extends TargetOptions {
  live?: boolean;
}

/** The state `check` and `explain` look at: the configuration offline, or the live service with --live. */
export type AccessState =
  | { on: 'desired'; desired: DesiredState; graph: AccessGraph }
  | { on: 'live'; desired?: DesiredState; live: LiveState; graph: AccessGraph; target: Target };

/**
 * Offline: load the configuration (PATHs, else roster.yaml or roster/). Live: read the live state; the
 * configuration is read too when PATHs are given or a default exists (its project/environment and, for
 * `check`, its assertions), else the target flags alone name the environment.
 */
export async function openAccessState(
  paths: string[],
  opts: AccessStateOptions,
  command: string,
  needConfig: boolean,
): Promise<AccessState> {
  if (!opts.live) {
    const { desired, warnings } = await loadDesired(paths, command, { offline: true, env: opts.env });
    printWarnings(warnings);
    return { on: 'desired', desired, graph: buildAccessGraph(factsFromState(desired)) };
  }
  let desired: DesiredState | undefined;
  if (needConfig || paths.length > 0) {
    const loaded = await loadDesired(paths, command, { env: opts.env });
    printWarnings(loaded.warnings);
    desired = loaded.desired;
  }
  // Without PATHs (explain --live), the repository's configuration still names the environment.
  const scope = desired ?? (await repositoryScope(opts, command));
  // The configuration read for --live, exported from a remote service: not read against the embedded one.
  if (desired) await checkExportedFiles(configPaths(paths, command, opts.env), opts, command);
  const target = await openTarget(opts, scope);
  try {
    const live = await readLiveState(target.client);
    return { on: 'live', desired, live, graph: buildAccessGraph(factsFromState(live)), target };
  } catch (err) {
    await target.close();
    throw err;
  }
}

export async function closeAccessState(state: AccessState): Promise<void> {
  if (state.on === 'live') await state.target.close();
}
