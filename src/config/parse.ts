/**
 * Step 1 of the pipeline: YAML text to a plain value, keeping positions. Hostile input (deep nesting,
 * alias bombs, prototype keys) becomes a problem, never a crash or a hang.
 */
import type { Node, YAMLMap } from 'yaml';
import { yaml } from './yaml-lib.js';
import { fastParse } from './fast.js';
import { yamlMessage } from './yaml-messages.js';
import { placeYamlErrors } from './yaml-places.js';
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
  const errors: Problem[] = placeYamlErrors(text, doc.errors).map((e) =>
    e.code === 'RESOURCE_EXHAUSTION'
      ? problemAtOffset(src, e.pos, `the document is nested too deeply (more than ${MAX_DEPTH} levels)`)
      : e.code === 'MULTIPLE_DOCS'
        ? problemAtOffset(src, e.pos, 'a second YAML document starts here: a configuration file holds one document', {
            hint: 'remove this --- line (and any ... line before it), or move what follows into a file of its own',
          })
        : fromYaml(src, e),
  );
  const warnings = doc.warnings.map((w) => fromYaml(src, w, 'warning'));
  if (errors.length > 0) return { src, errors, warnings };

  const contents = doc.contents as Node | null;
  if (contents === null || (isScalar(contents) && contents.value === null)) return { src, value: {}, errors, warnings };
  if (!isMap(contents)) {
    errors.push(
      problemAtOffset(
        src,
        contents.range ? [contents.range[0], contents.range[1]] : undefined,
        'a configuration file must be a mapping of sections (resources, roles, tenants, users, ...)',
      ),
    );
    return { src, errors, warnings };
  }
  const found = checkNodes(src, contents);
  for (const problem of found.problems) errors.push(problem); // no spread: the list may be huge
  // A duplicate key alone does not hide the file's other mistakes: the value (the first entry of each
  // key) still goes through the schema and the rules, with the duplicate reported.
  if (!found.onlyDuplicates) return { src, errors, warnings };
  try {
    return { src, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), errors, warnings };
  } catch (err) {
    if (err instanceof ReferenceError) {
      errors.push(
        problemAtOffset(
          src,
          undefined,
          `too many alias expansions (more than ${MAX_ALIAS_COUNT}): the file looks like an alias bomb`,
          { hint: 'write the repeated values out, or use fewer aliases' },
        ),
      );
      return { src, errors, warnings };
    }
    throw err;
  }
}

/** A yaml error or warning as a problem in the house style (yaml-messages.ts). */
function fromYaml(
  src: Source,
  e: { code: string; message: string; pos: [number, number] },
  severity?: 'warning',
): Problem {
  const { message, hint } = yamlMessage(e.code, e.message);
  // A key out of line is reported at the start of its line: point at the key itself.
  let start = e.pos[0];
  if (e.code === 'BAD_INDENT' && !/^Flow (map|sequence)/.test(e.message)) while (src.text[start] === ' ') start++;
  return problemAtOffset(src, [start, Math.max(start, e.pos[1])], message, { hint, ...(severity ? { severity } : {}) });
}

/**
 * One pass over the document, without recursion (hostile nesting must not overflow the stack):
 * nesting depth, duplicate keys, non-string keys and prototype-polluting keys.
 */
function checkNodes(src: Source, root: Node): { problems: Problem[]; onlyDuplicates: boolean } {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
  const problems: Problem[] = [];
  let others = 0;
  const duplicates: { map: YAMLMap; pair: unknown }[] = [];
  const stack: { node: Node; depth: number; path: Segment[] }[] = [{ node: root, depth: 1, path: [] }];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (depth > MAX_DEPTH) {
      problems.push(
        problemAtOffset(
          src,
          range(node),
          `the document is nested too deeply (more than ${MAX_DEPTH} levels) at ${formatPath(path)}`,
        ),
      );
      return { problems, onlyDuplicates: false }; // one is enough, and the rest of the walk could be long
    }
    if (isMap(node)) {
      const seen = new Map<string, Node>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        if (!isScalar(key) || (typeof key.value !== 'string' && typeof key.value !== 'number')) {
          problems.push(
            problemAtOffset(
              src,
              key ? range(key) : range(node),
              `keys must be plain strings at ${formatPath(path) || 'the top level'}`,
            ),
          );
          others++;
          continue;
        }
        const k = String(key.value);
        if (FORBIDDEN_KEYS.has(k)) {
          problems.push({
            ...problemAtOffset(src, range(key), `the key "${k}" is not allowed`, {
              hint: 'it could alter object prototypes; rename it',
            }),
            path: formatPath([...path, k]),
          });
          others++;
          continue;
        }
        const first = seen.get(k);
        if (first) {
          const at = src.lineCounter!.linePos(first.range![0]);
          problems.push({
            ...problemAtOffset(
              src,
              range(key),
              `duplicate key "${k}" (first written at line ${at.line}, column ${at.col})`,
              { hint: 'merge the two entries into one' },
            ),
            path: formatPath([...path, k]),
          });
          duplicates.push({ map: node, pair });
          continue;
        }
        seen.set(k, key);
        const value = pair.value as Node | null;
        if (value && !isScalar(value) && !isAlias(value))
          stack.push({ node: value, depth: depth + 1, path: [...path, k] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        const n = item as Node | null;
        if (n && !isScalar(n) && !isAlias(n)) stack.push({ node: n, depth: depth + 1, path: [...path, i] });
      });
    }
  }
  // The first entry is kept, the later ones dropped: the value the schema and the rules see is the one
  // at the place that paths resolve to, so their problems point at what they are about.
  for (const { map, pair } of duplicates) map.items.splice(map.items.indexOf(pair as never), 1);
  return { problems, onlyDuplicates: others === 0 };
}

function range(node: Node): [number, number] | undefined {
  return node.range ? [node.range[0], node.range[1]] : undefined;
}
