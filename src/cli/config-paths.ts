import { existsSync } from 'node:fs';
import { ConfigError } from '../errors.js';

/** The paths given, else `roster.yaml` (or `.yml`), else the `roster/` directory in the working directory. */
export function configPaths(paths: string[], command = 'validate'): string[] {
  if (paths.length > 0) return paths;
  for (const candidate of ['roster.yaml', 'roster.yml', 'roster']) if (existsSync(candidate)) return [candidate];
  throw new ConfigError('no configuration found', [
    { message: 'pass files or directories, or create roster.yaml or a roster/ directory here', hint: `roster ${command} path/to/roster.yaml` },
  ]);
}
