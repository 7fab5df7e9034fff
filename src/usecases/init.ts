import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import type { TargetOptions } from './target.js';
import { installedFrom, PACKAGE_ROOT } from './init/installed-from.js';
import { mergeGitignore, mergePackageJson, packageName, type PackageJson } from './init/package-json.js';
import { layoutFiles, parseEnvironments } from './init/environments.js';
import { environmentsWorkflow } from './init/workflow-environments.js';
import { planAddition } from './init/add-environment.js';
import { withHeader } from '../config/export.js';
import { agree } from '../words.js';
import { exportLiveFrom } from './export.js';
import Database from 'better-sqlite3';

export interface InitInput extends TargetOptions {
  force?: boolean;
  fromLive?: boolean;
  /** `dev,staging,prod`: the several-environments layout (src/usecases/init/environments.ts). */
  environments?: string;
}

/** The files `roster init` writes whole; package.json and .gitignore are merged instead. */
export const CONFIG_FILE = 'roster/roster.yaml';
export const WORKFLOW_FILE = '.github/workflows/roster.yml';

/** A file `roster init` writes, and what the listing says of it. */
export interface Write {
  file: string;
  content: string;
  verb: 'created' | 'replaced' | 'updated';
  what: string;
}

/** What `roster init` did, and what its next steps depend on. */
export interface InitRun {
  dir: string;
  writes: Write[];
  pkg: PackageJson;
  /** Packages the project's allowScripts denies. */
  denied: string[];
  environments?: string[];
  /** With an environment added to a layout: the environments it had. */
  existing?: string[];
  live?: LiveTarget & { apiUrl?: string };
  /** Why the embedded default cannot start (the native module's install script has not run), if it cannot. */
  embeddedProblem?: string;
}

/**
 * `roster init [DIR]`: scaffolds a configuration repository (docs/ci.md): a starter configuration (or,
 * with --from-live, what `roster export` writes; with --environments, a shared folder and one folder per
 * environment, docs/config.md), the workflow that plans pull requests and applies on
 * merge, `.gitignore` entries, and the package.json entries. Refuses, writing nothing, when the
 * configuration or the workflow exists (--force replaces them); package.json and .gitignore only gain
 * entries, nothing in them is changed. Returns what it wrote, for the command to list, and the next steps' facts.
 */
export async function runInit(dirArg: string | undefined, opts: InitInput): Promise<InitRun> {
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

  return {
    dir,
    writes,
    pkg: merged.json,
    denied: merged.denied,
    environments,
    existing: addition?.existing,
    live: live && { ...live, apiUrl: opts.apiUrl },
    embeddedProblem: await embeddedDefaultProblem(),
  };
}

/**
 * `--from-live`: the export, authoritative, and naming the environment it came from when a flag (or
 * ROSTER_PROJECT/ROSTER_ENV) named it, so the files plan against that environment, not the default one.
 */
async function fromLive(opts: InitInput): Promise<{ content: string; what: string; target: LiveTarget }> {
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
export interface LiveTarget {
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
