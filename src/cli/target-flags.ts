import type { Command } from 'commander';

/**
 * Adds the target flags to a command. `only` prefixes each description, for a command where they apply
 * in one mode only (`init`: with --from-live).
 */
export function targetFlags<T extends Command>(cmd: T, { only = '' }: { only?: string } = {}): T {
  return cmd
    .option(
      '--api-url <url>',
      `${only}a remote service, http(s)://HOST[:PORT] (or ROSTER_API_URL); default: the embedded service over ./.roster`,
    )
    .option('--api-key-file <file>', `${only}file holding the API key (or ROSTER_API_KEY); never printed`)
    .option('--project <project>', `${only}project key (default: the configuration's, else "default")`)
    .option('--env <env>', `${only}environment key (default: the configuration's, else "default")`)
    .option('--data <dir>', `${only}data directory of the embedded service (or ROSTER_DATA_DIR)`)
    .option(
      '--timeout <duration>',
      `${only}give up on a request after this long, retries included: seconds or 90s, 2m (default 2m)`,
    )
    .option(
      '--pacing <mode>',
      `${only}public: stay under the public service's rate limits; none: do not pace (default: public for a remote host, none for a loopback one)`,
    ) as T;
}
