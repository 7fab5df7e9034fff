/**
 * A fast path for step 1: YAML text to plain data straight from yaml's CST, skipping its Document
 * model (which costs about a third of the parse of a large file). It understands the plain YAML that
 * configurations are made of, and gives up (returns undefined) on anything else: anchors, aliases, tags,
 * directives, explicit keys, errors, duplicate or dangerous keys, deep nesting, unusual numbers. The
 * caller then takes the full path, which reports problems with positions. Tests check both paths agree.
 */
import { CST, Parser } from 'yaml';

const BAIL = Symbol('bail');
type Value = unknown;
type Built = Value | typeof BAIL;

const QUIET = new Set(['space', 'newline', 'comment']);
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function fastParse(source: string, maxDepth: number): { value: Record<string, unknown> } | undefined {
  // Tabs near indentation and comments glued to tokens are errors only the full path reports well.
  if (source.includes('\t') || /[^\s]#/.test(source.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'/g, '""'))) return undefined;
  let doc: CST.Document | undefined;
  for (const token of new Parser().parse(source)) {
    if (token.type === 'document' && !doc) doc = token;
    else if (!QUIET.has(token.type) && token.type !== 'byte-order-mark') return undefined;
  }
  if (!doc || !doc.value || !only(doc.start, ['doc-start']) || !only(doc.end ?? [], [])) return undefined;
  text = source;
  const value = build(doc.value, 1, maxDepth);
  text = '';
  if (value === BAIL || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return { value: value as Record<string, unknown> };
}

function only(tokens: CST.SourceToken[], allowed: string[]): boolean {
  for (const t of tokens) if (!QUIET.has(t.type) && !allowed.includes(t.type)) return false;
  return true;
}

function has(tokens: CST.SourceToken[], type: string): boolean {
  return tokens.some((t) => t.type === type);
}

function count(tokens: CST.SourceToken[], type: string): number {
  let n = 0;
  for (const t of tokens) if (t.type === type) n++;
  return n;
}

/** yaml's flowIndentCheck: a multi-line flow collection in a block one closes right of its indentation. */
function flowIndentOk(blockIndent: number, token: CST.Token | undefined): boolean {
  if (token?.type !== 'flow-collection') return true;
  const end = token.end[0];
  return !(end && end.indent === blockIndent && (end.source === ']' || end.source === '}') && text.slice(token.offset, end.offset).includes('\n'));
}

// The text being built, for columns; set around one synchronous build.
let text = '';
function column(offset: number): number {
  return offset - text.lastIndexOf('\n', offset - 1) - 1;
}

function build(token: CST.Token | null | undefined, depth: number, maxDepth: number, inFlow = false): Built {
  if (!token) return null;
  if (depth > maxDepth) return BAIL;
  switch (token.type) {
    case 'block-map':
      return inFlow ? BAIL : buildMap(token.items, depth, maxDepth, ['map-value-ind'], false, token.indent);
    case 'block-seq': {
      if (inFlow) return BAIL;
      const out: Value[] = [];
      let col = -1;
      for (const item of token.items) {
        if (!only(item.start, ['seq-item-ind']) || !has(item.start, 'seq-item-ind')) return BAIL;
        const c = column(item.start.find((t) => t.type === 'seq-item-ind')!.offset);
        if (col >= 0 && c !== col) return BAIL;
        col = c;
        if (!flowIndentOk(token.indent, item.value)) return BAIL;
        const v = build(item.value, depth + 1, maxDepth);
        if (v === BAIL) return BAIL;
        out.push(v);
      }
      return out;
    }
    case 'flow-collection': {
      const close = token.start.source === '{' ? 'flow-map-end' : 'flow-seq-end';
      if (!only(token.end, [close]) || !has(token.end, close)) return BAIL;
      if (token.start.source === '{') return buildMap(token.items, depth, maxDepth, ['map-value-ind'], true, token.indent);
      const out: Value[] = [];
      for (const [i, item] of token.items.entries()) {
        if (item.key !== undefined || item.sep !== undefined || !only(item.start, ['comma'])) return BAIL;
        if (!item.value || count(item.start, 'comma') !== (i > 0 ? 1 : 0)) return BAIL;
        const v = build(item.value, depth + 1, maxDepth, true);
        if (v === BAIL) return BAIL;
        out.push(v);
      }
      return out;
    }
    case 'scalar':
      return plain(token);
    case 'single-quoted-scalar':
    case 'double-quoted-scalar':
      return scalarSource(token);
    case 'block-scalar':
      return !inFlow && token.props.every((p) => p.type === 'block-scalar-header' || QUIET.has(p.type)) ? scalarSource(token) : BAIL;
    default:
      return BAIL; // aliases, errors, anything unexpected
  }
}

function buildMap(items: CST.CollectionItem[], depth: number, maxDepth: number, separators: string[], inFlow: boolean, indent: number): Built {
  const out: Record<string, Value> = {};
  let col = -1;
  for (const [i, item] of items.entries()) {
    if ((item as { explicitKey?: true }).explicitKey || !only(item.start, inFlow ? ['comma'] : [])) return BAIL;
    if (inFlow && count(item.start, 'comma') !== (i > 0 ? 1 : 0)) return BAIL;
    if (!item.key || !item.sep || !only(item.sep, separators) || count(item.sep, 'map-value-ind') !== 1) return BAIL;
    // Implicit keys: one line, a plain or quoted scalar, the ':' on the same line, at one column.
    const k = item.key;
    if (k.type !== 'scalar' && k.type !== 'single-quoted-scalar' && k.type !== 'double-quoted-scalar') return BAIL;
    if (k.source.includes('\n') || k.source.length > 1024 || (k.end ?? []).some((t) => t.type !== 'space')) return BAIL;
    const ind = item.sep.findIndex((t) => t.type === 'map-value-ind');
    if (item.sep.slice(0, ind).some((t) => t.type !== 'space')) return BAIL;
    if (!inFlow) {
      const c = column(k.offset);
      if (col >= 0 && c !== col) return BAIL;
      col = c;
    }
    const key = build(k, depth + 1, maxDepth, inFlow);
    if (typeof key !== 'string' || FORBIDDEN_KEYS.has(key) || Object.prototype.hasOwnProperty.call(out, key)) return BAIL;
    if (!inFlow && !flowIndentOk(indent, item.value)) return BAIL;
    if (item.value?.type === 'block-map' && !has(item.sep, 'newline')) return BAIL; // `a: b: c`
    const v = build(item.value, depth + 1, maxDepth, inFlow);
    if (v === BAIL) return BAIL;
    out[key] = v;
  }
  return out;
}

function scalarSource(token: CST.FlowScalar | CST.BlockScalar): Built {
  let failed = false;
  const r = CST.resolveAsScalar(token, true, () => (failed = true));
  return failed || !r ? BAIL : r.value;
}

/** The YAML 1.2 core schema, for the forms configurations use; other number forms take the full path. */
function plain(token: CST.FlowScalar): Built {
  if (token.source.includes('\n') || /^[@`]/.test(token.source)) return BAIL; // multi-line plain, reserved starts
  const s = scalarSource(token);
  if (typeof s !== 'string') return s;
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  const c = s.charCodeAt(0);
  const numberish = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46; // 0-9 + - .
  if (!numberish) return s;
  if (/^[-+]?[0-9]+$/.test(s)) return Number(s);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|^0[xo]|^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(s)) return BAIL;
  return s;
}
