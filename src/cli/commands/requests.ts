import { ConfigError } from '../../errors.js';
import { runRequestsVerb, type RequestsOptions, type RequestsVerb } from '../../usecases/requests.js';
import { renderJson, renderText } from '../render-requests.js';

export type { RequestsOptions, RequestsVerb };

/**
 * `roster requests <verb>` (src/usecases/requests.ts): access requests for scripts, CI and chat bots.
 * Refusals by the service are thrown as `ApiError` (exit 1, the service's message); `--format json`
 * prints the read model as sent, and no warnings.
 */
export async function requestsCommand(
  verb: RequestsVerb,
  id: string | undefined,
  opts: RequestsOptions,
): Promise<void> {
  if (opts.format !== 'text' && opts.format !== 'json')
    throw new ConfigError(`unknown --format "${opts.format}": use text or json`);
  const json = opts.format === 'json';
  const show = (o: Parameters<typeof renderJson>[0]) =>
    void process.stdout.write(json ? renderJson(o) : renderText(o, Date.now()));
  const warnings = await runRequestsVerb(verb, id, opts, show, !json);
  for (const w of warnings) process.stderr.write(`warning: ${w}\n`);
}
