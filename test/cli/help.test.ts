/** `--help` says what every argument and flag is for, marks what is required, and names the environment. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../src/cli/commands.js';
import { runCli } from '../helpers/cli.js';

function allCommands(root: Command): Command[] {
  return [root, ...root.commands.flatMap((c) => allCommands(c as Command))];
}

describe('roster --help', () => {
  const program = new Command('roster');
  registerCommands(program);
  const commands = allCommands(program).filter((c) => c !== program);

  it('describes every argument and every option of every command', () => {
    const missing: string[] = [];
    for (const cmd of commands) {
      const name = cmd.parent && cmd.parent !== program ? `${cmd.parent.name()} ${cmd.name()}` : cmd.name();
      for (const a of cmd.registeredArguments) if (!a.description) missing.push(`${name} <${a.name()}>`);
      for (const o of cmd.options) if (!o.description) missing.push(`${name} ${o.long}`);
    }
    expect(missing).toEqual([]);
  });

  it('marks required options as required', () => {
    for (const cmd of commands)
      for (const o of cmd.options.filter((o) => o.mandatory))
        expect(o.description, `${cmd.name()} ${o.long}`).toMatch(/\(required\)/);
  });

  it('says that init takes the target flags only with --from-live', () => {
    const init = commands.find((c) => c.name() === 'init')!;
    for (const flag of ['--api-url', '--api-key-file', '--project', '--env', '--data', '--pacing']) {
      expect(init.options.find((o) => o.long === flag)?.description, flag).toMatch(/^with --from-live: /);
    }
  });

  it('has an environment section naming every variable Roster reads', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    const section = r.stdout.slice(r.stdout.indexOf('Environment:'));
    for (const v of [
      'ROSTER_API_URL',
      'ROSTER_API_KEY',
      'ROSTER_PDP_URL',
      'ROSTER_PROJECT',
      'ROSTER_ENV',
      'ROSTER_DATA_DIR',
      'ROSTER_DATABASE_URL',
      'NO_COLOR',
      'FORCE_COLOR',
      'CI',
    ]) {
      expect(section).toMatch(new RegExp(`^  ${v} `, 'm'));
    }
    expect(r.stdout).toContain('--color <when>');
  });
});
