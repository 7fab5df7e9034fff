import { Command } from 'commander';
import { reportError } from './report.js';
import { registerCommands } from './commands.js';
import { setColorMode } from './color.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

/** Entry of the `roster` binary. Commands load their modules lazily so that `--version` stays fast. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('roster')
    .description('Authorization environment as code: validate, plan and apply, serve, review.')
    .version(VERSION, '-V, --version')
    .option(
      '--color <when>',
      'auto | always | never (default auto: on a terminal, unless NO_COLOR; FORCE_COLOR forces it)',
    )
    .option('--no-color', 'the same as --color never')
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .hook('preAction', () => {
      const { color } = program.opts<{ color?: string | boolean }>();
      setColorMode(color === false ? 'never' : color === true ? undefined : color);
    });
  registerCommands(program);
  program.addHelpText('after', ENVIRONMENT_HELP);
  pointAtHelp(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = reportError(err);
  }
}

/**
 * After a usage error (an unknown option or command, a missing argument), one line pointing at the
 * command's own help, not the whole help: the error stays the last thing the user reads.
 */
function pointAtHelp(command: Command, names: string[] = []): void {
  const path = ['roster', ...names].join(' ');
  command.showHelpAfterError(`(run '${path} --help' for its usage)`);
  for (const sub of command.commands) pointAtHelp(sub, [...names, sub.name()]);
}

// Kept in sync with package.json by test/cli/version.test.ts.
export const VERSION = '0.1.0';
