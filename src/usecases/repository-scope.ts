import { configPaths, defaultPaths } from './config-paths.js';
import { checkExportedTarget } from './provenance.js';
import type { TargetOptions } from './target.js';

/** A project or environment key read from a configuration, and the file that names it. */
interface Named {
  value: string;
  file: string;
}

/**
 * The project and environment a command that takes no configuration path acts on (`requests`,
 * `review`, `export`, `explain --live` without PATHs), when no flag (or ROSTER_PROJECT, ROSTER_ENV)
 * names them: those the repository's configuration names, `roster.yaml` or `roster/` in the working
 * directory (`roster init` writes `roster/`; in the several-environments layout, the folder of --env),
 * or the files `paths` when given (`export --diff FILE`). Said on stderr, with the file, so the target
 * is never a surprise. Nothing there, or a layout without --env: nothing (the flags, the key's own
 * environment, or the defaults decide, as before). A flag wins over the files: these commands are not
 * given the configuration, so a flag naming another environment is not a contradiction.
 *
 * The files are also checked for where they were exported from (provenance.ts): an export of a remote
 * service read with no service named is refused.
 */
export async function repositoryScope(
  opts: TargetOptions,
  command: string,
  paths: string[] = [],
): Promise<{ project?: string; environment?: string }> {
  let files: string[];
  try {
    files = configPaths(defaultPaths(paths), command, opts.env);
  } catch {
    return {};
  }
  const { readConfigFiles } = await import('../config/read.js');
  const { peekScope } = await import('./workflow.js');
  const { sources } = await readConfigFiles(files);
  const warning = checkExportedTarget(sources, opts, command);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
  const found: { project?: Named; environment?: Named } = {};
  for (const source of sources) {
    const scope = peekScope([source]);
    for (const key of ['project', 'environment'] as const) {
      const value = scope[key];
      // A `${variable}` is the configuration's to substitute: not a key to act on.
      if (value !== undefined && !value.includes('${')) found[key] ??= { value, file: source.file };
    }
  }
  const project = (opts.project ?? setting('ROSTER_PROJECT')) === undefined ? found.project : undefined;
  const environment = (opts.env ?? setting('ROSTER_ENV')) === undefined ? found.environment : undefined;
  if (!project && !environment) return {};
  process.stderr.write(`${usingLine(project, environment)}\n`);
  return { project: project?.value, environment: environment?.value };
}

/** `using project acme and environment prod, as roster/roster.yaml names them` (or each with its own file). */
function usingLine(project: Named | undefined, environment: Named | undefined): string {
  if (project && environment && project.file === environment.file)
    return `using project ${project.value} and environment ${environment.value}, as ${project.file} names them`;
  const parts = [
    project && `project ${project.value}, as ${project.file} names it`,
    environment && `environment ${environment.value}, as ${environment.file} names it`,
  ].filter(Boolean);
  return `using ${parts.join('; ')}`;
}

function setting(name: string): string | undefined {
  return process.env[name] || undefined;
}
