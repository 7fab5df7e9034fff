/**
 * Where things are: a parsed file, locations inside it, and problems pointing at them. Positions are
 * resolved lazily from the YAML document when a problem is raised, so a valid configuration pays nothing.
 */
import type { Document, LineCounter, Node, Pair, YAMLMap } from 'yaml';
import { yaml } from './yaml-lib.js';
import type { ConfigProblem } from '../errors.js';

export interface Source {
  /** As given or found (relative to the working directory when it was given so). */
  file: string;
  text: string;
  /** The YAML document with positions; absent when the fast path parsed the file (see documentOf). */
  lineCounter?: LineCounter;
  doc?: Document.Parsed;
}

/**
 * The document with positions, parsed now if the fast path skipped it: only files with problems pay
 * for it. The options are those of parseSource, so offsets agree.
 */
export function documentOf(src: Source): { doc: Document.Parsed; lineCounter: LineCounter } {
  if (!src.doc || !src.lineCounter) {
    const { LineCounter, parseDocument } = yaml();
    src.lineCounter = new LineCounter();
    src.doc = parseDocument(src.text, { uniqueKeys: false, lineCounter: src.lineCounter, prettyErrors: false });
  }
  return { doc: src.doc, lineCounter: src.lineCounter };
}

export type Segment = string | number;

/** A place in a file: the document path of a node. */
export interface Loc {
  src: Source;
  path: Segment[];
}

/** A ConfigProblem, with the end of the range it points at when known (for the caret underline). */
export type Problem = ConfigProblem & { endLine?: number; endColumn?: number };

export interface ProblemOptions {
  hint?: string;
  severity?: 'error' | 'warning';
  /** Point at the key of the last path segment instead of its value (unknown fields, duplicate keys). */
  on?: 'key' | 'value';
}

const PLAIN_SEGMENT = /^[A-Za-z0-9_\-:|@+]+$/;

/** `groups.team:platform.member_of[0]`; keys that would read ambiguously are quoted. */
export function formatPath(path: Segment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (PLAIN_SEGMENT.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

export function problemAt(loc: Loc, sub: Segment[], message: string, options: ProblemOptions = {}): Problem {
  const path = [...loc.path, ...sub];
  const problem: Problem = {
    file: loc.src.file,
    path: formatPath(path),
    message,
    severity: options.severity ?? 'error',
  };
  if (options.hint) problem.hint = options.hint;
  const range = rangeOf(loc.src, path, options.on ?? 'value');
  if (range) Object.assign(problem, rangeToPositions(loc.src, range));
  return problem;
}

/** A problem at a character offset (parse errors), or at the start of the file. */
export function problemAtOffset(
  src: Source,
  range: [number, number] | undefined,
  message: string,
  options: ProblemOptions = {},
): Problem {
  const problem: Problem = { file: src.file, message, severity: options.severity ?? 'error' };
  if (options.hint) problem.hint = options.hint;
  if (range) Object.assign(problem, rangeToPositions(src, range));
  return problem;
}

function rangeToPositions(src: Source, [start, end]: [number, number]): Partial<Problem> {
  const lc = documentOf(src).lineCounter;
  const a = lc.linePos(start);
  const b = lc.linePos(Math.max(start, end));
  return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
}

/**
 * The source range of the node at `path`, or of the deepest node on the way when the path goes further
 * than the document (a short form, a missing field: the problem then points at the nearest thing written).
 * The displayed path stays the logical one (`roles.viewer.permissions[0]` even for `viewer: [doc:read]`).
 */
function rangeOf(src: Source, path: Segment[], on: 'key' | 'value'): [number, number] | undefined {
  const { isMap, isSeq } = yaml();
  let node: Node | null | undefined = documentOf(src).doc.contents as Node | null | undefined;
  let best: [number, number] | undefined = node?.range ? [node.range[0], node.range[1]] : undefined;
  for (let i = 0; i < path.length && node; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = pairOf(node, String(seg));
      if (!pair) break;
      const key = pair.key as Node | null;
      const value = pair.value as Node | null;
      if ((last && on === 'key') || !value?.range) {
        if (key?.range) best = [key.range[0], key.range[1]];
        if (!value?.range) break;
        if (last) break;
      }
      node = value;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg] as Node | undefined;
    } else if (isSeq(node)) {
      continue; // a short form: the list written in place of a mapping holding it (`viewer: [doc:read]`)
    } else break;
    if (node?.range) best = [node.range[0], node.range[1]];
  }
  return best;
}

// Maps of 10,000 keys are common (users): index each map once, on the first problem inside it.
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let index = pairIndex.get(map);
  if (!index) {
    const { isPair, isScalar } = yaml();
    index = new Map();
    for (const pair of map.items) {
      if (isPair(pair) && isScalar(pair.key)) {
        const k = String(pair.key.value);
        if (!index.has(k)) index.set(k, pair);
      }
    }
    pairIndex.set(map, index);
  }
  return index.get(key);
}

/** Short place for messages: `file:line:column`. */
export function describePlace(loc: Loc): string {
  const p = problemAt(loc, [], '', { on: 'key' });
  return [p.file, p.line, p.column].filter((x) => x !== undefined).join(':');
}

/**
 * A problem at `path` in the first of `sources` whose document has it (pointing at its key): for what
 * is found after loading, such as a plan's warning about a section. Without such a file, at no line.
 */
export function problemInSources(
  sources: { file: string; text: string }[],
  path: Segment[],
  message: string,
  options: ProblemOptions = {},
): Problem {
  for (const { file, text } of sources) {
    const src: Source = { file, text };
    if (documentOf(src).doc.hasIn(path)) return problemAt({ src, path }, [], message, { on: 'key', ...options });
  }
  const problem: Problem = { path: formatPath(path), message, severity: options.severity ?? 'error' };
  if (options.hint) problem.hint = options.hint;
  return problem;
}
