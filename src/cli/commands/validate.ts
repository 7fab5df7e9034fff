import { existsSync } from 'node:fs';
import { ConfigError } from '../../errors.js';
import { loadConfig, renderGithub, renderJson, renderText } from '../../config/index.js';

const FORMATS = ['text', 'json', 'github'] as const;

/** `roster validate [PATH...]`: prints every problem in the chosen format; exit code 1 when invalid. */
export async function validateCommand(paths: string[], opts: { format: string }): Promise<void> {
  const format = opts.format as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) {
    throw new ConfigError(`unknown --format "${opts.format}"`, [{ message: `--format must be one of ${FORMATS.join(', ')}` }]);
  }
  const findings = await loadConfig(paths.length > 0 ? paths : defaultPaths());
  const color = format === 'text' && process.stdout.isTTY === true && !process.env.NO_COLOR;
  const output =
    format === 'json' ? renderJson(findings) : format === 'github' ? renderGithub(findings) : renderText(findings, { color });
  process.stdout.write(output);
  process.exitCode = findings.errors.length > 0 ? 1 : 0;
}

/** `roster.yaml` (or `.yml`), else the `roster/` directory, in the working directory. */
function defaultPaths(): string[] {
  for (const candidate of ['roster.yaml', 'roster.yml', 'roster']) if (existsSync(candidate)) return [candidate];
  throw new ConfigError('no configuration found', [
    { message: 'pass files or directories, or create roster.yaml or a roster/ directory here', hint: 'roster validate path/to/roster.yaml' },
  ]);
}
