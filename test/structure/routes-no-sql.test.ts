import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requestCastsIn, sqlIn } from './route-scan.js';

/**
 * Routes only translate (docs/internals.md, "The server's seams"): a module of src/server/routes parses
 * the request (typed from its schemas by the type provider, routes/typed.ts), calls the repository
 * (src/server/repo, which holds the SQL and takes the transaction) and shapes the answer. No SQL text,
 * no statement run, no cast of the request's body, query or params.
 */
const ROUTES = join(import.meta.dirname, '..', '..', 'src', 'server', 'routes');
const modules = readdirSync(ROUTES).filter((f) => f.endsWith('.ts'));
const source = (f: string) => readFileSync(join(ROUTES, f), 'utf8');

/** Route modules whose SQL has not moved to src/server/repo yet (issue 43): this list only shrinks. */
const SQL_NOT_MOVED_YET: string[] = [];

/** Route modules not yet typed by the type provider, with their casts: counts only fall, to none. */
const CASTS_NOT_TYPED_YET: Record<string, number> = {};

describe('the scanner', () => {
  it.each([
    ['`SELECT id FROM users WHERE env_id = ?`', true],
    ['tx.run(`DELETE FROM group_links WHERE child_id = ?`, [a])', true],
    ["['t.key = ?', query.tenant]", true],
    ["await db.get<{ n: number }>('x')", true],
    ['const stmt = sqlite.prepare(text)', true],
    ['`INSERT INTO role_assignments (id) VALUES (?)`', true],
    ['ORDER BY created_at', true],
    ['// SELECT in a comment is no SQL', false],
    ['/* DELETE FROM users */ const a = 1;', false],
    ["const x = map.get('a') ? 1 : 2", false],
    ["app.get('/users/:user', handler)", false],
    ['return reply.status(204).send()', false],
    ["throw httpError('INVALID_INPUT', 'the role was not found')", false],
  ])('%s holds SQL: %s', (text, holds) => {
    expect(sqlIn(text).length > 0).toBe(holds);
  });

  it.each([
    ['const b = req.body as { key: string }', 1],
    ['const { group } = req.params as { group: string }', 1],
    ['const q = (req.query as { page?: number }).page', 1],
    ['const b = request.body as X', 1],
    ['const b = req.body', 0],
    ['const { group } = req.params', 0],
    ['// req.body as X in a comment', 0],
  ])('%s casts %i times', (text, n) => {
    expect(requestCastsIn(text)).toHaveLength(n);
  });
});

describe('src/server/routes', () => {
  it('is read (the scan sees the modules)', () => {
    expect(modules.length).toBeGreaterThan(20);
    expect(modules).toContain('groups.ts');
  });

  it('holds no SQL: the repository (src/server/repo) does', () => {
    const held = modules
      .filter((f) => !SQL_NOT_MOVED_YET.includes(f))
      .flatMap((f) => sqlIn(source(f)).map((s) => `${f}: ${s}`));
    expect(held).toEqual([]);
  });

  it('lists only modules that still hold SQL as not moved yet', () => {
    expect(SQL_NOT_MOVED_YET.filter((f) => sqlIn(source(f)).length === 0)).toEqual([]);
  });

  it('casts no request body, query or params: the route schemas type them (routes/typed.ts)', () => {
    const casts = modules.flatMap((f) =>
      f in CASTS_NOT_TYPED_YET ? [] : requestCastsIn(source(f)).map((c) => `${f}: ${c}`),
    );
    expect(casts).toEqual([]);
  });

  it('counts the casts of the modules not typed yet exactly (a module typed leaves the list)', () => {
    const counts = Object.keys(CASTS_NOT_TYPED_YET).map((f) => [f, requestCastsIn(source(f)).length]);
    expect(Object.fromEntries(counts)).toEqual(CASTS_NOT_TYPED_YET);
  });
});
