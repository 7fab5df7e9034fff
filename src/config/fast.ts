/**
 * A fast path for step 1: YAML text to plain data, by a small hand-written parser of the YAML that
 * configurations are written in (yaml's parser took ~0.7 s cold on a 1.5 MB benchmark file; this ~70 ms).
 * Whenever it answers, the answer equals `parseDocument(text, { uniqueKeys: true }).toJS()` of a document
 * without errors; on anything it is not sure of it returns undefined and the caller takes the full path,
 * which reports problems with positions. Tests check both paths agree, on fixtures and fuzzed documents.
 *
 * Accepted: lines split by \n or \r\n; blank and comment lines, ` #` comments; an optional `---` first
 * line; block mappings (single-line plain or quoted keys, all at one column) and block sequences
 * (`- value`, `-` then a nested block, compact `- key: value`), a mapping's sequence value at the
 * key's column; single-line scalars and flow collections (./fast-scalar.ts); a mapping at the top.
 * Everything else bails: tabs, control characters, directives, document markers, anchors, aliases,
 * tags, explicit keys, block scalars, multi-line scalars or flow collections, `- - x`, duplicate or
 * prototype keys, non-string keys, nesting deeper than maxDepth, any indentation not described above.
 */
import { BAIL, cursor, flowNode, keyOk, plainEnd, quoted, resolvePlain, skipSpaces } from './fast-scalar.js';

/** Tabs, control characters but \n and \r\n, C1 controls, NEL, line/paragraph separators, BOM. */
const REFUSED = /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|\r(?!\n)/;
const START = /^---( +#.*)? *$/;
const NO_KEYS = {};

// The document being parsed, set around one synchronous parse: its lines, the lines with content
// (not blank, not comments) and their indentation, the current one, and the depth bound.
let lines: string[] = [];
let rows: number[] = [];
let cols: number[] = [];
let pos = 0;
let max = 0;

export function fastParse(source: string, maxDepth: number): { value: Record<string, unknown> } | undefined {
  if (REFUSED.test(source)) return undefined;
  lines = (source.includes('\r') ? source.replaceAll('\r\n', '\n') : source).split('\n');
  rows = [];
  cols = [];
  pos = 0;
  max = maxDepth;
  let started = false;
  try {
    for (let n = 0; n < lines.length; n++) {
      const s = lines[n];
      const i = skipSpaces(s, 0);
      if (i === s.length || s.charCodeAt(i) === 35) continue; // blank or comment
      if (i === 0 && (s[0] === '%' || /^(---|\.\.\.)( |$)/.test(s))) {
        if (rows.length === 0 && !started && START.test(s)) {
          started = true;
          continue;
        }
        return undefined; // directives and document markers
      }
      rows.push(n);
      cols.push(i);
    }
    if (rows.length === 0) return undefined;
    const value = node(1);
    if (value === BAIL || pos !== rows.length || value === null || typeof value !== 'object' || Array.isArray(value))
      return undefined;
    return { value: value as Record<string, unknown> };
  } finally {
    lines = rows = cols = [];
  }
}

function isDash(s: string, i: number): boolean {
  return s.charCodeAt(i) === 45 && (i + 1 === s.length || s.charCodeAt(i + 1) === 32);
}

/** The node starting a content line: a block sequence, a block mapping or a single-line value. */
function node(depth: number): unknown {
  if (depth > max) return BAIL;
  const s = lines[rows[pos]];
  const col = cols[pos];
  if (isDash(s, col)) return seq(col, depth);
  const k = key(s, col);
  if (k === BAIL) return BAIL;
  return k === undefined ? inline(s, col, depth) : map(col, col, depth);
}

/**
 * An implicit key at s[i], single-line, plain or quoted, followed by ':' and a space or the end:
 * its string (with cursor.at after the ':'); undefined when s[i] starts no key; BAIL when unsure.
 */
function key(s: string, i: number): string | undefined | typeof BAIL {
  const c = s.charCodeAt(i);
  let k: unknown;
  if (c === 34 || c === 39) k = quoted(s, i);
  else if (c === 91 || c === 123)
    return undefined; // a flow collection as a key bails in inline()
  else {
    const end = plainEnd(s, i, false);
    if (end < 0) return BAIL;
    k = resolvePlain(s.slice(i, end));
    cursor.at = end;
  }
  if (k === BAIL) return BAIL;
  const j = skipSpaces(s, cursor.at);
  if (s.charCodeAt(j) !== 58 || (j + 1 < s.length && s.charCodeAt(j + 1) !== 32)) return undefined;
  if (!keyOk(NO_KEYS, k, j - i)) return BAIL; // non-string keys (`1:`, `null:`) are left to the full path
  cursor.at = j + 1;
  return k;
}

/** A block mapping at column col, its first key at s[first] of the current line (after '- ' when compact). */
function map(col: number, first: number, depth: number): unknown {
  if (depth > max) return BAIL;
  const out: Record<string, unknown> = {};
  for (let i = first; ; i = col) {
    const s = lines[rows[pos]];
    const k = key(s, i);
    if (k === undefined || k === BAIL || Object.hasOwn(out, k)) return BAIL;
    const j = skipSpaces(s, cursor.at);
    let v: unknown;
    if (j === s.length || s.charCodeAt(j) === 35) {
      // `key:` then a more indented block, a sequence at the key's column, or nothing (null).
      pos++;
      const nested = pos < rows.length && (cols[pos] > col || (cols[pos] === col && isDash(lines[rows[pos]], col)));
      v = nested ? node(depth + 1) : null;
    } else v = inline(s, j, depth + 1);
    if (v === BAIL) return BAIL;
    out[k] = v;
    if (pos === rows.length || cols[pos] < col) return out;
    if (cols[pos] > col) return BAIL; // a continuation or a misaligned key
  }
}

/** A block sequence whose dashes are at column col. */
function seq(col: number, depth: number): unknown {
  if (depth > max) return BAIL;
  const out: unknown[] = [];
  for (;;) {
    const s = lines[rows[pos]];
    const j = skipSpaces(s, col + 1);
    let v: unknown;
    if (j === s.length || s.charCodeAt(j) === 35) {
      pos++;
      v = pos < rows.length && cols[pos] > col ? node(depth + 1) : null;
    } else if (isDash(s, j))
      return BAIL; // `- - x`
    else {
      const k = key(s, j);
      if (k === BAIL) return BAIL;
      v = k === undefined ? inline(s, j, depth + 1) : map(j, j, depth + 1);
    }
    if (v === BAIL) return BAIL;
    out.push(v);
    if (pos === rows.length || cols[pos] < col) return out;
    if (cols[pos] > col) return BAIL;
    if (!isDash(lines[rows[pos]], col)) return out; // the next key of a mapping at this column
  }
}

/** A value that ends on its line (a scalar or flow collection), then only a comment; moves to the next line. */
function inline(s: string, i: number, depth: number): unknown {
  if (depth > max) return BAIL;
  const c = s.charCodeAt(i);
  let v: unknown;
  if (c === 34 || c === 39 || c === 91 || c === 123) v = flowNode(s, i, depth, max);
  else {
    const end = plainEnd(s, i, false);
    if (end < 0) return BAIL;
    v = resolvePlain(s.slice(i, end));
    cursor.at = end;
  }
  if (v === BAIL) return BAIL;
  const j = skipSpaces(s, cursor.at);
  if (j < s.length && (s.charCodeAt(j) !== 35 || j === cursor.at)) return BAIL; // `a: b: c`, `"a"b`, `[a]#`
  pos++;
  return v;
}
