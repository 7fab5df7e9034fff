/**
 * Rewriting the `exactly:` lists of assertions in a configuration file (`roster check --update`) without
 * disturbing the rest of it: as edit-user-roles.ts does, the Document API finds each list's source range
 * and only that text is replaced (a flow list stays a flow list, a block list a block list at its
 * indentation), so comments and formatting around it stay as written and the pull request's diff shows
 * the list's change alone. The result is parsed again and checked. Pure.
 */
import { isMap, isSeq, parseDocument, type YAMLSeq } from 'yaml';
import { InternalError } from '../errors.js';

/** `item`: the assertion's index in the file's `assertions:` list; `list`: what `exactly:` becomes. */
export interface ExactEdit {
  item: number;
  list: readonly string[];
}

const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9|@+\-._]*$/;
const scalar = (s: string) =>
  PLAIN.test(s) && !/^(true|false|null|yes|no|on|off|~)$/i.test(s) ? s : JSON.stringify(s);

/** `text` with the `exactly:` lists of the given assertions replaced. Throws InternalError when one is not found. */
export function editExactLists(text: string, edits: readonly ExactEdit[]): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new InternalError(`cannot edit a file that does not parse: ${doc.errors[0].message}`);
  const replacements: { from: number; to: number; insert: string }[] = [];
  for (const e of edits) {
    const node = doc.getIn(['assertions', e.item, 'exactly'], true);
    if (!isSeq(node) || !node.range) throw new InternalError(`assertions[${e.item}] has no exactly: list in this file`);
    replacements.push({ from: node.range[0], to: endOf(node, text), insert: render(node, text, e.list) });
  }
  let out = text;
  for (const r of replacements.sort((a, b) => b.from - a.from)) out = out.slice(0, r.from) + r.insert + out.slice(r.to);
  check(out, edits);
  return out;
}

/** A flow list's end is its `]`; a block list's, the end of its last item (not the comments or blank lines after). */
function endOf(node: YAMLSeq, text: string): number {
  if (node.flow) return node.range![1];
  const last = node.items[node.items.length - 1] as { range?: [number, number, number] } | undefined;
  return last?.range ? last.range[1] : node.range![1];
}

function render(node: YAMLSeq, text: string, list: readonly string[]): string {
  if (node.flow || list.length === 0) return `[${list.map(scalar).join(', ')}]`;
  const lineStart = text.lastIndexOf('\n', node.range![0] - 1) + 1;
  const indent = ' '.repeat(node.range![0] - lineStart);
  return list.map((k, i) => `${i === 0 ? '' : indent}- ${scalar(k)}`).join('\n');
}

function check(out: string, edits: readonly ExactEdit[]): void {
  const doc = parseDocument(out);
  for (const e of edits) {
    const got = doc.getIn(['assertions', e.item, 'exactly']) as { toJSON?: () => unknown } | undefined;
    const list = got && typeof got.toJSON === 'function' ? got.toJSON() : got;
    if (doc.errors.length > 0 || JSON.stringify(list) !== JSON.stringify(e.list))
      throw new InternalError(`rewriting assertions[${e.item}].exactly did not give the list intended`);
  }
  if (!isMap(doc.contents)) throw new InternalError('the edited file is not a mapping');
}
