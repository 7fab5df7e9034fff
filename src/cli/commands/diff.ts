import { ConfigError } from '../../errors.js';
import type { TargetOptions } from '../../usecases/target.js';
import { readLiveAsDeclared } from '../../usecases/export.js';
import { defaultPaths, isLayout, layoutEnvironments } from '../../usecases/config-paths.js';
import { loadDesired } from '../../usecases/workflow.js';
import { renderDiffJson, renderDiffText, type DiffReport } from '../render-diff.js';
import { diffEnvironments } from '../../plan/environments.js';

export interface DiffCommandOptions extends TargetOptions {
  live?: boolean;
  format: string;
  detailedExitcode?: boolean;
}

/**
 * `roster diff A B [PATH]`: what differs between the environments A and B of a configuration directory
 * in the several-environments layout (docs/config.md): their declared states (shared/ plus envs/A/, and
 * shared/ plus envs/B/), or with --live their live states, each read as `roster export` writes it. Lists
 * each object only one has, and the fields of each object both have that differ. Exit 0; with
 * --detailed-exitcode, 2 when they differ.
 */
export async function diffCommand(a: string, b: string, paths: string[], opts: DiffCommandOptions): Promise<void> {
  if (opts.format !== 'text' && opts.format !== 'json')
    throw new ConfigError(`--format must be text or json, got '${opts.format}'`);
  if (opts.env !== undefined) throw new ConfigError('roster diff takes its two environments as arguments, not --env');
  const layout = layoutOf(paths, !opts.live);
  const sides = [];
  for (const env of [a, b]) {
    const declared =
      layout && (!opts.live || layoutEnvironments(layout).includes(env))
        ? (await loadDesired([layout], 'diff', { env })).desired
        : undefined;
    sides.push(
      opts.live
        ? await readLiveAsDeclared({
            ...opts,
            project: opts.project ?? declared?.project,
            env: declared?.environment ?? env,
          })
        : declared!,
    );
  }
  const report: DiffReport = {
    on: opts.live ? 'live' : 'declared',
    a,
    b,
    differences: diffEnvironments(sides[0], sides[1]),
  };
  process.stdout.write(opts.format === 'json' ? renderDiffJson(report) : renderDiffText(report));
  process.exitCode = opts.detailedExitcode && report.differences.length > 0 ? 2 : 0;
}

/** The layout directory given (or the default one); required to compare declared states. */
function layoutOf(paths: string[], required: boolean): string | undefined {
  if (paths.length > 1)
    throw new ConfigError('roster diff takes one configuration directory (shared/ and envs/<env>/)');
  let given: string[];
  try {
    given = defaultPaths(paths, 'diff');
  } catch (err) {
    if (!required) return undefined;
    throw err;
  }
  if (isLayout(given[0])) return given[0];
  if (!required) return undefined;
  throw new ConfigError(`${given[0]} is not a directory of several environments`, [
    {
      file: given[0],
      message: 'roster diff compares two environments of a directory holding shared/ and envs/<env>/ (docs/config.md)',
      hint: 'roster init --environments dev,staging,prod writes one; or compare live environments with --live --project P',
    },
  ]);
}
