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

export function fastParse(text: string, maxDepth: number): { value: Record<string, unknown> } | undefined {
  let doc: CST.Document | undefined;
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document' && !doc) doc = token;
    else if (!QUIET.has(token.type) && token.type !== 'byte-order-mark') return undefined;
  }
  if (!doc || !doc.value || !only(doc.start, ['doc-start']) || !only(doc.end ?? [], [])) return undefined;
  const value = build(doc.value, 1, maxDepth);
  if (value === BAIL || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return { value: value as Record<string, unknown> };
}

function only(tokens: CST.SourceToken[], allowed: string[]): boolean {
  for (const t of tokens) if (!QUIET.has(t.type) && !allowed.includes(t.type)) return false;
  return true;
}

function build(token: CST.Token | null | undefined, depth: number, maxDepth: number): Built {
  if (!token) return null;
  if (depth > maxDepth) return BAIL;
  switch (token.type) {
    case 'block-map':
      return buildMap(token.items, depth, maxDepth, ['map-value-ind']);
    case 'block-seq': {
      const out: Value[] = [];
      for (const item of token.items) {
        if (!only(item.start, ['seq-item-ind'])) return BAIL;
        const v = build(item.value, depth + 1, maxDepth);
        if (v === BAIL) return BAIL;
        out.push(v);
      }
      return out;
    }
    case 'flow-collection': {
      if (!only(token.end, ['flow-seq-end', 'flow-map-end'])) return BAIL;
      if (token.start.source === '{') return buildMap(token.items, depth, maxDepth, ['map-value-ind', 'comma']);
      const out: Value[] = [];
      for (const item of token.items) {
        if (item.key !== undefined || item.sep !== undefined || !only(item.start, ['comma'])) return BAIL;
        if (!item.value) continue; // a trailing comma
        const v = build(item.value, depth + 1, maxDepth);
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
      return token.props.every((p) => p.type === 'block-scalar-header' || QUIET.has(p.type)) ? scalarSource(token) : BAIL;
    default:
      return BAIL; // aliases, errors, anything unexpected
  }
}

function buildMap(items: CST.CollectionItem[], depth: number, maxDepth: number, separators: string[]): Built {
  const out: Record<string, Value> = {};
  for (const item of items) {
    if ((item as { explicitKey?: true }).explicitKey || !only(item.start, ['comma'])) return BAIL;
    if (!item.key || !item.sep || !only(item.sep, separators)) return BAIL;
    const key = build(item.key, depth + 1, maxDepth);
    if (typeof key !== 'string' || FORBIDDEN_KEYS.has(key) || Object.prototype.hasOwnProperty.call(out, key)) return BAIL;
    const v = build(item.value, depth + 1, maxDepth);
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
