import { ConfigError } from '../../errors.js';
import { loadConfig, renderGithub, renderJson, renderText } from '../../config/index.js';
import { configPaths } from '../config-paths.js';
import { useColor } from '../color.js';

const FORMATS = ['text', 'json', 'github'] as const;

/** `roster validate [PATH...]`: prints every problem in the chosen format; exit code 1 when invalid. */
export async function validateCommand(paths: string[], opts: { format: string }): Promise<void> {
  const format = opts.format as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) {
    throw new ConfigError(`unknown --format "${opts.format}"`, [{ message: `--format must be one of ${FORMATS.join(', ')}` }]);
  }
  const findings = await loadConfig(configPaths(paths, 'validate'));
  const color = format === 'text' && useColor();
  const output =
    format === 'json' ? renderJson(findings) : format === 'github' ? renderGithub(findings) : renderText(findings, { color });
  process.stdout.write(output);
  process.exitCode = findings.errors.length > 0 ? 1 : 0;
}
