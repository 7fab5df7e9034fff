import { Command } from 'commander';
import { reportError } from './report.js';
import { registerCommands } from './commands.js';

/** Entry of the `roster` binary. Commands load their modules lazily so that `--version` stays fast. */
export async function main(argv: string[]): Promise<void> {
  const program = new Command('roster')
    .description('Authorization environment as code: validate, plan and apply, serve, review.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerCommands(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = reportError(err);
  }
}

// Kept in sync with package.json by test/cli/version.test.ts.
export const VERSION = '0.1.0';
