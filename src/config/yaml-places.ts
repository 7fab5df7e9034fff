/**
 * Where a YAML mistake really is. The yaml library reports some mistakes where it noticed them, not
 * where the user made them:
 * - a key indented more than the key above it, whose value is a scalar (`email: a@b` then
 *   `  tenants: [x]` further right), comes as two errors on the line above (a mapping nested in a
 *   compact one, a key over several lines): it is one mistake, on the over-indented key's own line;
 * - an unclosed `{` or `[` is reported at the next line indented less (often the next section): it is
 *   reported where it opened.
 * Pure text work on the yaml library's errors, before they are put in the house style (yaml-messages.ts).
 */

export interface YamlError {
  code: string;
  message: string;
  pos: [number, number];
}

/** The errors with the two mistakes above moved to their place (and the first given its own code). */
export function placeYamlErrors(text: string, errors: YamlError[]): YamlError[] {
  const out: YamlError[] = [];
  const overIndented = new Set<number>();
  const placed = new Set<number>();
  for (const e of errors) {
    if (e.code === 'BLOCK_AS_IMPLICIT_KEY' || e.code === 'MULTILINE_IMPLICIT_KEY') {
      const key = overIndentedKey(text, e.pos[0]);
      if (key) {
        if (!overIndented.has(key[0])) out.push({ code: 'OVER_INDENTED_KEY', message: e.message, pos: key });
        overIndented.add(key[0]);
        continue;
      }
    }
    if (e.code === 'BAD_INDENT' && /^Flow (map|sequence)/.test(e.message)) {
      const kind = /^Flow map/.test(e.message) ? '{' : '[';
      const openers = unclosedOpeners(text, e.pos[0]).filter((o) => o.ch === kind && !placed.has(o.at));
      const opener = openers[openers.length - 1]?.at;
      if (opener !== undefined) {
        placed.add(opener);
        out.push({ ...e, pos: [opener, opener + 1] });
        continue;
      }
      // No bracket of its kind is left open, or each already has its error: a consequence of one
      // reported above (`[a }` makes the library miss the `}` too), dropped.
      if (placed.size > 0) continue;
    }
    out.push(e);
  }
  return out;
}

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const indentOf = (line: string) => /^ */.exec(line)![0].length;

/**
 * The range of the key on the next non-blank line when it is indented more than the line at `at`,
 * which holds `key: scalar`: the over-indented key. Undefined when the text does not look like that.
 */
function overIndentedKey(text: string, at: number): [number, number] | undefined {
  const start = lineStart(text, at);
  const end = text.indexOf('\n', start);
  if (end < 0) return undefined;
  const line = text.slice(start, end);
  if (!/^ *(- +)?[^\s#:][^:#]*:[ \t]+\S/.test(line)) return undefined;
  let next = end + 1;
  while (next < text.length) {
    const nextEnd = text.indexOf('\n', next) < 0 ? text.length : text.indexOf('\n', next);
    const candidate = text.slice(next, nextEnd);
    if (/^\s*(#.*)?$/.test(candidate)) {
      next = nextEnd + 1;
      continue;
    }
    const m = /^( *)([^\s#:][^:#]*):(\s|$)/.exec(candidate);
    const keyIndent = indentOf(line.replace(/^( *)- +/, (_, s: string) => `${s}  `));
    if (!m || m[1].length <= keyIndent) return undefined;
    return [next + m[1].length, next + m[1].length + m[2].length];
  }
  return undefined;
}

/**
 * The `{` and `[` still open at `until`, outermost first, reading the text from its start: quoted strings
 * and comments are skipped, and a bracket opens a flow collection only where one can start (after `:`,
 * `-`, `,`, another bracket, or at the start of a line), not inside a plain scalar. A closer of the
 * other kind (`[a }`) leaves the brackets above its match unclosed, and closes its match.
 */
function unclosedOpeners(text: string, until: number): { ch: string; at: number }[] {
  const open: { ch: string; at: number }[] = [];
  const unclosed: { ch: string; at: number }[] = [];
  let prev = '\n'; // the last character that was not a space
  for (let i = 0; i < until && i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += c === '"' && text[j] === '\\' ? 2 : 1;
      i = j;
      prev = c;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      while (i < text.length && text[i] !== '\n') i++;
      prev = '\n';
      continue;
    }
    if ((c === '{' || c === '[') && (open.length > 0 || /[:\-,[{\n]/.test(prev))) open.push({ ch: c, at: i });
    else if ((c === '}' || c === ']') && open.length > 0) {
      const match = c === '}' ? '{' : '[';
      let k = open.length - 1;
      while (k >= 0 && open[k].ch !== match) k--;
      if (k >= 0) unclosed.push(...open.splice(k).slice(1));
    }
    if (c !== ' ' && c !== '\t') prev = c;
  }
  return [...unclosed, ...open].sort((a, b) => a.at - b.at);
}
