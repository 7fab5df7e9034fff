/**
 * Documents for the fast parse path's property tests: random nested values from a pool of tricky
 * scalars, and writers that put them in YAML in random styles (block, flow, compact `- k: v`, plain,
 * single- or double-quoted even where that changes the meaning, comments, blank lines, indentation widths
 * 1-4) or in the canonical styles configurations use (the benchmark's block of flow, the examples' block).
 */
import fc from 'fast-check';

export const TRICKY = [
  'true',
  'null',
  '~',
  'Null',
  'TRUE',
  '1',
  '-1',
  '+1',
  '007',
  '0',
  '0x1',
  '0o7',
  '1e3',
  '1.5',
  '.5',
  '.inf',
  '-',
  'a: b',
  'a:b',
  'a #b',
  'a#b',
  '- x',
  '-x',
  '[x]',
  '{x}',
  'x]',
  'a,b',
  ',',
  '"',
  "'",
  "it's",
  'say "hi"',
  'back\\slash',
  '\\n',
  'ünïcødé ✓',
  '😀',
  '',
  ' lead',
  'trail ',
  'a  b',
  '@x',
  '`x',
  ':x',
  'x:',
  '?x',
  '? x',
  '#',
  '%x',
  '&a',
  '*a',
  '!t',
  '|',
  '>',
  '---',
  '...',
  'document:read',
  'key with spaces',
  'user@example.test',
  'service|ci-bot',
  'team:platform',
  'on',
  'y',
  'plain',
];
const KEYS = [...TRICKY.filter((s) => s.length < 12), 'name', 'roles', 'tenants', 'users', 'a', 'b', 'c'];

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

const scalar = fc.oneof(fc.constantFrom(...TRICKY), fc.constantFrom(0, 1, -5, 12345, true, false, null));
const { value } = fc.letrec<{ value: Value; map: Value; seq: Value }>((tie) => ({
  value: fc.oneof({ maxDepth: 4, depthIdentifier: 'v' }, scalar, tie('map'), tie('seq')),
  map: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  seq: fc.array(tie('value'), { maxLength: 4 }),
}));
/** A document: a mapping at the top, with at least one key. */
export const documents = fc.dictionary(fc.constantFrom(...KEYS), value, { minKeys: 1, maxKeys: 5 }) as fc.Arbitrary<
  Record<string, Value>
>;

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isCollection = (v: Value): v is Value[] | { [key: string]: Value } => typeof v === 'object' && v !== null;
const isEmpty = (v: Value[] | { [key: string]: Value }) => (Array.isArray(v) ? v.length : Object.keys(v).length) === 0;

/** Plain only where YAML reads the text back as the same string; JSON (double-quoted) otherwise. */
export function canonical(v: Value): string {
  if (typeof v !== 'string') return String(v);
  const plain =
    /^[A-Za-z_][A-Za-z0-9_ .@|:/-]*$/.test(v) && !/[ :]$|: /.test(v) && !/^(true|false|null|on|y)$/i.test(v);
  return plain ? v : JSON.stringify(v);
}

/** Writes a document in random styles, decided by the seed. */
export function writeRandom(doc: Record<string, Value>, seed: number): string {
  const r = prng(seed);
  const width = 1 + Math.floor(r() * 4);
  const chance = (p: number) => r() < p;
  const scalarText = (v: Value, flow: boolean): string => {
    if (typeof v !== 'string') return v === null ? (chance(0.3) ? '~' : chance(0.3) ? '' : 'null') : String(v);
    const x = r();
    if (x < 0.4) return flow && chance(0.5) ? canonical(v) : v; // plain, even when that changes the meaning
    if (x < 0.7) return `'${v.replaceAll("'", "''")}'`;
    return JSON.stringify(v);
  };
  const flow = (v: Value): string => {
    if (!isCollection(v)) return scalarText(v, true) || 'null';
    const sep = chance(0.5) ? ', ' : ',';
    const trailing = chance(0.1) ? ',' : '';
    if (Array.isArray(v)) return `[${v.map(flow).join(sep)}${v.length ? trailing : ''}]`;
    const parts = entries(v).map(([k, x]) => `${scalarText(k, true) || '""'}: ${flow(x)}`);
    return parts.length === 0 ? '{}' : chance(0.5) ? `{ ${parts.join(sep)} }` : `{${parts.join(sep)}${trailing}}`;
  };
  // Now and then a key twice, which must bail (or fail the agreement).
  const entries = (v: { [key: string]: Value }) => {
    const all = Object.entries(v);
    return all.length > 0 && chance(0.03) ? [...all, all[0]] : all;
  };
  const comment = () => (chance(0.15) ? ' # note: a #b' : chance(0.03) ? '#glued' : '');
  const out: string[] = [];
  const push = (line: string) => {
    if (chance(0.05)) out.push('');
    if (chance(0.05)) out.push(`${' '.repeat(Math.floor(r() * 6))}# a comment: [x]`);
    out.push(line);
  };
  // The lines of a block node at column col; the first may be rewritten for `- ` (compact forms).
  const block = (v: Value, col: number): string[] => {
    const pad = ' '.repeat(col);
    const lines: string[] = [];
    if (!isCollection(v) || isEmpty(v)) return [pad + flow(v)];
    if (Array.isArray(v)) {
      for (const item of v) {
        if (isCollection(item) && !isEmpty(item) && chance(0.7)) {
          if (chance(0.5)) {
            const inner = block(item, col + 1 + 1 + Math.floor(r() * 3)); // compact: `- k: v`, `- - x`
            lines.push(`${pad}-${inner[0].slice(col + 1)}`, ...inner.slice(1));
          } else lines.push(`${pad}-${comment()}`, ...block(item, col + width));
        } else lines.push(`${pad}- ${flow(item)}${comment()}`);
      }
      return lines;
    }
    for (const [k, x] of entries(v)) {
      const key = `${pad}${scalarText(k, false) || '""'}:`;
      if (isCollection(x) && !isEmpty(x) && chance(0.7)) {
        lines.push(key + comment(), ...block(x, Array.isArray(x) && chance(0.3) ? col : col + width));
      } else lines.push(`${key} ${flow(x)}${comment()}`);
    }
    return lines;
  };
  if (chance(0.1)) out.push('---');
  for (const line of block(doc, 0)) push(line);
  return out.join(chance(0.1) ? '\r\n' : '\n') + (chance(0.9) ? '\n' : '');
}

/** The examples' style: block mappings, 2-space indentation, lists of scalars in flow, compact `- k: v`. */
export function writeExamples(doc: Record<string, Value>): string {
  const flow = (v: Value): string => {
    if (!isCollection(v)) return canonical(v);
    if (Array.isArray(v)) return `[${v.map(flow).join(', ')}]`;
    const parts = Object.entries(v).map(([k, x]) => `${canonical(k)}: ${flow(x)}`);
    return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
  };
  const block = (v: Value, col: number): string[] => {
    const pad = ' '.repeat(col);
    if (!isCollection(v) || isEmpty(v)) return [pad + flow(v)];
    if (Array.isArray(v)) {
      return v.flatMap((item) => {
        if (!isCollection(item) || Array.isArray(item) || isEmpty(item)) return [`${pad}- ${flow(item)}`];
        const inner = block(item, col + 2);
        return [`${pad}- ${inner[0].slice(col + 2)}`, ...inner.slice(1)];
      });
    }
    return Object.entries(v).flatMap(([k, x]) => {
      const key = `${pad}${canonical(k)}:`;
      const scalars = Array.isArray(x) && x.every((i) => !isCollection(i));
      return isCollection(x) && !isEmpty(x) && !scalars ? [key, ...block(x, col + 2)] : [`${key} ${flow(x)}`];
    });
  };
  return block(doc, 0).join('\n') + '\n';
}
