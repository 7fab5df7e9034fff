import type { DesiredState } from '../types/desired.js';
import type { ConfigProblem } from '../errors.js';
import { ConfigError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import type { PlanAccessInput } from '../plan/access.js';
import type { LiveState } from '../types/live.js';
import { openTarget, type Target, type TargetOptions } from './target.js';
import type { RequestGrant } from '../types/live.js';
import { configPaths } from './config-paths.js';
import { agree, plural } from '../words.js';
import type { LiveReadSummary, RefreshMode } from '../types/read.js';

/**
 * The use cases shared by the commands: read the configuration (a config error never reaches the API as
 * a write), read the live state, plan.
 */
export async function loadDesired(
  paths: string[],
  command: string,
  options: { offline?: boolean; env?: string } = {},
): Promise<{ desired: DesiredState; warnings: ConfigProblem[] }> {
  const { loadConfig } = await import('../config/index.js');
  const result = await loadConfig(configPaths(paths, command, options.env));
  if (!result.desired || result.errors.length > 0)
    throw configErrors(result.errors, options.offline ? undefined : 'sent');
  return { desired: result.desired, warnings: result.warnings };
}

export interface PlanOptions {
  prune?: boolean;
  /** Add the plan's access section (src/plan/access.ts), with the assertions evaluated after the plan. */
  access?: { permissions?: boolean; withGraphs?: PlanAccessInput['withGraphs'] };
  /** How the live state is read (`--refresh`, src/read/); default `auto`. */
  refresh?: RefreshOptions;
}

/** `--refresh`, `--refresh-max-age`, `--refresh-max-calls` (docs/plan.md, "Incremental reads"). */
export interface RefreshOptions {
  mode?: RefreshMode;
  maxAgeMs?: number;
  maxCalls?: number;
}

interface LiveRead {
  live: LiveState;
  requestGrants: RequestGrant[];
  summary: LiveReadSummary;
}

/**
 * `roster plan` and `roster apply` from configuration files: the files are validated (on a worker thread
 * when large, src/config/validate-aside.ts) while the live state is read, so a plan takes the longer of
 * the two, not their sum. Only reads go out before the configuration validates; on a configuration error
 * they are dropped, the error is reported, and nothing is written. The environment is the one the flags,
 * the configuration or ROSTER_PROJECT/ROSTER_ENV name (`project:` and `environment:` are read from the
 * files' text up front, and checked against the validated configuration).
 */
export async function planFromFiles(
  paths: string[],
  command: string,
  opts: TargetOptions,
  options: PlanOptions,
  /** How to reach the service for a scope; the bench passes its own. */
  open: (scope: { project?: string; environment?: string }) => Promise<Target> = (scope) => openTarget(opts, scope),
): Promise<{
  desired: DesiredState;
  warnings: ConfigProblem[];
  target: Target;
  plan: Plan;
  live: LiveState;
  requestGrants: RequestGrant[];
}> {
  const { readConfigFiles } = await import('../config/read.js');
  const { validateAside } = await import('../config/validate-aside.js');
  const files = await readConfigFiles(configPaths(paths, command, opts.env));
  // An export of a remote service with no service named: refused before anything is read (provenance.ts).
  const { checkExportedTarget } = await import('./provenance.js');
  const warning = checkExportedTarget(files.sources, opts, command);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
  const validating = noUnhandled(
    validateAside(files.sources).then((r) => ({ ...r, errors: [...files.errors, ...r.errors] })),
  );
  const early = await open(peekScope(files.sources)).then(
    (target) => ({ target, reading: noUnhandled(readLive(target, options.refresh, undefined, validating)) }),
    (error: unknown) => ({ error }),
  );
  const loaded = await validating.catch(async (err) => {
    if ('target' in early) await early.target.close();
    throw err;
  });
  if (!loaded.desired || loaded.errors.length > 0) {
    if ('target' in early) await early.target.close();
    throw configErrors(loaded.errors, 'written');
  }
  const desired = loaded.desired;
  // The target could not be opened from what the text seemed to say (a scope written in a form the peek
  // does not read): open it from the validated configuration, whose errors, if any, come first.
  let { target, reading } =
    'target' in early ? early : await open(desired).then((t) => ({ target: t, reading: readLive(t, options.refresh) }));
  try {
    // The configuration names another environment than its text seemed to: read that one instead.
    const want = {
      project: opts.project ?? desired.project ?? target.project,
      environment: opts.env ?? desired.environment ?? target.environment,
    };
    if (want.project !== target.project || want.environment !== target.environment) {
      await target.close();
      target = await open(desired);
      reading = readLive(target, options.refresh);
    }
    const read = await reading;
    const { plan, live } = await planOf(desired, target, read, options);
    const kept = await valuesKeptWarnings(plan, desired, live, files.sources);
    return { desired, warnings: [...loaded.warnings, ...kept], target, plan, live, requestGrants: read.requestGrants };
  } catch (err) {
    await target.close();
    throw err;
  }
}

/**
 * The live state and the grants of approved access requests, read in full or incrementally from the last
 * snapshot (src/read/live.ts), which it then renews.
 */
export async function readLive(
  target: Target,
  refresh: RefreshOptions = {},
  own?: readonly string[],
  /** The snapshot is opened once this settles: the validation, whose peak would add to its own. */
  after?: Promise<unknown>,
  /** When the writes of `own` ended (src/read/live.ts, `letOwnWritesAge`). */
  writesEndedAt?: number,
): Promise<LiveRead> {
  const { readLive: read } = await import('../read/live.js');
  return read({
    client: target.client,
    snapshot: target.snapshot,
    refresh: refresh.mode,
    maxAgeMs: refresh.maxAgeMs,
    maxCalls: refresh.maxCalls,
    own,
    after,
    writesEndedAt,
  });
}

async function planOf(
  desired: DesiredState,
  target: Target,
  { live, requestGrants, summary }: LiveRead,
  options: PlanOptions,
): Promise<{ plan: Plan; live: LiveState }> {
  const { planChanges } = await import('../plan/plan.js');
  const plan = planChanges(desired, live, {
    project: target.project,
    environment: target.environment,
    prune: options.prune,
    requestGrants,
  });
  plan.target = target.where;
  if (target.snapshot) plan.read = summary;
  // Against a service other than the embedded default, say what applying will cost at the public limits.
  if (target.kind === 'remote' && plan.changes.length > 0) {
    const { estimateApply } = await import('../apply/estimate.js');
    const { estimateVerify } = await import('../apply/verify-scope.js');
    plan.cost = { ...(await estimateApply(plan)), verify: estimateVerify(plan, desired, live), paced: target.paced };
  }
  if (options.access) {
    const { planAccess } = await import('../plan/access.js');
    const { heldLookup } = await import('../plan/render-held.js');
    plan.access = planAccess({
      live,
      changes: plan.changes,
      permissions: options.access.permissions,
      assertions: desired.assertions,
      held: heldLookup(plan.held?.grants ?? []),
      withGraphs: options.access.withGraphs,
    });
  }
  return { plan, live };
}

/**
 * A warning for each attribute definition the plan deletes while live objects it leaves alone keep values
 * for its key (src/plan/values-kept.ts), at the section of the configuration that no longer declares it.
 */
async function valuesKeptWarnings(
  plan: Plan,
  desired: DesiredState,
  live: LiveState,
  sources: { file: string; text: string }[],
): Promise<ConfigProblem[]> {
  const { valuesKept } = await import('../plan/values-kept.js');
  const found = valuesKept(plan.changes, desired, live);
  if (found.length === 0) return [];
  const { problemInSources } = await import('../config/source.js');
  const NOUN = { user_attribute: 'user', tenant_attribute: 'tenant', resource_attribute: 'instance' } as const;
  return found.map((v) => {
    const section =
      v.resource !== undefined
        ? ['resources', v.resource, 'attributes']
        : [v.kind === 'user_attribute' ? 'user_attributes' : 'tenant_attributes'];
    const what =
      v.resource !== undefined ? `attribute "${v.key}" of "${v.resource}"` : `${NOUN[v.kind]} attribute "${v.key}"`;
    const shown = v.holders.slice(0, 5).join(', ') + (v.holders.length > 5 ? ', ...' : '');
    return problemInSources(
      sources,
      section,
      `the plan deletes the definition of ${what}, but ${plural(v.holders.length, NOUN[v.kind])} ${agree(v.holders.length, 'keeps', 'keep')} a value for it (${shown}): the service keeps the values, and decisions ignore them`,
      {
        severity: 'warning',
        hint: `declare it again under ${section.join('.')}, or remove the values`,
      },
    );
  });
}

/** `project:` and `environment:` as the files write them at the top level (plain or quoted scalars). */
export function peekScope(sources: { text: string }[]): { project?: string; environment?: string } {
  const scope: { project?: string; environment?: string } = {};
  for (const { text } of sources) {
    for (const key of ['project', 'environment'] as const) {
      const m = new RegExp(
        `^${key}:[ \\t]*(?:"([^"\\\\\\n]*)"|'([^'\\n]*)'|([^\\s#'"][^\\s#]*))[ \\t]*(?:#.*)?$`,
        'm',
      ).exec(text);
      if (m) scope[key] ??= m[1] ?? m[2] ?? m[3];
    }
  }
  return scope;
}

/** A rejection nobody may wait for (the configuration failed first) is not an unhandled one. */
function noUnhandled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/**
 * `sent`: nothing went to the service; `written`: reads may have started (planFromFiles), no write did;
 * undefined: the command works offline (check, explain without --live), so the service is not mentioned.
 */
function configErrors(errors: ConfigProblem[], nothing: 'sent' | 'written' | undefined): ConfigError {
  const count = plural(errors.length, 'error');
  return new ConfigError(
    nothing
      ? `the configuration has ${count}; nothing was ${nothing} to the service`
      : `the configuration has ${count}`,
    errors,
  );
}
