import type { Command } from 'commander';

/** Adds the target flags to a command. */
export function targetFlags<T extends Command>(cmd: T): T {
  return cmd
    .option('--api-url <url>', 'a remote service (or ROSTER_API_URL); default: the embedded service over ./.roster')
    .option('--api-key-file <file>', 'file holding the API key (or ROSTER_API_KEY); never printed')
    .option('--project <project>', 'project key (default: the configuration\'s, else "default")')
    .option('--env <env>', 'environment key (default: the configuration\'s, else "default")')
    .option('--data <dir>', 'data directory of the embedded service (or ROSTER_DATA_DIR)')
    .option('--timeout <duration>', 'give up on a request after this long, retries included: seconds or 90s, 2m (default 2m)')
    .option('--pacing <mode>', "public: stay under the public service's rate limits; none: do not pace (default: public for a remote host, none for a loopback one)") as T;
}
