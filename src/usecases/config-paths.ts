import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';

/**
 * The several-environments layout (docs/config.md, written by `roster init --environments`): a
 * configuration directory holding `shared/` (what every environment declares) and `envs/<env>/` (one
 * folder per environment, naming its `project:` and `environment:`). Such a directory stands for
 * `shared/` plus the folder of the environment chosen with `--env` (or ROSTER_ENV).
 */
export const SHARED_DIR = 'shared';
export const ENVS_DIR = 'envs';

/**
 * The paths given, else `roster.yaml` (or `.yml`), else the `roster/` directory in the working directory;
 * a directory in the layout above becomes its shared folder plus the folder of `env`.
 */
export function configPaths(paths: string[], command = 'validate', env = envSetting()): string[] {
  return defaultPaths(paths, command).flatMap((p) => (isLayout(p) ? layoutPaths(p, env, command) : [p]));
}

/** The paths given, or the default one; directories in the layout are not expanded. */
export function defaultPaths(paths: string[], command = 'validate'): string[] {
  if (paths.length > 0) return paths;
  for (const candidate of ['roster.yaml', 'roster.yml', 'roster']) if (existsSync(candidate)) return [candidate];
  throw new ConfigError('no configuration found', [
    {
      message: 'pass files or directories, or create roster.yaml or a roster/ directory here',
      hint: `roster ${command} path/to/roster.yaml`,
    },
  ]);
}

/** True when `dir` is a directory with an `envs/` folder: the several-environments layout. */
export function isLayout(dir: string): boolean {
  return isDirectory(dir) && isDirectory(path.join(dir, ENVS_DIR));
}

/** The environments of a layout directory: the folders under `envs/`, sorted. */
export function layoutEnvironments(dir: string): string[] {
  return readdirSync(path.join(dir, ENVS_DIR), { withFileTypes: true })
    .filter(
      (e) =>
        !e.name.startsWith('.') &&
        (e.isDirectory() || (e.isSymbolicLink() && isDirectory(path.join(dir, ENVS_DIR, e.name)))),
    )
    .map((e) => e.name)
    .sort();
}

/** `dir/shared` (when it exists) and `dir/envs/<env>`; an error naming the environments when env is missing or unknown. */
export function layoutPaths(dir: string, env: string | undefined, command = 'plan'): string[] {
  const envs = layoutEnvironments(dir);
  const listed = envs.length > 0 ? `: ${envs.join(', ')}` : ' (none yet)';
  if (env === undefined) {
    throw new ConfigError(`${dir} holds one folder per environment${listed}; name one with --env`, [
      {
        file: path.join(dir, ENVS_DIR),
        message: 'several environments, and no --env (or ROSTER_ENV) to choose one',
        hint: `roster ${command} ${dir} --env ${envs[0] ?? 'ENV'}`,
      },
    ]);
  }
  if (!envs.includes(env)) {
    throw new ConfigError(`${dir} has no folder for the environment "${env}"${listed}`, [
      {
        file: path.join(dir, ENVS_DIR, env),
        message: 'no such folder',
        hint: `create ${path.join(dir, ENVS_DIR, env)}/ with its project: and environment:, or pass one of the environments above`,
      },
    ]);
  }
  const stray = strayFiles(dir);
  if (stray.length > 0) {
    // Read, they would apply to every environment; unread, silently lost: neither is what was meant.
    throw new ConfigError(
      `${dir} holds configuration outside ${SHARED_DIR}/ and ${ENVS_DIR}/<env>/, which no environment reads`,
      stray.slice(0, 10).map((f) => ({
        file: path.join(dir, f),
        message: "not in shared/ nor in an environment's folder",
        hint: `move it into ${path.join(dir, SHARED_DIR)}/ (every environment) or ${path.join(dir, ENVS_DIR, env)}/ (this one)`,
      })),
    );
  }
  const shared = path.join(dir, SHARED_DIR);
  return [...(isDirectory(shared) ? [shared] : []), path.join(dir, ENVS_DIR, env)];
}

/** YAML files of a layout directory outside shared/ and envs/ (hidden folders and node_modules aside, as the walk does). */
function strayFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.ya?ml$/i.test(f))
    .filter((f) => {
      const parts = f.split(path.sep);
      return (
        parts[0] !== SHARED_DIR &&
        parts[0] !== ENVS_DIR &&
        !parts.some((p) => p.startsWith('.') || p === 'node_modules')
      );
    })
    .sort();
}

/** ROSTER_ENV; '' (as CI sets an unset variable) counts as unset. */
function envSetting(): string | undefined {
  return process.env.ROSTER_ENV || undefined;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
