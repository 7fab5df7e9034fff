import type { Command } from 'commander';

/**
 * Every command, visible in one place. Each action imports its module on demand and is thin: parse
 * options, call one use-case function, hand the result to a renderer, set the exit code.
 */
export function registerCommands(program: Command): void {
  program
    .command('serve')
    .description('run the local /v2 authorization service (fastify over SQLite)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '7766')
    .option('--data <dir>', 'data directory (SQLite file roster.db inside)', process.env.ROSTER_DATA_DIR ?? './.roster')
    .option('--api-key <key>', 'organisation-wide API key (or ROSTER_API_KEY)')
    .option('--env-key <project/env=key>', 'environment-scoped key; repeatable', collect, [])
    .option('--quiet', 'no request logs')
    .action(async (opts) => (await import('./commands/serve.js')).serveCommand(opts));

  program
    .command('validate')
    .description('check configuration files: schema, then semantic rules (exit 1 when invalid)')
    .argument('[paths...]', 'files or directories (default: roster.yaml or roster/)')
    .option('--format <format>', 'text | json | github', 'text')
    .action(async (paths: string[], opts) => (await import('./commands/validate.js')).validateCommand(paths, opts));
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
