import { ConfigError, type ConfigProblem } from '../../errors.js';
import { loadConfig, renderGithub, renderJson, renderText, type LoadResult } from '../../config/index.js';
import { configPaths, defaultPaths, isLayout, layoutEnvironments } from '../../usecases/config-paths.js';
import { useColor } from '../color.js';

const FORMATS = ['text', 'json', 'github'] as const;

/**
 * `roster validate [PATH...] [--env ENV]`: prints every problem in the chosen format; exit code 1 when
 * invalid. A directory in the several-environments layout (docs/config.md) is validated for the
 * environment `--env` names, or, without it, for each of its environments in turn.
 */
export async function validateCommand(paths: string[], opts: { format: string; env?: string }): Promise<void> {
  const format = opts.format as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) {
    throw new ConfigError(`unknown --format "${opts.format}"`, [
      { message: `--format must be one of ${FORMATS.join(', ')}` },
    ]);
  }
  const env = opts.env ?? (process.env.ROSTER_ENV || undefined);
  const given = defaultPaths(paths, 'validate');
  const layouts = given.filter(isLayout);
  const findings =
    env !== undefined || layouts.length === 0
      ? await loadConfig(configPaths(given, 'validate', env))
      : await validateEach(given, [...new Set(layouts.flatMap(layoutEnvironments))]);
  const color = format === 'text' && useColor();
  const output =
    format === 'json'
      ? renderJson(findings)
      : format === 'github'
        ? renderGithub(findings)
        : renderText(findings, { color });
  process.stdout.write(output);
  process.exitCode = findings.errors.length > 0 ? 1 : 0;
}

/**
 * Every environment of the layout, one after the other. A problem in a shared file is reported once;
 * when only some environments have it, the message names them.
 */
async function validateEach(given: string[], envs: string[]): Promise<LoadResult> {
  if (envs.length === 0) return loadConfig(configPaths(given, 'validate', undefined)); // the layout's own error
  const seen = new Map<string, { problem: ConfigProblem; envs: string[] }>();
  for (const env of envs) {
    const result = await loadConfig(configPaths(given, 'validate', env));
    for (const p of [...result.errors, ...result.warnings]) {
      const key = JSON.stringify([p.file, p.line, p.column, p.severity, p.message]);
      const entry = seen.get(key) ?? seen.set(key, { problem: p, envs: [] }).get(key)!;
      entry.envs.push(env);
    }
  }
  const all = [...seen.values()].map(({ problem, envs: where }) =>
    where.length === envs.length
      ? problem
      : {
          ...problem,
          message: `${problem.message} (in ${where.length === 1 ? 'the environment' : 'the environments'} ${where.join(', ')})`,
        },
  );
  return { errors: all.filter((p) => p.severity !== 'warning'), warnings: all.filter((p) => p.severity === 'warning') };
}
