import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFlakyServer, type FlakyServer, type SeenRequest } from './fixtures/flaky-server.js';
import { testClient, type TestClient } from './fixtures/client.js';

let server: FlakyServer;
let t: TestClient;

beforeEach(async () => {
  server = await startFlakyServer();
  t = testClient(server.url);
});
afterEach(async () => {
  await t.client.close();
  await server.close();
});

const items = Array.from({ length: 23 }, (_, i) => ({ key: `k${i}` }));

function slice(req: SeenRequest) {
  const page = Number(req.query.page);
  const perPage = Number(req.query.per_page);
  return items.slice((page - 1) * perPage, page * perPage);
}

const pagesAsked = (path: string) => server.seen.filter((r) => r.path === path).map((r) => Number(r.query.page));

describe('listAll', () => {
  it('walks a bare-array list until a short page', async () => {
    server.script('GET', '/v2/schema/proj/dev%20env/resources', (req) => ({ status: 200, body: slice(req) }));
    const all = await t.client.listAll(`${t.client.paths.schema}/resources`, { perPage: 5 });
    expect(all).toEqual(items);
    expect(pagesAsked('/v2/schema/proj/dev%20env/resources')).toEqual([1, 2, 3, 4, 5]);
  });

  it('asks one more page when the last full page ends the list exactly', async () => {
    server.script('GET', '/v2/list', (req) => ({
      status: 200,
      body: items.slice(0, 20).slice((Number(req.query.page) - 1) * 10, Number(req.query.page) * 10),
    }));
    expect(await t.client.listAll('/v2/list', { perPage: 10 })).toHaveLength(20);
    expect(pagesAsked('/v2/list')).toEqual([1, 2, 3]);
  });

  it('uses page_count of the envelope and fetches the rest in parallel, in order', async () => {
    server.script('GET', '/v2/users', (req) => ({
      status: 200,
      delayMs: 20,
      body: {
        data: slice(req),
        total_count: items.length,
        page_count: Math.ceil(items.length / Number(req.query.per_page)),
      },
    }));
    const all = await t.client.listAll('/v2/users', { perPage: 3, query: { search: 'k' } });
    expect(all).toEqual(items);
    expect(pagesAsked('/v2/users').sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(server.seen[0]?.query).toEqual({ search: 'k', page: '1', per_page: '3' });
    expect(server.maxInFlight).toBeGreaterThan(1);
    expect(server.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('stops at once on an empty envelope', async () => {
    server.script('GET', '/v2/users', [{ status: 200, body: { data: [], total_count: 0, page_count: 0 } }]);
    expect(await t.client.listAll('/v2/users')).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });

  it('derives the page count from total_count when page_count is missing', async () => {
    server.script('GET', '/v2/users', (req) => ({
      status: 200,
      body: { data: slice(req), total_count: items.length },
    }));
    expect(await t.client.listAll('/v2/users', { perPage: 10 })).toEqual(items);
    expect(server.seen).toHaveLength(3);
  });

  it('retries a failed page like any GET', async () => {
    let calls = 0;
    server.script('GET', '/v2/list', (req) => (++calls === 2 ? { status: 503 } : { status: 200, body: slice(req) }));
    expect(await t.client.listAll('/v2/list', { perPage: 10 })).toEqual(items);
    expect(t.client.counters()).toMatchObject({ requests: 4, retries: 1 });
  });
});
