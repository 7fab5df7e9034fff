import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type ConfigProblem } from '../../errors.js';
import type { TargetOptions } from '../../usecases/target.js';
import { installedFrom, PACKAGE_ROOT } from '../init/installed-from.js';
import { mergeGitignore, mergePackageJson, PACKAGE_NAME, packageName, type PackageJson } from '../init/package-json.js';
import { layoutFiles, parseEnvironments } from '../init/environments.js';
import { environmentsWorkflow } from '../init/workflow-environments.js';
import { planAddition } from '../init/add-environment.js';
import { withHeader } from '../../config/export.js';
import { agree } from '../../words.js';
import { exportLiveFrom } from '../../usecases/export.js';
import Database from 'better-sqlite3';

export interface InitCommandOptions extends TargetOptions {
  force?: boolean;
  fromLive?: boolean;
  /** `dev,staging,prod`: the several-environments layout (src/cli/init/environments.ts). */
  environments?: string;
}

/** The files `roster init` writes whole; package.json and .gitignore are merged instead. */
export const CONFIG_FILE = 'roster/roster.yaml';
export const WORKFLOW_FILE = '.github/workflows/roster.yml';

interface Write {
  file: string;
  content: string;
  verb: 'created' | 'replaced' | 'updated';
  what: string;
}

/**
 * `roster init [DIR]`: scaffolds a configuration repository (docs/ci.md): a starter configuration (or,
 * with --from-live, what `roster export` writes; with --environments, a shared folder and one folder per
 * environment, docs/config.md), the workflow that plans pull requests and applies on
 * merge, `.gitignore` entries, and the package.json entries. Refuses, writing nothing, when the
 * configuration or the workflow exists (--force replaces them); package.json and .gitignore only gain
 * entries, nothing in them is changed.
 */
export async function initCommand(dirArg: string | undefined, opts: InitCommandOptions): Promise<void> {
  const dir = path.resolve(dirArg ?? '.');
  const targetFlags = (['apiUrl', 'apiKeyFile', 'project', 'env', 'data'] as const).filter(
    (k) => opts[k] !== undefined,
  );
  if (targetFlags.length > 0 && !opts.fromLive) {
    throw new ConfigError(
      `${targetFlags.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} only ${agree(targetFlags.length, 'goes', 'go')} with --from-live: without it, roster init reads no service`,
    );
  }
  const environments = opts.environments === undefined ? undefined : parseEnvironments(opts.environments);
  if (environments && opts.fromLive) {
    throw new ConfigError(
      '--from-live and --environments do not go together: write the layout, then compare each environment with it (`roster export --env ENV --diff roster/`, docs/config.md)',
    );
  }
  // An environment added to an existing layout: its folder and jobs, nothing else rewritten.
  const addition = environments && !opts.force ? planAddition(dir, environments, WORKFLOW_FILE) : undefined;
  const layout = environments ? (addition ? addition.files : layoutFiles(environments)) : undefined;
  const conflicts = addition ? [] : findConflicts(dir, layout ? layout.map((f) => f.file) : [CONFIG_FILE]);
  if (conflicts.length > 0 && !opts.force) {
    throw new ConfigError(
      `roster init would overwrite what exists in ${dir}; nothing was written (--force replaces ${environments ? 'the configuration files' : CONFIG_FILE} and ${WORKFLOW_FILE})`,
      conflicts,
    );
  }

  // Everything read, and refused if unreadable, before the live environment is: nothing is written on error.
  const existing = readPackageJson(dir);
  const merged = mergePackageJson(existing?.json, {
    name: packageName(path.basename(dir)),
    rosterSpec: installedFrom(dir),
  });
  const gitignore = mergeGitignore(readText(path.join(dir, '.gitignore')));

  const writes: Write[] = [];
  let live: LiveTarget | undefined;
  const verb = (file: string) => (existsSync(path.join(dir, file)) ? 'replaced' : 'created');
  if (addition && layout) {
    for (const f of layout) writes.push({ ...f, verb: verb(f.file) });
    writes.push({
      file: WORKFLOW_FILE,
      verb: existsSync(path.join(dir, WORKFLOW_FILE)) ? 'updated' : 'created',
      ...addition.workflow,
    });
  } else if (environments && layout) {
    for (const f of layout) writes.push({ ...f, verb: verb(f.file) });
    writes.push({
      file: WORKFLOW_FILE,
      verb: verb(WORKFLOW_FILE),
      content: environmentsWorkflow(environments),
      what: 'plans each environment a pull request touches (a comment each), applies each on merge, expires grants on a schedule, reports drift daily (one issue each)',
    });
  } else {
    const config = opts.fromLive
      ? await fromLive(opts)
      : { content: template('roster.yaml'), what: 'a starter configuration' };
    if ('target' in config) live = config.target;
    writes.push({ file: CONFIG_FILE, verb: verb(CONFIG_FILE), content: config.content, what: config.what });
    writes.push({
      file: WORKFLOW_FILE,
      verb: verb(WORKFLOW_FILE),
      content: template('workflow.yml'),
      what: 'plans each pull request (as a comment), applies on merge to main, reports drift daily (one issue)',
    });
  }

  if (gitignore.added.length > 0) {
    writes.push({
      file: '.gitignore',
      verb: existsSync(path.join(dir, '.gitignore')) ? 'updated' : 'created',
      content: gitignore.text,
      what: `+ ${gitignore.added.join(', ')}`,
    });
  }

  if (merged.added.length > 0) {
    writes.push({
      file: 'package.json',
      verb: existing ? 'updated' : 'created',
      content: `${JSON.stringify(merged.json, null, existing?.indent ?? 2)}\n`,
      what: `+ ${merged.added.join(', ')}`,
    });
  }

  for (const w of writes) writeWhole(path.join(dir, w.file), w.content);

  const width = Math.max(...writes.map((w) => w.file.length));
  const out = [
    `roster init: ${dir}`,
    ...writes.map((w) => `  ${w.verb.padEnd(8)} ${w.file.padEnd(width)}  ${w.what}`),
    '',
  ];
  out.push(
    ...(await nextSteps(
      dir,
      merged.json,
      merged.denied,
      environments,
      addition?.existing,
      live && { ...live, apiUrl: opts.apiUrl },
    )),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * `--from-live`: the export, authoritative, and naming the environment it came from when a flag (or
 * ROSTER_PROJECT/ROSTER_ENV) named it, so the files plan against that environment, not the default one.
 */
async function fromLive(opts: InitCommandOptions): Promise<{ content: string; what: string; target: LiveTarget }> {
  const { text, target } = await exportLiveFrom(opts, { refuseEmptyEmbedded: true });
  const named =
    opts.project !== undefined || opts.env !== undefined || !!process.env.ROSTER_PROJECT || !!process.env.ROSTER_ENV;
  const scope = named ? { project: target.project, environment: target.environment } : {};
  const where = named ? ` of ${target.project}/${target.environment}` : '';
  return {
    content: authoritative(text, scope),
    what: `the live environment${where}, as \`roster export\` writes it, authoritative`,
    target: { ...target, named },
  };
}

/** Where `--from-live` read, for the next steps. */
interface LiveTarget {
  kind: 'embedded' | 'remote';
  where: string;
  project: string;
  environment: string;
  named: boolean;
}

/** What exists and would be overwritten: the files written whole, and a configuration already in roster/. */
function findConflicts(dir: string, configFiles: string[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const file of [...configFiles, WORKFLOW_FILE]) {
    if (existsSync(path.join(dir, file))) problems.push({ file: path.join(dir, file), message: 'exists' });
  }
  const rosterDir = path.join(dir, 'roster');
  if (existsSync(rosterDir)) {
    const ours = new Set(configFiles.map((f) => path.relative('roster', f)));
    const others = readdirSync(rosterDir, { recursive: true, encoding: 'utf8' }).filter(
      (f) => /\.ya?ml$/.test(f) && !ours.has(f),
    );
    if (others.length > 0) {
      problems.push({
        file: rosterDir,
        message: `holds a configuration already (${others.sort().slice(0, 3).join(', ')}${others.length > 3 ? ', ...' : ''}); ${configFiles.length === 1 ? configFiles[0] : 'the configuration written'} would be merged with it`,
      });
    }
  }
  return problems;
}

async function nextSteps(
  dir: string,
  pkg: PackageJson,
  denied: string[],
  environments?: string[],
  existing?: string[],
  live?: LiveTarget & { apiUrl?: string },
): Promise<string[]> {
  const at = path.relative(process.cwd(), dir);
  const cd = at === '' ? '' : `cd ${/^[\w./-]+$/.test(at) ? at : JSON.stringify(at)} && `;
  const deps = { ...(pkg.dependencies as object), ...(pkg.devDependencies as object) } as Record<string, unknown>;
  const declared = deps[PACKAGE_NAME];
  const spec = typeof declared === 'string' ? declared : undefined;
  const steps: string[] = [];
  const toCommit = ['roster/', '.github/', '.gitignore', 'package.json', 'package-lock.json'];
  const notes: string[] = denied.map(
    (key) =>
      `warning: package.json's allowScripts denies ${key}; the embedded default and \`roster serve\` need its install script`,
  );
  if (spec === undefined) {
    steps.push(
      `${cd}npm install --save-dev ROSTER   (ROSTER: a git URL, or a tarball in this repository; see Roster's README)`,
    );
  } else {
    steps.push(`${cd}npm install   (writes package-lock.json, from which CI installs with npm ci)`);
    const tarball = spec.startsWith('file:') ? path.resolve(dir, spec.slice('file:'.length)) : undefined;
    if (tarball && path.relative(dir, tarball).startsWith('..')) {
      notes.push(
        `note: package.json installs Roster from ${tarball}, outside this repository, where CI cannot reach it: commit the tarball, or install Roster from a git URL`,
      );
    } else if (tarball) {
      // CI installs from the lock file, which names the tarball: it must be in the commit too.
      toCommit.push(path.relative(dir, tarball).split(path.sep).join('/'));
    }
  }
  const broken = await embeddedDefaultProblem();
  if (broken)
    steps.push(
      `${cd}npm rebuild better-sqlite3   (its install script has not run, so the embedded default cannot start: ${broken})`,
    );
  if (environments && existing) {
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/ --env ${environments[0]}   (against the embedded default in ./.roster)`,
    );
    steps.push(
      `on GitHub, Settings > Environments: create ${environments.join(', ')}; in each, the secret ROSTER_API_KEY (a key scoped to it, for its apply, expire and drift jobs) and any protection rules`,
    );
  } else if (environments) {
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/ --env ${environments[0]}   (against the embedded default in ./.roster)`,
    );
    steps.push(
      'on GitHub, Settings > Secrets and variables > Actions: add the variable ROSTER_API_URL and the secret ROSTER_API_KEY (a key that reads every environment, for the plans)',
    );
    steps.push(
      `on GitHub, Settings > Environments: create ${environments.join(', ')}; in each, the secret ROSTER_API_KEY (a key scoped to it, for its apply, expire and drift jobs) and any protection rules (required reviewers for ${environments[environments.length - 1]})`,
    );
  } else if (live?.kind === 'remote') {
    // The plan the next step suggests reads the environment the export came from, not the embedded default.
    const flag = live.apiUrl ? ` --api-url ${live.apiUrl}` : '';
    const scope = live.named
      ? `${live.project}/${live.environment}, as roster/roster.yaml names it`
      : `${live.project}/${live.environment}, the key's environment`;
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/${flag}   (against ${live.where}, ${scope}; ${live.apiUrl ? 'ROSTER_API_KEY' : 'ROSTER_API_URL and ROSTER_API_KEY'} as for this init: it plans no changes)`,
    );
    steps.push(
      'on GitHub, Settings > Secrets and variables > Actions: add the variable ROSTER_API_URL and the secret ROSTER_API_KEY (a key scoped to one environment)',
    );
  } else {
    steps.push(
      `${cd}npx --no roster validate roster/ && npx --no roster plan roster/   (against the embedded default in ./.roster)`,
    );
    steps.push(
      'on GitHub, Settings > Secrets and variables > Actions: add the variable ROSTER_API_URL and the secret ROSTER_API_KEY (a key scoped to one environment)',
    );
  }
  steps.push(
    `commit (${toCommit.join(' ')}) and open a pull request: its plan appears as a comment; merging to main applies it (another branch: edit \`branches:\` in ${WORKFLOW_FILE})`,
  );
  return ['Next steps:', ...steps.map((s, i) => `  ${i + 1}. ${s}`), ...notes];
}

/** Roster's own check that the native module loads; undefined when it does. */
async function embeddedDefaultProblem(): Promise<string | undefined> {
  try {
    new Database(':memory:').close();
    return undefined;
  } catch (err) {
    return (err as Error).message.split('\n')[0];
  }
}

/**
 * The exported configuration, declared authoritative (docs/config.md#authoritative): it declares the whole
 * live environment, so from now on what a pull request removes from it is deleted on merge.
 */
export function authoritative(exported: string, scope: { project?: string; environment?: string } = {}): string {
  return withHeader(exported, { ...scope, schemaLine: schemaLine(), authoritative: true });
}

/** The starter's first line, `# yaml-language-server: $schema=…`: the editor's completion and checks. */
function schemaLine(): string {
  return template('roster.yaml').split('\n', 1)[0];
}

function template(name: string): string {
  return readFileSync(path.join(PACKAGE_ROOT, 'templates', name), 'utf8');
}

function readText(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The project's package.json, and its indentation (kept when the file is rewritten). */
function readPackageJson(dir: string): { json: PackageJson; indent: string } | undefined {
  const file = path.join(dir, 'package.json');
  const text = readText(file);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file} is not valid JSON; nothing was written`, [
      { file, message: (err as Error).message },
    ]);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new ConfigError(`${file} is not a JSON object; nothing was written`);
  return { json: json as PackageJson, indent: /^([ \t]+)"/m.exec(text)?.[1] ?? '  ' };
}

/** Written whole or not at all: a crash never leaves half a file behind. */
function writeWhole(file: string, content: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, content);
    renameSync(`${file}.tmp`, file);
  } catch (err) {
    throw new ConfigError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
