import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathOf } from '../../src/api/index.js';
import { startFlakyServer, type FlakyServer } from './fixtures/flaky-server.js';
import { API_KEY, testClient, type TestClient } from './fixtures/client.js';

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

describe('requests', () => {
  it('builds env-scoped paths with encoded project and environment', () => {
    expect(t.client.paths).toEqual({
      schema: '/v2/schema/proj/dev%20env',
      facts: '/v2/facts/proj/dev%20env',
      elements: '/v2/elements/proj/dev%20env',
    });
    expect(pathOf(t.client.paths.facts, 'users', 'a+b@x.io')).toBe('/v2/facts/proj/dev%20env/users/a%2Bb%40x.io');
    expect(pathOf('/v2/schema/p/e', 'groups', 'team:eng', 'users')).toBe('/v2/schema/p/e/groups/team%3Aeng/users');
  });

  it('sends the key as a Bearer header, JSON bodies and query filters', async () => {
    server.script('POST', '/v2/facts/proj/dev%20env/users/a%2Bb%40x.io', [{ status: 201, body: { key: 'a+b@x.io' } }]);
    const path = pathOf(t.client.paths.facts, 'users', 'a+b@x.io');
    const created = await t.client.post(
      path,
      { key: 'a+b@x.io' },
      { query: { tag: ['x', 'y'], skip: undefined, n: 2 }, headers: { Authorization: 'nope', 'X-Extra': '1' } },
    );
    expect(created).toEqual({ key: 'a+b@x.io' });
    const seen = server.seen[0]!;
    expect(seen.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      'content-type': 'application/json',
      'x-extra': '1',
    });
    expect(seen.body).toEqual({ key: 'a+b@x.io' });
    expect(seen.query).toEqual({ tag: 'y', n: '2' }); // URLSearchParams → object keeps the last repeat
  });

  it('sends DELETE with a body, and reads 204 as undefined', async () => {
    server.script('DELETE', '/v2/facts/p/e/role_assignments', [{ status: 204 }]);
    expect(await t.client.delete('/v2/facts/p/e/role_assignments', { body: { user: 'u', role: 'r' } })).toBeUndefined();
    expect(server.seen[0]?.body).toEqual({ user: 'u', role: 'r' });
  });

  it('keeps a base path prefix', async () => {
    await t.client.close();
    t = testClient(`${server.url}/api/`);
    server.script('GET', '/api/v2/x', [{ status: 200, body: [1] }]);
    expect(await t.client.get('/v2/x')).toEqual([1]);
  });

  it('returns status, headers and attempts from request()', async () => {
    server.script('PATCH', '/v2/x', [
      { status: 503 },
      { status: 200, headers: { 'x-request-id': 'rq' }, body: { a: 1 } },
    ]);
    const res = await t.client.request<{ a: number }>('PATCH', '/v2/x', { body: { a: 1 } });
    expect(res).toMatchObject({ status: 200, requestId: 'rq', attempts: 2, alreadyExisted: false, data: { a: 1 } });
  });

  it('counts requests and retries by method, and reports every attempt', async () => {
    server.script('GET', '/v2/x', [{ status: 429 }, { status: 200, body: {} }]);
    server.script('PUT', '/v2/y', [{ status: 200, body: {} }]);
    await t.client.get('/v2/x', { query: { secret: 's' } });
    await t.client.put('/v2/y', {});
    expect(t.client.counters()).toEqual({
      requests: 3,
      retries: 1,
      byMethod: { GET: 2, PUT: 1 },
      rateLimited: 1,
      alreadyExisted: 0,
    });
    expect(t.attempts.map(({ method, path, attempt, status }) => ({ method, path, attempt, status }))).toEqual([
      { method: 'GET', path: '/v2/x', attempt: 1, status: 429 },
      { method: 'GET', path: '/v2/x', attempt: 2, status: 200 },
      { method: 'PUT', path: '/v2/y', attempt: 1, status: 200 },
    ]);
  });
});

describe('pacing through the client', () => {
  it('paces schema writes with the injected clock, and not reads', async () => {
    let now = 0;
    const slept: number[] = [];
    await t.client.close();
    t = testClient(server.url, {
      pacing: { schemaWrite: { limit: 10, windowMs: 1000 } },
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    server.script('POST', '/v2/schema/proj/dev%20env/roles', [{ status: 200, body: {} }]);
    server.script('GET', '/v2/schema/proj/dev%20env/roles', [{ status: 200, body: [] }]);
    for (let i = 0; i < 4; i++) await t.client.post(`${t.client.paths.schema}/roles`, { key: `r${i}` });
    await t.client.get(`${t.client.paths.schema}/roles`);
    // 10/s with 10% headroom → 9/s: burst of 1, then one every 1000/8 ms. The GET is not held.
    expect(slept).toEqual([125, 125, 125]);
  });

  it('defaults to no pacing on a loopback address', async () => {
    server.script('POST', '/v2/schema/p/e/roles', [{ status: 200, body: {} }]);
    await Promise.all(Array.from({ length: 50 }, () => t.client.post('/v2/schema/p/e/roles', {})));
    expect(t.delays).toEqual([]);
  });
});
