import { ConfigError } from '../../errors.js';
import { CHECK_FORMATS, type CheckFormat } from '../../access/check-report.js';
import { closeAccessState, openAccessState, type AccessStateOptions } from './access-state.js';

export interface CheckCommandOptions extends AccessStateOptions {
  format: string;
  verbose?: boolean;
}

/**
 * `roster check [PATH...] [--live]`: evaluates the configuration's assertions on the desired state
 * (offline), or on the live service (POST /allowed/bulk decides `can`/`cannot`; `has_role` and the
 * paths come from the live state). Exit 1 when any assertion fails.
 */
export async function checkCommand(paths: string[], opts: CheckCommandOptions): Promise<void> {
  if (!CHECK_FORMATS.includes(opts.format as CheckFormat)) throw new ConfigError(`--format must be one of ${CHECK_FORMATS.join(', ')}, got '${opts.format}'`);
  const { evaluateAssertions, checksNeeded } = await import('../../access/assertions.js');
  const { renderCheck } = await import('../../access/check-report.js');
  const state = await openAccessState(paths, opts, 'check', true).catch(async (err: unknown) => {
    // JUnit goes to a CI report step: an invalid configuration is a failed suite there, not an empty file.
    if (opts.format === 'junit' && err instanceof ConfigError) {
      const { renderConfigErrorsJunit } = await import('../../access/check-report.js');
      process.stdout.write(renderConfigErrorsJunit(err.message, err.problems.filter((p) => p.severity !== 'warning')));
    }
    throw err;
  });
  try {
    const assertions = state.desired!.assertions;
    let decisions: Map<string, boolean> | undefined;
    if (state.on === 'live') {
      const { readDecisions } = await import('../../api/read-decisions.js');
      decisions = await readDecisions(state.target.client, state.target, checksNeeded(assertions, state.graph));
    }
    const report = evaluateAssertions(assertions, state.graph, { decisions });
    process.stdout.write(renderCheck(report, opts.format as CheckFormat, { verbose: opts.verbose, on: state.on }));
    process.exitCode = report.passed ? 0 : 1;
  } finally {
    await closeAccessState(state);
  }
}
