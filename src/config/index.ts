/**
 * Loading a configuration: read → parse → schema → normalise → rules. Returns problems instead of
 * throwing; `desired` is present exactly when there are no errors.
 */
import type { ConfigProblem } from '../errors.js';
import { acceptedPart } from './accept.js';
import { sortDesiredState } from './sort.js';
import { type DesiredState } from '../types/desired.js';
import { buildDesiredState, type RawFile } from './normalise.js';
import { parseSource } from './parse.js';
import { coverUnparsed } from './unparsed.js';
import type { RawConfig } from './raw.generated.js';
import { readConfigFiles, type SourceText } from './read.js';
import { runRules } from './rules/index.js';
import { checkSchema } from './schema.js';
import { substituteVariables, type ParsedFile } from './variables.js';
import { withoutAcknowledged } from './acknowledge.js';
import type { Problem } from './source.js';

export type { DesiredState } from '../types/desired.js';
export type { RawConfig } from './raw.generated.js';
export type { Problem } from './source.js';
export { renderJson, renderGithub, renderText } from './render.js';

export interface LoadResult {
  desired?: DesiredState;
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
}

export async function loadConfig(paths: string[]): Promise<LoadResult> {
  const read = await readConfigFiles(paths);
  const result = validateSources(read.sources);
  if (read.errors.length === 0) return result;
  return { errors: [...read.errors, ...result.errors], warnings: result.warnings };
}

/**
 * The pure part of loading, over texts already read. The semantic rules run on every part that parsed
 * and that the schema accepted (accept.ts), so one run reports every mistake; what did not parse or was
 * refused is known to the rules (`index.refused`), which then report nothing that follows from it. A file
 * that did not parse hides only the sections it declares (unparsed.ts), and says so in a warning.
 */
export function validateSources(sources: SourceText[]): LoadResult {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const files: RawFile[] = [];
  const unparsed: SourceText[] = [];
  const parsedFiles: ParsedFile[] = [];
  for (const source of sources) {
    const { file, text } = source;
    const parsed = parseSource(file, text);
    append(errors, parsed.errors);
    append(warnings, parsed.warnings);
    if (parsed.value === undefined) {
      unparsed.push(source);
      continue;
    }
    parsedFiles.push({ src: parsed.src, value: parsed.value });
  }
  // Variables are substituted across every file before the schema sees the values (variables.ts).
  append(errors, substituteVariables(parsedFiles));
  for (const parsed of parsedFiles) {
    const schemaErrors = checkSchema(parsed.src, parsed.value);
    append(errors, schemaErrors);
    if (schemaErrors.length === 0) files.push({ src: parsed.src, raw: parsed.value as RawConfig });
    else {
      const { value, ...refused } = acceptedPart(parsed.value as Record<string, unknown>);
      files.push({ src: parsed.src, raw: value, refused });
    }
  }
  const { desired, index, errors: mergeErrors } = buildDesiredState(files);
  for (const { file, text } of unparsed) warnings.push(coverUnparsed(file, text, index.refused));
  append(errors, mergeErrors);
  const found = runRules({ desired, index });
  append(errors, found.errors);
  append(warnings, withoutAcknowledged(found.warnings, files));
  const order = new Map(sources.map((s, i) => [s.file, i]));
  const sorted = (ps: Problem[]) => sortProblems(ps, order);
  if (errors.length > 0) return { errors: sorted(errors), warnings: sorted(warnings) };
  return { desired: sortDesiredState(desired), errors: [], warnings: sorted(warnings) };
}

/**
 * `to.push(...from)` passes every item as an argument: past ~120,000 (a file of 130,000 errors) that
 * overflows the stack. A loop does not.
 */
function append<T>(to: T[], from: readonly T[]): void {
  for (const item of from) to.push(item);
}

/** In file order, then by position; stable for problems at the same place. */
function sortProblems(problems: Problem[], fileOrder: Map<string, number>): Problem[] {
  const rank = (p: Problem) => (p.file === undefined ? -1 : (fileOrder.get(p.file) ?? -1));
  return [...problems].sort(
    (a, b) => rank(a) - rank(b) || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
  );
}
