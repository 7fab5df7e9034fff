/**
 * Scalars and one-line flow collections for the fast parse path (./fast.ts). Each reader takes a line
 * and the index where its node starts, returns the value (or BAIL, when the full path must decide) and
 * leaves the index just after the node in `cursor.at`. Only forms whose meaning is certain are read:
 * quoted scalars closed on their line (JSON escapes only), plain scalars of the YAML 1.2 core schema
 * (integers, null, booleans, strings; other number forms bail), and `[...]` `{...}` closed on the line.
 */
export const BAIL: unique symbol = Symbol('bail');
/** Where the last node read ended, as an index in its line. */
export const cursor = { at: 0 };

const SPACE = 32;
const HASH = 35;
const COLON = 58;
/** Characters that cannot start a plain scalar ('-' may, when a safe character follows; '?' and ':' bail). */
const INDICATORS = new Set('-?:,[]{}#&*!|>\'"%@`');

function isFlowIndicator(c: number): boolean {
  return c === 44 || c === 91 || c === 93 || c === 123 || c === 125; // , [ ] { }
}

export function skipSpaces(s: string, i: number): number {
  while (s.charCodeAt(i) === SPACE) i++;
  return i;
}

/**
 * A key the fast path may keep in `out`: a string, new, not one that could pollute prototypes, and
 * short (yaml limits implicit keys to 1024 characters; `length` is the key's in the source).
 */
export function keyOk(out: object, key: unknown, length: number): key is string {
  return (
    typeof key === 'string' &&
    length <= 1000 &&
    key !== '__proto__' &&
    key !== 'constructor' &&
    key !== 'prototype' &&
    !Object.hasOwn(out, key)
  );
}

/** A quoted scalar starting at s[i] (' or "), closed on its line. */
export function quoted(s: string, i: number): string | typeof BAIL {
  if (s.charCodeAt(i) === 39) {
    let j = i + 1;
    let doubled = false;
    for (;;) {
      j = s.indexOf("'", j);
      if (j < 0) return BAIL;
      if (s.charCodeAt(j + 1) !== 39) break;
      doubled = true;
      j += 2;
    }
    cursor.at = j + 1;
    const body = s.slice(i + 1, j);
    return doubled ? body.replaceAll("''", "'") : body;
  }
  let j = i + 1;
  let escaped = false;
  for (;;) {
    const c = s.charCodeAt(j);
    if (c === 34) break;
    if (Number.isNaN(c)) return BAIL; // not closed on this line
    if (c === 92) {
      const e = s[j + 1];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(s.slice(j + 2, j + 6))) return BAIL;
        j += 6;
      } else if (e !== undefined && '"\\/bfnrt'.includes(e)) j += 2;
      else return BAIL; // YAML-only escapes (\x, \e, \N, ...) take the full path
      escaped = true;
      continue;
    }
    j++;
  }
  cursor.at = j + 1;
  return escaped ? (JSON.parse(s.slice(i, j + 1)) as string) : s.slice(i + 1, j);
}

/**
 * Where a plain scalar starting at s[i] ends (after its last non-space character), or -1 to bail.
 * It ends at ': ' (or ':' at the end, or before a flow indicator in flow), at ' #' and at the end of
 * the line; in flow also at , [ ] { }. A '#' glued to it, or [ ] { } in block context, bail.
 */
export function plainEnd(s: string, i: number, flow: boolean): number {
  const first = s[i];
  if (first === undefined || first === ' ') return -1;
  if (INDICATORS.has(first)) {
    const d = s.charCodeAt(i + 1);
    if (first !== '-' || Number.isNaN(d) || d === SPACE || (flow && isFlowIndicator(d))) return -1;
  }
  let end = i;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === SPACE) continue;
    if (c === HASH) {
      if (s.charCodeAt(j - 1) === SPACE) break;
      return -1;
    }
    if (c === COLON) {
      const d = s.charCodeAt(j + 1);
      if (Number.isNaN(d) || d === SPACE || (flow && isFlowIndicator(d))) break;
    } else if (isFlowIndicator(c)) {
      if (flow) break;
      if (c !== 44) return -1;
    }
    end = j + 1;
  }
  return end;
}

/** The YAML 1.2 core schema, for the forms configurations use; other number forms take the full path. */
export function resolvePlain(s: string): unknown {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  const c = s.charCodeAt(0);
  const numberish = (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46; // 0-9 + - .
  if (!numberish) return s;
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10); // as yaml resolves it (not Number: digits past the 20th)
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$|^0[xo]|^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(s))
    return BAIL;
  return s;
}

/** A node in flow context at s[i]: a flow collection closed on this line, a quoted or a plain scalar. */
export function flowNode(s: string, i: number, depth: number, maxDepth: number): unknown {
  if (depth > maxDepth) return BAIL;
  const c = s.charCodeAt(i);
  if (c === 34 || c === 39) return quoted(s, i);
  if (c === 91 || c === 123) {
    const isMap = c === 123;
    const close = isMap ? 125 : 93;
    const out: Record<string, unknown> | unknown[] = isMap ? {} : [];
    let j = skipSpaces(s, i + 1);
    while (s.charCodeAt(j) !== close) {
      let v: unknown;
      if (isMap) {
        const key = flowNode(s, j, depth + 1, maxDepth);
        if (!keyOk(out, key, cursor.at - j)) return BAIL;
        j = skipSpaces(s, cursor.at);
        // `{a}`, `{a:}` and JSON-style `{"a":1}` are left to the full path.
        if (s.charCodeAt(j) !== COLON || s.charCodeAt(j + 1) !== SPACE) return BAIL;
        v = flowNode(s, skipSpaces(s, j + 2), depth + 1, maxDepth);
        if (v === BAIL) return BAIL;
        (out as Record<string, unknown>)[key] = v;
      } else {
        v = flowNode(s, j, depth + 1, maxDepth);
        if (v === BAIL) return BAIL;
        (out as unknown[]).push(v);
      }
      j = skipSpaces(s, cursor.at);
      if (s.charCodeAt(j) === 44)
        j = skipSpaces(s, j + 1); // a trailing comma is allowed
      else if (s.charCodeAt(j) !== close) return BAIL; // `[a: b]`, a comment, the end of the line...
    }
    cursor.at = j + 1;
    return out;
  }
  const end = plainEnd(s, i, true);
  if (end < 0) return BAIL;
  cursor.at = end;
  return resolvePlain(s.slice(i, end));
}
