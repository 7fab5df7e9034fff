/**
 * Step 1 of the pipeline: YAML text to a plain value, keeping positions. Hostile input (deep nesting,
 * alias bombs, prototype keys) becomes a problem, never a crash or a hang.
 */
import type { Node } from 'yaml';
import { yaml } from './yaml-lib.js';
import { fastParse } from './fast.js';
import { formatPath, problemAtOffset, type Problem, type Segment, type Source } from './source.js';

export const MAX_DEPTH = 100;
/** Aliases expanded per document; yaml's own guard against "billion laughs" documents. */
export const MAX_ALIAS_COUNT = 100;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export interface ParsedSource {
  src: Source;
  /** The document as plain data, when it parsed cleanly. */
  value?: unknown;
  errors: Problem[];
  warnings: Problem[];
}

export function parseSource(file: string, text: string): ParsedSource {
  const fast = fastParse(text, MAX_DEPTH);
  if (fast) return { src: { file, text }, value: fast.value, errors: [], warnings: [] };
  const { LineCounter, parseDocument, isMap, isScalar } = yaml();
  const lineCounter = new LineCounter();
  // uniqueKeys: false because yaml's own duplicate check is quadratic in a map's size; checkNodes
  // finds duplicates in one pass instead.
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter, prettyErrors: false });
  const src: Source = { file, text, lineCounter, doc };
  const errors: Problem[] = doc.errors.map((e) =>
    e.code === 'RESOURCE_EXHAUSTION'
      ? problemAtOffset(src, e.pos, `the document is nested too deeply (more than ${MAX_DEPTH} levels)`)
      : e.code === 'MULTIPLE_DOCS'
        ? problemAtOffset(src, e.pos, 'a second YAML document starts here: a configuration file holds one document', {
            hint: 'remove this --- line (and any ... line before it), or move what follows into a file of its own',
          })
        : problemAtOffset(src, e.pos, yamlMessage(e.message)),
  );
  const warnings = doc.warnings.map((w) => problemAtOffset(src, w.pos, yamlMessage(w.message), { severity: 'warning' }));
  if (errors.length > 0) return { src, errors, warnings };

  const contents = doc.contents as Node | null;
  if (contents === null || (isScalar(contents) && contents.value === null)) return { src, value: {}, errors, warnings };
  if (!isMap(contents)) {
    errors.push(problemAtOffset(src, contents.range ? [contents.range[0], contents.range[1]] : undefined,
      'a configuration file must be a mapping of sections (resources, roles, tenants, users, ...)'));
    return { src, errors, warnings };
  }
  for (const problem of checkNodes(src, contents)) errors.push(problem); // no spread: the list may be huge
  if (errors.length > 0) return { src, errors, warnings };
  try {
    return { src, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), errors, warnings };
  } catch (err) {
    if (err instanceof ReferenceError) {
      errors.push(problemAtOffset(src, undefined, `too many alias expansions (more than ${MAX_ALIAS_COUNT}): the file looks like an alias bomb`,
        { hint: 'write the repeated values out, or use fewer aliases' }));
      return { src, errors, warnings };
    }
    throw err;
  }
}

/** yaml's messages end with " at line L, column C"; the problem carries the position itself. */
function yamlMessage(message: string): string {
  return message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();
}

/**
 * One pass over the document, without recursion (hostile nesting must not overflow the stack):
 * nesting depth, duplicate keys, non-string keys and prototype-polluting keys.
 */
function checkNodes(src: Source, root: Node): Problem[] {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
  const problems: Problem[] = [];
  const stack: { node: Node; depth: number; path: Segment[] }[] = [{ node: root, depth: 1, path: [] }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (depth > MAX_DEPTH) {
      problems.push(problemAtOffset(src, range(node), `the document is nested too deeply (more than ${MAX_DEPTH} levels) at ${formatPath(path)}`));
      return problems; // one is enough, and the rest of the walk could be long
    }
    if (isMap(node)) {
      const seen = new Map<string, Node>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        if (!isScalar(key) || (typeof key.value !== 'string' && typeof key.value !== 'number')) {
          problems.push(problemAtOffset(src, key ? range(key) : range(node), `keys must be plain strings at ${formatPath(path) || 'the top level'}`));
          continue;
        }
        const k = String(key.value);
        if (FORBIDDEN_KEYS.has(k)) {
          problems.push({ ...problemAtOffset(src, range(key), `the key "${k}" is not allowed`, { hint: 'it could alter object prototypes; rename it' }), path: formatPath([...path, k]) });
          continue;
        }
        const first = seen.get(k);
        if (first) {
          const at = src.lineCounter!.linePos(first.range![0]);
          problems.push({
            ...problemAtOffset(src, range(key), `duplicate key "${k}" (first written at line ${at.line}, column ${at.col})`, { hint: 'merge the two entries into one' }),
            path: formatPath([...path, k]),
          });
          continue;
        }
        seen.set(k, key);
        const value = pair.value as Node | null;
        if (value && !isScalar(value) && !isAlias(value)) stack.push({ node: value, depth: depth + 1, path: [...path, k] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const n = item as Node | null;
        if (n && !isScalar(n) && !isAlias(n)) stack.push({ node: n, depth: depth + 1, path: [...path, i] });
      });
    }
  }
  return problems;
}

function range(node: Node): [number, number] | undefined {
  return node.range ? [node.range[0], node.range[1]] : undefined;
}
