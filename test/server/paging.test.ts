import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok } from './builders.js';

// 205 tenants and 205 users: enough for full pages of 100, a partial last page and a page past the end.
const N = 205;
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // The list holds exactly the N tenants made here: without the `default` the environment came with.
  expect((await s.facts('DELETE', '/tenants/default')).status).toBe(204);
  const keys = Array.from({ length: N }, (_, i) => `k${String(i).padStart(3, '0')}`);
  for (let i = 0; i < N; i += 25) {
    await Promise.all(keys.slice(i, i + 25).map((k) => s.facts('POST', '/tenants', { key: k, name: k }).then(ok)));
    await Promise.all(keys.slice(i, i + 25).map((k) => s.facts('POST', '/users', { key: k }).then(ok)));
  }
  await s.schema('POST', '/roles', { key: 'r', name: 'r' }).then(ok);
  // 1,100 role assignments: above the 1,000 a page that role assignments allow.
  for (let i = 0; i < 1100; i += 1000) {
    const items = [];
    for (let j = i; j < Math.min(i + 1000, 1100); j++)
      items.push({ user: keys[j % N], role: 'r', tenant: keys[Math.floor(j / N)] });
    ok(await s.facts('POST', '/role_assignments/bulk', items));
  }
});
afterAll(() => s.close());

const keysOf = (body: { key: string }[]) => body.map((t) => t.key);

describe('schema lists (bare arrays unless include_total_count=true)', () => {
  // Creation order (then id) is the list order. The tenants were created 25 at a time, so the order
  // is read once, at per_page=100, and every other paging must cut the same sequence.
  let order: string[];
  beforeAll(async () => {
    const pages = await Promise.all([1, 2, 3].map((p) => s.facts('GET', `/tenants?per_page=100&page=${p}`).then(ok)));
    order = pages.flatMap(keysOf);
  });

  it('pages at per_page=100 are disjoint and cover the list', () => {
    expect(order).toHaveLength(N);
    expect(new Set(order).size).toBe(N);
  });

  it.each([
    [undefined, undefined, 0, 30],
    [2, undefined, 30, 60],
    [3, 100, 200, 205],
    [4, 100, 205, 205],
    [205, 1, 204, 205],
    [206, 1, 205, 205],
    [30, 7, 203, 205],
    [1_000_000, undefined, 205, 205],
  ])('page %s, per_page %s: items %i to %i', async (page, perPage, from, to) => {
    const q = new URLSearchParams();
    if (page !== undefined) q.set('page', String(page));
    if (perPage !== undefined) q.set('per_page', String(perPage));
    const body = ok(await s.facts('GET', `/tenants?${q}`));
    expect(Array.isArray(body)).toBe(true);
    expect(keysOf(body)).toEqual(order.slice(from, to));
  });

  it.each([
    ['?include_total_count=true', 30, 7],
    ['?include_total_count=true&per_page=100', 100, 3],
    ['?include_total_count=true&per_page=100&page=9', 0, 3],
    ['?include_total_count=true&per_page=205', null, null],
  ])('include_total_count: %s', async (query, count, pages) => {
    const r = await s.facts('GET', `/tenants${query}`);
    if (count === null) return expectError(r, 422, 'PAGINATION_SIZE_OVERREACHED');
    expect(ok(r)).toEqual({ data: expect.any(Array), total_count: N, page_count: pages });
    expect(r.body.data).toHaveLength(count);
  });
});

describe('envelope lists (users)', () => {
  it.each([
    ['', 30, 7],
    ['?per_page=100&page=3', 5, 3],
    ['?per_page=100&page=4', 0, 3],
    ['?per_page=50&page=5', 5, 5],
  ])('GET /users%s', async (query, count, pages) => {
    const body = ok(await s.facts('GET', `/users${query}`));
    expect(body).toEqual({ data: expect.any(Array), total_count: N, page_count: pages });
    expect(body.data).toHaveLength(count);
  });
});

describe('limits', () => {
  it.each([
    ['/v2/facts/p/e/tenants'],
    ['/v2/facts/p/e/users'],
    ['/v2/schema/p/e/roles'],
    ['/v2/schema/p/e/groups/direct'],
    ['/v2/facts/p/e/resource_instances'],
  ])('%s: per_page 100 is fine, 101 is 422 PAGINATION_SIZE_OVERREACHED', async (path) => {
    ok(await s.call('GET', `${path}?per_page=100`));
    expectError(await s.call('GET', `${path}?per_page=101`), 422, 'PAGINATION_SIZE_OVERREACHED');
  });

  it('role assignments allow up to 1000 a page', async () => {
    const full = ok(await s.facts('GET', '/role_assignments?per_page=1000'));
    expect(full).toHaveLength(1000);
    expect(ok(await s.facts('GET', '/role_assignments?per_page=1000&page=2'))).toHaveLength(100);
    expect(ok(await s.facts('GET', '/role_assignments?per_page=1000&page=2&include_total_count=true'))).toMatchObject({
      total_count: 1100,
      page_count: 2,
    });
    expect(ok(await s.facts('GET', '/role_assignments'))).toHaveLength(30);
    expectError(await s.facts('GET', '/role_assignments?per_page=1001'), 422, 'PAGINATION_SIZE_OVERREACHED');
  });

  it.each([
    ['page=0'],
    ['page=-1'],
    ['per_page=0'],
    ['page=abc'],
    ['per_page=1.5'],
    ['page=1&page=2'],
    ['page=99999999999999'],
  ])('%s is 422 in the validation shape', async (query) => {
    expectInvalid(await s.facts('GET', `/tenants?${query}`));
  });
});

describe('totals follow writes', () => {
  // The SQLite store remembers a list's count between pages while nothing changes (repo/common.ts
  // countOf): a write by this server, or by another process on the same store, must be counted.
  it('a total is counted again after a write by this server or by another one on the same store', async () => {
    const total = async () => ok(await s.facts('GET', '/users?per_page=1')).total_count as number;
    const tenantsTotal = async () =>
      ok(await s.facts('GET', '/tenants?per_page=1&include_total_count=true')).total_count as number;
    const before = await total();
    expect(await total()).toBe(before);
    ok(await s.facts('POST', '/users', { key: 'late-1' }));
    expect(await total()).toBe(before + 1);
    const other = await startTestServer({ dataDir: s.dataDir });
    try {
      const tenants = await tenantsTotal();
      ok(await other.facts('POST', '/users', { key: 'late-2' }));
      ok(await other.facts('POST', '/tenants', { key: 'late-t', name: 'late' }));
      expect(await total()).toBe(before + 2);
      expect(await tenantsTotal()).toBe(tenants + 1);
      ok(await other.facts('DELETE', '/users/late-2'));
      ok(await other.facts('DELETE', '/tenants/late-t'));
      expect(await total()).toBe(before + 1);
      expect(await tenantsTotal()).toBe(tenants);
    } finally {
      await other.stop();
    }
    ok(await s.facts('DELETE', '/users/late-1'));
    expect(await total()).toBe(before);
  });
});

describe('pages follow writes', () => {
  // The SQLite store remembers where each page of a list starts, the keys a role assignment page names
  // and users' memberships while nothing changes (repo/page-cursors.ts, env-keys.ts, user-memberships.ts):
  // a page read after the one before it must be the page read on its own, before and after writes by
  // this server or another one.
  const pagesOf = async (server: TestServer, path: string, perPage: number, pages: number[]) => {
    const sep = path.includes('?') ? '&' : '?';
    const out = new Map<number, unknown>();
    for (const p of pages) out.set(p, ok(await server.facts('GET', `${path}${sep}per_page=${perPage}&page=${p}`)));
    return pages.map((p) => out.get(p));
  };
  const count = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
  // The pages as a server that remembers nothing answers them: a fresh one on the same store, reading the
  // last page first (no page can start where the one before it ended).
  const alone = async (path: string, perPage: number, n: number) => {
    const fresh = await startTestServer({ dataDir: s.dataDir });
    try {
      return (await pagesOf(fresh, path, perPage, count(n).reverse())).reverse();
    } finally {
      await fresh.stop();
    }
  };
  const lists: [string, number, number][] = [
    ['/users', 50, 6],
    ['/role_assignments', 100, 12],
    ['/role_assignments', 1000, 2],
  ];

  it.each(lists)('%s, per_page %i: in order, out of order and alone agree', async (path, perPage, n) => {
    const inOrder = await pagesOf(s, path, perPage, count(n));
    expect(await pagesOf(s, path, perPage, count(n))).toEqual(inOrder);
    expect(await alone(path, perPage, n)).toEqual(inOrder);
    const shuffled = [3, 1, 2, 4, 2].map((p) => ((p - 1) % n) + 1);
    expect(await pagesOf(s, path, perPage, shuffled)).toEqual(shuffled.map((p) => inOrder[p - 1]));
    // After a write nothing remembered holds: page 3 right after page 1 starts where page 2 starts and
    // skips a page (a reader asking for pages concurrently).
    ok(await s.facts('POST', '/tenants', { key: `bump-${path.slice(1)}-${perPage}`, name: 'bump' }));
    const skipping = [1, 3, 2, 5, 4].map((p) => ((p - 1) % n) + 1);
    expect(await pagesOf(s, path, perPage, skipping)).toEqual(skipping.map((p) => inOrder[p - 1]));
  });

  it.each(lists)(
    '%s, per_page %i: the next page after a write by this server or another is the page alone',
    async (path, perPage, n) => {
      const suffix = `${path.slice(1)}-${perPage}`;
      await pagesOf(s, path, perPage, [1, 2]);
      // Deleting a user of the first page moves every later page by one (its assignments go with it).
      const first = ok(await s.facts('GET', '/users?per_page=1')).data[0].key as string;
      ok(await s.facts('DELETE', `/users/${first}`));
      // A new user, last in the list, with a role: on a page past the first (user reads remember memberships).
      ok(await s.facts('POST', '/users', { key: `own-${suffix}`, role_assignments: [{ role: 'r', tenant: 'k001' }] }));
      // Pages 2 on, page 2 first: where it started before the write is remembered, and must not be used.
      const later = count(n).slice(1);
      expect(await pagesOf(s, path, perPage, later)).toEqual((await alone(path, perPage, n)).slice(1));
      const other = await startTestServer({ dataDir: s.dataDir });
      try {
        await pagesOf(s, path, perPage, [1, 2]);
        const second = ok(await s.facts('GET', '/users?per_page=1')).data[0].key as string;
        ok(await other.facts('DELETE', `/users/${second}`));
        ok(
          await other.facts('POST', '/users', {
            key: `late-${suffix}`,
            role_assignments: [{ role: 'r', tenant: 'k000' }],
          }),
        );
        const pages = await pagesOf(s, path, perPage, later);
        expect(pages).toEqual((await alone(path, perPage, n)).slice(1));
        // The new user's assignment is the last one, under its key: the keys in memory were read again.
        if (path === '/role_assignments')
          expect((pages.flat() as { user: string }[]).at(-1)?.user).toBe(`late-${suffix}`);
      } finally {
        await other.stop();
      }
    },
  );
});
