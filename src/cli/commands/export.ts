import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../errors.js';
import { DEFAULT_TENANT } from '../../types/names.js';
import { LIVE_PARTS } from '../../types/live.js';
import { openTarget, type TargetOptions } from '../../usecases/target.js';

export interface ExportCommandOptions extends TargetOptions {
  out?: string;
  diff?: string;
}

/**
 * `roster export [--out DIR|-] [--diff PATH]`: the live environment as configuration (src/config/export.ts).
 * `--out DIR` writes DIR/roster.yaml, `-` (the default) writes to stdout. `--diff PATH` writes nothing and
 * exits 1 when they differ, 0 when they are the same: for a file, it prints a unified diff from the file
 * to the export; for a directory (however its configuration is split, in the several-environments
 * layout the folder of --env), the objects whose declared state differs from the live one.
 */
export async function exportCommand(opts: ExportCommandOptions): Promise<void> {
  if (opts.out !== undefined && opts.diff !== undefined)
    throw new ConfigError('--out and --diff do not go together: --diff only compares');
  if (opts.diff !== undefined && existsSync(opts.diff) && statSync(opts.diff).isDirectory())
    return diffDirectory(opts.diff, opts);
  const before = opts.diff !== undefined && existsSync(opts.diff) ? readFileSync(opts.diff, 'utf8') : '';
  const { readHeader, withHeader } = await import('../../config/export.js');
  // The environment the file compared with names, else the repository's configuration's.
  const { repositoryScope } = await import('../../usecases/repository-scope.js');
  const scope = await repositoryScope(opts, 'export', opts.diff !== undefined && before !== '' ? [opts.diff] : []);
  const exported = await exportLive(opts, { scope });
  // The file's `project:`, `environment:` and `authoritative: true` (what init --from-live writes) are
  // not drift: the export is compared with them declared the same way.
  const text = opts.diff !== undefined ? sameProvenance(withHeader(exported, readHeader(before)), before) : exported;
  if (opts.diff !== undefined) {
    const file = opts.diff;
    if (before === text) {
      process.stderr.write(`${file} matches the live environment.\n`);
      process.exitCode = 0;
      return;
    }
    const { createTwoFilesPatch } = await import('diff');
    process.stdout.write(createTwoFilesPatch(file, `${file} (export)`, before, text, '', '', { context: 3 }));
    process.exitCode = 1;
    return;
  }
  if (opts.out === undefined || opts.out === '-') {
    process.stdout.write(text);
    return;
  }
  mkdirSync(opts.out, { recursive: true });
  const file = path.join(opts.out, 'roster.yaml');
  // Written whole or not at all: a crash never leaves half a configuration behind.
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`wrote ${file}\n`);
}

export interface ExportLiveOptions {
  refuseEmptyEmbedded?: boolean;
  /** The project and environment when no flag names them (repository-scope.ts); absent: the key's, else the defaults. */
  scope?: { project?: string; environment?: string };
}

/**
 * The live environment of the target as configuration text (also `roster init --from-live`). With
 * `refuseEmptyEmbedded`, an empty embedded default is refused: it is what a forgotten ROSTER_API_URL
 * reads, and its export (every section `{}`) would make every section managed, and empty.
 */
export async function exportLive(opts: TargetOptions, options: ExportLiveOptions = {}): Promise<string> {
  return (await exportLiveFrom(opts, options)).text;
}

/** exportLive, with where it read (the target's kind, place, project and environment keys). */
export async function exportLiveFrom(
  opts: TargetOptions,
  options: ExportLiveOptions = {},
): Promise<{
  text: string;
  target: { kind: 'embedded' | 'remote'; where: string; project: string; environment: string };
}> {
  const target = await openTarget(opts, options.scope);
  try {
    const { readLiveState } = await import('../../api/read-live.js');
    const { buildExport } = await import('../../config/export.js');
    const live = await readLiveState(target.client);
    // Empty: nothing but the tenant `default` every environment comes with (untouched).
    const onlyDefault = (part: (typeof LIVE_PARTS)[number]) =>
      part === 'tenants' && live.tenants.size === 1 && live.tenants.has(DEFAULT_TENANT);
    if (
      options.refuseEmptyEmbedded &&
      target.kind === 'embedded' &&
      LIVE_PARTS.every((part) => live[part].size === 0 || onlyDefault(part))
    ) {
      const dataDir = opts.data ?? (process.env.ROSTER_DATA_DIR || './.roster');
      throw new ConfigError(
        `--from-live found nothing to export: no --api-url and no ROSTER_API_URL, so it read the embedded default (${dataDir}), which is empty; nothing was written (set ROSTER_API_URL and ROSTER_API_KEY, or pass --api-url, to export a remote service)`,
      );
    }
    // A remote service's host too: a plan of the export read with no service named is refused (provenance.ts).
    const text = buildExport(live, {
      source: `${target.project}/${target.environment}${target.kind === 'remote' ? ` at ${target.where}` : ''}`,
    });
    return {
      text,
      target: { kind: target.kind, where: target.where, project: target.project, environment: target.environment },
    };
  } finally {
    await target.close();
  }
}

/**
 * The export with the file's own "Exported by … from …" line, when it has one: where a file was exported
 * from (and how an older Roster wrote it, without the host) is not drift; what it declares is.
 */
function sameProvenance(text: string, file: string): string {
  const line = /^# Exported by `roster export`.*$/m;
  const theirs = line.exec(file);
  return theirs ? text.replace(line, () => theirs[0]) : text;
}

/**
 * `export --diff DIR`: the declared state of the configuration in DIR against the live state, object by
 * object, in the sections the configuration manages (the others are not its concern, as in a plan).
 */
async function diffDirectory(dir: string, opts: ExportCommandOptions): Promise<void> {
  const { loadDesired } = await import('../../usecases/workflow.js');
  const { readLiveAsDeclared } = await import('./diff.js');
  const { asTheServiceHolds, diffEnvironments } = await import('../../plan/environments.js');
  const { renderDiffText } = await import('../render-diff.js');
  const { SECTIONS } = await import('../../types/desired.js');
  const { desired } = await loadDesired([dir], 'export', { env: opts.env });
  const live = await readLiveAsDeclared(opts, desired);
  const differences = diffEnvironments(asTheServiceHolds(desired), live, { sections: desired.sections });
  const left = SECTIONS.filter((s) => !desired.sections.has(s));
  const note = left.length > 0 ? `Not compared (${dir} does not manage them): ${left.join(', ')}.` : undefined;
  if (differences.length === 0) {
    process.stderr.write(`${dir} matches the live environment.${note ? ` ${note}` : ''}\n`);
    process.exitCode = 0;
    return;
  }
  process.stdout.write(renderDiffText({ on: 'declared against live', a: dir, b: 'live', differences, note }));
  process.exitCode = 1;
}
