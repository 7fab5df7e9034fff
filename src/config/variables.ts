/**
 * Between parse and schema: values that differ by environment (docs/config.md, "Values that differ by
 * environment"). Files declare `variables: {name: value}` (a string, number or bool); a string value that
 * is exactly `${name}` becomes the value itself, of its type (`"${max_size}"` the number 50), and `${name}`
 * within a longer string is replaced by the value as text; `$${` writes a literal `${`. Keys are never substituted (an object's name
 * is its identity: names that differ belong in the environment's folder), nor are the values of
 * `variables` themselves. A variable declared twice, or used and declared nowhere, is an error at its
 * place. Pure: the parsed values are rewritten in place.
 */
import { describePlace, documentOf, problemAt, type Loc, type Problem, type Segment, type Source } from './source.js';
import { didYouMean } from './suggest.js';

export interface ParsedFile {
  src: Source;
  value: unknown;
}

const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A whole value that is one reference: it takes the variable's type. */
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export type VariableValue = string | number | boolean;

const isVariableValue = (v: unknown): v is VariableValue =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Substitutes every file's references; returns the problems (unknown or twice-declared variables, bad references). */
export function substituteVariables(files: ParsedFile[]): Problem[] {
  const problems: Problem[] = [];
  const values = new Map<string, { value: VariableValue; loc: Loc }>();
  for (const { src, value } of files) {
    const declared = isMapping(value) ? value.variables : undefined;
    if (!isMapping(declared)) continue;
    for (const [name, v] of Object.entries(declared)) {
      if (!isVariableValue(v)) continue; // the schema reports it
      const loc: Loc = { src, path: ['variables', name] };
      const first = values.get(name);
      if (first) {
        problems.push(
          problemAt(loc, [], `variable "${name}" is declared twice: here and at ${describePlace(first.loc)}`, {
            on: 'key',
            hint: "declare each variable once: in each environment's folder, not in the shared one",
          }),
        );
      } else values.set(name, { value: v, loc });
    }
  }
  const names = [...values.keys()];
  for (const { src, value } of files) {
    // A file whose text has no `${` has nothing to substitute: the 10,000-user file is not walked.
    if (!isMapping(value) || !src.text.includes('${')) continue;
    for (const [field, v] of Object.entries(value)) {
      if (field !== 'variables') value[field] = walk(v, [field], { src, values, names, problems });
    }
  }
  return problems;
}

interface Walk {
  src: Source;
  values: Map<string, { value: VariableValue }>;
  names: string[];
  problems: Problem[];
  /** A node an alias repeats is one object: substituted once (twice would read `$${x}`'s result `${x}` as a reference). */
  seen?: WeakSet<object>;
}

/** Recursive: parsing bounds the depth (parse.ts MAX_DEPTH). */
function walk(v: unknown, path: Segment[], w: Walk): unknown {
  if (typeof v === 'string') {
    if (!v.includes('${')) return v;
    const whole = WHOLE.exec(v);
    const found = whole ? w.values.get(whole[1]) : undefined;
    return found ? found.value : substitute(v, path, w);
  }
  if (v === null || typeof v !== 'object') return v;
  w.seen ??= new WeakSet();
  if (w.seen.has(v)) return v;
  w.seen.add(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = walk(v[i], [...path, i], w);
    return v;
  }
  if (isMapping(v)) for (const k of Object.keys(v)) v[k] = walk(v[k], [...path, k], w);
  return v;
}

function substitute(text: string, path: Segment[], w: Walk): string {
  return text.replace(REFERENCE, (whole, escaped: string, name: string) => {
    if (escaped) return whole.slice(1); // `$${x}` is the text `${x}`
    const found = w.values.get(name);
    if (found) return String(found.value);
    const loc: Loc = { src: w.src, path };
    if (!NAME.test(name)) {
      w.problems.push(
        at(
          loc,
          whole,
          `"${whole}" is not a variable reference`,
          'a name is letters, digits and _; write $${ for a literal ${',
        ),
      );
    } else {
      const hint =
        didYouMean(name, w.names) ??
        (w.names.length === 0
          ? `no variables are declared: declare it under \`variables:\` (in each environment's folder)`
          : `declared variables: ${w.names.slice(0, 8).join(', ')}${w.names.length > 8 ? ', ...' : ''}`);
      w.problems.push(at(loc, whole, `unknown variable "${name}"`, hint));
    }
    return whole;
  });
}

/** The problem at the reference itself within its value when the text shows it there, else at the value. */
function at(loc: Loc, reference: string, message: string, hint: string): Problem {
  const p = problemAt(loc, [], message, { hint });
  if (p.line === undefined || p.column === undefined) return p;
  const { lineCounter } = documentOf(loc.src);
  const lineStart = lineCounter.lineStarts[p.line - 1] ?? 0;
  const from = lineStart + p.column - 1;
  const endLine = p.endLine ?? p.line;
  const to = (lineCounter.lineStarts[endLine - 1] ?? lineStart) + (p.endColumn ?? p.column) - 1;
  const i = loc.src.text.indexOf(reference, from);
  if (i < 0 || i + reference.length > Math.max(to, from + reference.length)) return p;
  const start = lineCounter.linePos(i);
  const end = lineCounter.linePos(i + reference.length);
  return { ...p, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
}

/**
 * The variable written at a place, when the value there (as written, before substitution) uses one: for
 * a hint that must name the variable rather than the value it gave (`"${max_size}"` holding the string
 * "50"). `whole` when the value is exactly the reference. Reads the document: only for a problem.
 */
export function variableWrittenAt(loc: Loc, sub: Segment[]): { name: string; whole: boolean } | undefined {
  const node = documentOf(loc.src).doc.getIn([...loc.path, ...sub], true) as { value?: unknown } | undefined;
  const written = node?.value;
  if (typeof written !== 'string' || !written.includes('${')) return undefined;
  const whole = WHOLE.exec(written);
  if (whole) return { name: whole[1], whole: true };
  for (const [, escaped, name] of written.matchAll(REFERENCE))
    if (!escaped && NAME.test(name)) return { name, whole: false };
  return undefined;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
