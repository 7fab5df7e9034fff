/**
 * The configuration `roster init --environments dev,staging,prod` writes: roster/shared/roster.yaml
 * (what every environment declares) and roster/envs/<env>/roster.yaml for each (its project,
 * environment, variables and objects). The layout is described in docs/config.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { ENVS_DIR, SHARED_DIR } from '../config-paths.js';
import { PACKAGE_ROOT } from './installed-from.js';
import { ENVIRONMENT_NAME } from './workflow-environments.js';
import { variablesBlock, type EnvironmentVariable } from './variables.js';

/** `dev,staging,prod` to its environments, in the order given; refused when empty, repeated or not a plain name. */
export function parseEnvironments(list: string): string[] {
  const envs = list
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (envs.length === 0)
    throw new ConfigError('--environments needs at least one environment, e.g. --environments dev,staging,prod');
  const bad = envs.filter((e) => !ENVIRONMENT_NAME.test(e));
  if (bad.length > 0) {
    throw new ConfigError(
      `--environments: ${bad.map((e) => `"${e}"`).join(', ')} cannot name an environment folder and a GitHub job (letters, digits, - and _, starting with a letter or digit, at most 40)`,
    );
  }
  const twice = envs.filter((e, i) => envs.indexOf(e) !== i);
  if (twice.length > 0) throw new ConfigError(`--environments names ${twice[0]} twice`);
  return envs;
}

/** The files of the layout, relative to the repository. */
export function layoutFiles(environments: string[]): { file: string; content: string; what: string }[] {
  const template = (name: string) => readFileSync(path.join(PACKAGE_ROOT, 'templates', 'environments', name), 'utf8');
  return [
    {
      file: `roster/${SHARED_DIR}/roster.yaml`,
      content: template('shared.yaml').replace('COMMANDS', sharedCommands(environments)),
      what: 'what every environment declares',
    },
    ...environmentFiles(environments),
  ];
}

/**
 * The folder of each environment, relative to the repository (also what adding one to a layout writes,
 * with `variables` giving the values of every variable its shared folder uses: src/usecases/init/variables.ts).
 */
export function environmentFiles(
  environments: string[],
  variables?: (env: string) => EnvironmentVariable[],
): { file: string; content: string; what: string }[] {
  const envTemplate = readFileSync(path.join(PACKAGE_ROOT, 'templates', 'environments', 'env.yaml'), 'utf8');
  return [
    ...environments.map((env) => {
      const content = envTemplate.replaceAll('ENVIRONMENT', env);
      const block = variables && variablesBlock(variables(env), env);
      return {
        file: `roster/${ENVS_DIR}/${env}/roster.yaml`,
        content: block === undefined ? content : content.replace(TEMPLATE_VARIABLES, () => (block ? `${block}\n` : '')),
        what: `the environment ${env}`,
      };
    }),
  ];
}

/** The template's `variables:` block (for the shared template's one variable), and the blank line after it. */
const TEMPLATE_VARIABLES = /^# The values of the variables[^\n]*\nvariables:\n(?: {2}[^\n]*\n)*\n?/m;

/** The commands the shared file's header shows, naming environments the layout has (never one it lacks). */
function sharedCommands(environments: string[]): string {
  const [first, second] = environments;
  const lines: [string, string][] = [
    ['npx --no roster validate roster/', 'every environment'],
    [`npx --no roster plan roster/ --env ${first}`, `this folder plus roster/envs/${first}/`],
  ];
  if (second) lines.push([`npx --no roster diff ${first} ${second}`, 'what differs between two environments']);
  const width = Math.max(...lines.map(([c]) => c.length)) + 3;
  return lines.map(([c, what]) => `${c.padEnd(width)}${what}`).join('\n#   ');
}
