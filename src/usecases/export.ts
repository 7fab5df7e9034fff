import { existsSync, readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { DEFAULT_TENANT } from '../types/names.js';
import { LIVE_PARTS } from '../types/live.js';
import { SECTIONS, type DesiredState } from '../types/desired.js';
import { openTarget, type Target, type TargetOptions } from './target.js';
import { readHeader, withHeader, buildExport } from '../config/export.js';
import { validateSources } from '../config/index.js';
import { repositoryScope } from './repository-scope.js';
import { readLiveState } from '../api/read-live.js';
import { loadDesired } from './workflow.js';
import { asTheServiceHolds, diffEnvironments, type ObjectDifference } from '../plan/environments.js';

/** What `roster export` found: the export's text, or with `--diff` what it is compared with. */
export type ExportRun =
  | { kind: 'text'; text: string }
  /** `--diff FILE`: the file's text (empty when there is none) and the export declared as it is. */
  | { kind: 'file'; file: string; before: string; text: string }
  /** `--diff DIR`: the objects whose declared state differs from the live one, and the sections not compared. */
  | { kind: 'directory'; dir: string; differences: ObjectDifference[]; left: string[] };

/**
 * `roster export [--diff PATH]`: the live environment as configuration (src/config/export.ts); with a
 * file to compare, the export as that file declares its provenance; with a directory (however its
 * configuration is split; in the several-environments layout the folder of --env), the declared state
 * against the live one, object by object, in the sections the configuration manages.
 */
export async function runExport(opts: TargetOptions & { diff?: string }): Promise<ExportRun> {
  const diff = opts.diff;
  if (diff !== undefined && existsSync(diff) && statSync(diff).isDirectory()) {
    const { desired } = await loadDesired([diff], 'export', { env: opts.env });
    const live = await readLiveAsDeclared(opts, desired);
    const differences = diffEnvironments(asTheServiceHolds(desired), live, { sections: desired.sections });
    return { kind: 'directory', dir: diff, differences, left: SECTIONS.filter((s) => !desired.sections.has(s)) };
  }
  const before = diff !== undefined && existsSync(diff) ? readFileSync(diff, 'utf8') : '';
  // The environment the file compared with names, else the repository's configuration's.
  const scope = await repositoryScope(opts, 'export', diff !== undefined && before !== '' ? [diff] : []);
  const exported = await exportLive(opts, { scope });
  if (diff === undefined) return { kind: 'text', text: exported };
  // The file's `project:`, `environment:` and `authoritative: true` (what init --from-live writes) are
  // not drift: the export is compared with them declared the same way.
  return { kind: 'file', file: diff, before, text: sameProvenance(withHeader(exported, readHeader(before)), before) };
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

/** The live state of the target, read as its export would be loaded: the same shapes and defaults as a declared state. */
export async function readLiveAsDeclared(
  opts: TargetOptions,
  scope?: { project?: string; environment?: string },
): Promise<DesiredState> {
  const target: Target = await openTarget(opts, scope);
  try {
    const text = buildExport(await readLiveState(target.client));
    const loaded = validateSources([{ file: `${target.project}/${target.environment} (export)`, text }]);
    if (!loaded.desired)
      throw new ConfigError(
        `the live environment ${target.project}/${target.environment} cannot be read as configuration`,
        loaded.errors.slice(0, 10),
      );
    return loaded.desired;
  } finally {
    await target.close();
  }
}
