import { ConfigError } from '../../errors.js';
import { CHECK_FORMATS, type CheckFormat, renderCheck, renderConfigErrorsJunit } from '../../access/check-report.js';
import { closeAccessState, openAccessState, type AccessStateOptions } from './access-state.js';
import { readRequestGrants } from '../../api/read-request-grants.js';
import { classifyRequestGrants } from '../../plan/request-grants.js';
import { heldLookup } from '../../plan/render-held.js';
import { evaluateAssertions, checksNeeded } from '../../access/assertions.js';
import { readDecisions } from '../../api/read-decisions.js';
import { pdpOf } from '../../usecases/target.js';
import { abacFromState } from '../../access/abac/model.js';
import { readLiveSets } from './check-live-sets.js';
import { writeExactUpdates } from './check-update.js';

export interface CheckCommandOptions extends AccessStateOptions {
  format: string;
  verbose?: boolean;
  /** Rewrite the `exactly:` lists of exact-set assertions from the model (or the live service). */
  update?: boolean;
}

/**
 * `roster check [PATH...] [--live]`: evaluates the configuration's assertions on the desired state
 * (offline), or on the live service (POST /allowed/bulk decides `can`/`cannot`; `has_role` and the
 * paths come from the live state). Exit 1 when any assertion fails.
 */
/** The grants of approved requests the configuration does not declare, held or expired (an expired one grants until revoked). */
async function readHeldLookup(
  client: import('../../api/index.js').ApiClient,
  desired: import('../../types/desired.js').DesiredState,
  live: import('../../types/live.js').LiveState,
) {
  const grants = classifyRequestGrants(desired, live, await readRequestGrants(client), new Date());
  const expired = [...grants.expired.values()].map(({ kind, before, expired: e }) => {
    const f = before as Record<string, string>;
    return kind === 'member'
      ? { user: f.user, role: 'member', on: f.group, expired: e }
      : { user: f.user, role: f.role, on: f.on ?? f.tenant, expired: e };
  });
  return heldLookup(grants.held, expired);
}

export async function checkCommand(paths: string[], opts: CheckCommandOptions): Promise<void> {
  if (!CHECK_FORMATS.includes(opts.format as CheckFormat))
    throw new ConfigError(`--format must be one of ${CHECK_FORMATS.join(', ')}, got '${opts.format}'`);
  const state = await openAccessState(paths, opts, 'check', true).catch(async (err: unknown) => {
    // JUnit goes to a CI report step: an invalid configuration is a failed suite there, not an empty file.
    if (opts.format === 'junit' && err instanceof ConfigError) {
      process.stdout.write(
        renderConfigErrorsJunit(
          err.message,
          err.problems.filter((p) => p.severity !== 'warning'),
        ),
      );
    }
    throw err;
  });
  try {
    const assertions = state.desired!.assertions;
    let decisions: Map<string, boolean> | undefined;
    let liveSets: Map<string, string[]> | undefined;
    if (state.on === 'live') {
      const pdp = pdpOf(state.target);
      decisions = await readDecisions(pdp.client, state.target, checksNeeded(assertions, state.graph), pdp);
      liveSets = await readLiveSets(state, assertions);
    }
    // Set rules are decided (offline) and explained (both) on the state the graph was built from.
    const source = state.on === 'desired' ? state.desired : state.live;
    const abac = { state: source, view: abacFromState(source) };
    let report = evaluateAssertions(assertions, state.graph, { decisions, abac, liveSets });
    // A `cannot` that fails on the live service may fail through an approved access request's grant:
    // only then are the requests read (one list per element configuration), to name it.
    if (
      state.on === 'live' &&
      state.desired &&
      report.results.some((r) => r.failures.some((f) => f.paths.length > 0))
    ) {
      const held = await readHeldLookup(state.target.client, state.desired, state.live);
      report = evaluateAssertions(assertions, state.graph, { decisions, held, abac, liveSets });
    }
    // --update: the exact-set assertions whose list it rewrote hold now; the output still shows what changed.
    const rewritten = opts.update ? writeExactUpdates(report) : new Set();
    process.stdout.write(renderCheck(report, opts.format as CheckFormat, { verbose: opts.verbose, on: state.on }));
    // Assertions not decided offline do not fail the run: they are printed, and skipped in JUnit.
    process.exitCode = report.results.every((r) => r.status !== 'failed' || rewritten.has(r)) ? 0 : 1;
  } finally {
    await closeAccessState(state);
  }
}
