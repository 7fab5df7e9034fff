import { ConfigError } from '../../errors.js';
import type { AdoptInput } from '../../usecases/adopt.js';
import { runAdopt } from '../../usecases/adopt.js';
import { printWarnings } from '../report.js';
import { renderAdoptionJson, renderAdoptionText } from '../render-adopt.js';

export interface AdoptCommandOptions extends AdoptInput {
  format: string;
}

/**
 * `roster requests adopt [PATH...] [--dry-run]` (src/usecases/adopt.ts): writes the grants approved access
 * requests made, and the configuration does not declare, into the configuration files as declared roles
 * of their users, then prints what changed; `--dry-run` prints the edit as a diff and writes nothing.
 */
export async function adoptCommand(paths: string[], opts: AdoptCommandOptions): Promise<void> {
  if (opts.format !== 'text' && opts.format !== 'json')
    throw new ConfigError(`--format must be text or json, got '${opts.format}'`);
  const { adoption, edits } = await runAdopt(paths, opts, printWarnings);
  process.stdout.write(
    opts.format === 'json'
      ? renderAdoptionJson(adoption, edits, opts.dryRun === true)
      : await renderAdoptionText(adoption, edits, opts.dryRun === true),
  );
}
