/**
 * Reads the Terraform (HCL) of permit-cli's templates (test/fixtures/permit-cli) into their `resource`
 * blocks, references and `jsonencode(...)` resolved to values: the subset those files are written in
 * (blocks with labels, `k = v` and `"k": v` entries, strings, numbers, bools, lists, objects, references
 * `type.name.attribute`, one-argument functions, `#` and `//` comments, `{{PLACEHOLDER}}`s). Anything else
 * throws, naming the offset: a template that needs more fails its test rather than being misread.
 */
type Expr = null | boolean | number | string | Expr[] | { [key: string]: Expr } | Ref | Call;
class Ref {
  constructor(readonly path: string[]) {}
}
class Call {
  constructor(
    readonly name: string,
    readonly arg: Expr,
  ) {}
}

export interface TerraformResource {
  type: string;
  name: string;
  /** The block's attributes, resolved (references to other blocks' attributes become their values). */
  attributes: Record<string, unknown>;
}

const TOKEN =
  /\s+|#[^\n]*|\/\/[^\n]*|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)\b|([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)|([{}[\]=:,()])/y;

function tokenize(text: string): string[] {
  const source = text.replace(/\{\{(\w+)\}\}/g, '"$1"');
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(source);
    if (!m) throw new Error(`unsupported HCL at offset ${at}: ${JSON.stringify(source.slice(at, at + 30))}`);
    const token = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (token !== undefined) tokens.push(token);
  }
  return tokens;
}

export function readTerraform(text: string): TerraformResource[] {
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const take = (expected?: string) => {
    const t = tokens[i++];
    if (t === undefined || (expected !== undefined && t !== expected))
      throw new Error(`expected ${expected ?? 'a token'} at token ${i - 1}, found ${t}`);
    return t;
  };
  const isString = (t: string | undefined) => t !== undefined && t.startsWith('"');
  const keyOf = (t: string) => (isString(t) ? (JSON.parse(t) as string) : t);

  const expr = (): Expr => {
    const t = take();
    if (isString(t)) return JSON.parse(t) as string;
    if (/^-?\d/.test(t)) return Number(t);
    if (t === 'true' || t === 'false') return t === 'true';
    if (t === 'null') return null;
    if (t === '[') {
      const items: Expr[] = [];
      while (peek() !== ']') {
        items.push(expr());
        if (peek() === ',') take();
      }
      take(']');
      return items;
    }
    if (t === '{') {
      const entries: Record<string, Expr> = {};
      while (peek() !== '}') {
        const key = keyOf(take());
        if (peek() !== '=' && peek() !== ':') take('=');
        take();
        entries[key] = expr();
        if (peek() === ',') take();
      }
      take('}');
      return entries;
    }
    if (/^[A-Za-z_]/.test(t)) {
      if (peek() !== '(') return new Ref(t.split('.'));
      take('(');
      const arg = expr();
      take(')');
      return new Call(t, arg);
    }
    throw new Error(`unexpected ${t} at token ${i - 1}`);
  };

  /** A body: `k = v` attributes and nested `name "label"... { }` blocks, until `}` or the end. */
  const blocks: { labels: string[]; body: Record<string, Expr> }[] = [];
  const body = (labelsOf: string[]): Record<string, Expr> => {
    const attributes: Record<string, Expr> = {};
    while (i < tokens.length && peek() !== '}') {
      const key = keyOf(take());
      if (peek() === '=' || peek() === ':') {
        take();
        attributes[key] = expr();
        continue;
      }
      const labels = [key];
      while (isString(peek())) labels.push(keyOf(take()));
      take('{');
      const inner = body([...labelsOf, ...labels]);
      take('}');
      if (labelsOf[0] === 'resource')
        throw new Error(`unsupported nested block ${labels.join(' ')} in ${labelsOf.join(' ')}`);
      if (labelsOf.length === 0) blocks.push({ labels, body: inner });
    }
    return attributes;
  };
  body([]);

  const resources = blocks.filter((b) => b.labels[0] === 'resource' && b.labels.length === 3);
  const byRef = new Map(resources.map((b) => [`${b.labels[1]}.${b.labels[2]}`, b.body]));
  const resolve = (e: Expr, depth = 0): unknown => {
    if (depth > 50) throw new Error('references too deep');
    if (e instanceof Ref) {
      const target = byRef.get(e.path.slice(0, 2).join('.'));
      if (!target || e.path.length !== 3) return undefined; // `var.x`, or a whole block (depends_on)
      return resolve(target[e.path[2]] ?? null, depth + 1);
    }
    if (e instanceof Call) {
      if (e.name !== 'jsonencode') throw new Error(`unsupported function ${e.name}`);
      return resolve(e.arg, depth + 1);
    }
    if (Array.isArray(e)) return e.map((x) => resolve(x, depth + 1));
    if (e !== null && typeof e === 'object')
      return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, resolve(v, depth + 1)]));
    return e;
  };
  return resources.map((b) => ({
    type: b.labels[1],
    name: b.labels[2],
    attributes: Object.fromEntries(
      Object.entries(b.body)
        .filter(([k]) => k !== 'depends_on')
        .map(([k, v]) => [k, resolve(v)]),
    ),
  }));
}
