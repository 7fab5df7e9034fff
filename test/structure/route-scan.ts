/**
 * What test/structure/routes-no-sql.test.ts looks for in a route module: SQL text (a statement's
 * keywords, a `column = ?` placeholder) or a call that runs SQL (`.prepare(`, `.query(`, a Queryable's
 * `all`/`get`/`run`/`values` on `db`, `tx` or `q`), and `as` casts of `req.body`, `req.query`, `req.params`.
 * Comments are left out: a comment may name a statement.
 */

/** The source without its comments (block comments, and `//` to the end of a line outside a string's `://`). */
export function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const SQL: [string, RegExp][] = [
  [
    'a statement',
    /\b(SELECT|INSERT\s+INTO|UPDATE\s+[a-z_]+\s+SET|DELETE\s+FROM|WITH\s+RECURSIVE|CREATE\s+TABLE|ALTER\s+TABLE|DROP\s+TABLE)\b/,
  ],
  [
    'a clause',
    /\b(FROM|JOIN)\s+[a-z_]+\s+[a-z_]+\s+(ON|WHERE|JOIN)\b|\bWHERE\s+[a-z_.]+\s*(=|IN\b)|\bON CONFLICT\b|\bORDER BY\s+[a-z_.]+/,
  ],
  ['a placeholder', /[\w.]+\s*(?:=|<>|<=|>=|\bLIKE|\bIN)\s*\(?\?/],
  ['a call that runs SQL', /\.(prepare|query)\(|\b(db|tx|q)\.(all|get|run|values)\s*(<[^>]*>)?\(/],
];

/** Each kind of SQL the source holds, with the first line that shows it. */
export function sqlIn(source: string): string[] {
  const lines = withoutComments(source).split('\n');
  const found: string[] = [];
  for (const [what, re] of SQL) {
    const at = lines.findIndex((l) => re.test(l));
    if (at >= 0) found.push(`${what} at line ${at + 1}: ${lines[at].trim()}`);
  }
  return found;
}

/** The `req.body as …`, `req.query as …` and `req.params as …` casts, one per line that holds one. */
export function requestCastsIn(source: string): string[] {
  return withoutComments(source)
    .split('\n')
    .flatMap((l, i) =>
      /\b(req|request)\.(body|query|params)\)?\s+as\b/.test(l) ? [`line ${i + 1}: ${l.trim()}`] : [],
    );
}
