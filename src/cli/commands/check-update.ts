import { readFileSync, writeFileSync } from 'node:fs';
import type { AssertionReport } from '../../access/assertions.js';
import { updatedList } from '../../access/exact.js';
import { editExactLists, type ExactEdit } from '../../config/edit-exact.js';
import { plural } from '../../words.js';

/**
 * `roster check --update`: rewrites each exact-set assertion's `exactly:` list that differs from the set
 * found (names still there keep their order, new ones are appended sorted), in its own file, keeping the
 * rest of the file as written. Returns the results it rewrote (they hold now).
 */
export function writeExactUpdates(report: AssertionReport): Set<AssertionReport['results'][number]> {
  const byFile = new Map<string, { edit: ExactEdit; result: AssertionReport['results'][number] }[]>();
  for (const r of report.results) {
    const { source, exactly } = r.assertion;
    if (!r.actual || source?.item === undefined || exactly === undefined) continue;
    const list = updatedList(exactly, r.actual);
    if (JSON.stringify(list) === JSON.stringify(exactly)) continue;
    const edits = byFile.get(source.file) ?? [];
    edits.push({ edit: { item: source.item, list }, result: r });
    byFile.set(source.file, edits);
  }
  const rewritten = new Set<AssertionReport['results'][number]>();
  for (const [file, edits] of byFile) {
    writeFileSync(
      file,
      editExactLists(
        readFileSync(file, 'utf8'),
        edits.map((e) => e.edit),
      ),
    );
    for (const e of edits) rewritten.add(e.result);
    process.stderr.write(`Updated ${plural(edits.length, 'exactly: list')} in ${file}.\n`);
  }
  return rewritten;
}
