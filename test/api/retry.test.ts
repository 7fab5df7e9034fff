import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFlakyServer, type FlakyServer } from './fixtures/flaky-server.js';
import { failure, testClient, type TestClient } from './fixtures/client.js';

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

const ok = { status: 200, body: { ok: true } };

describe('retries', () => {
  it('honours Retry-After on 429, then succeeds', async () => {
    server.script('GET', '/v2/x', [
      { status: 429, headers: { 'retry-after': '1' }, body: { error_code: 'TOO_MANY' } },
      ok,
    ]);
    expect(await t.client.get('/v2/x')).toEqual({ ok: true });
    // Retry-After: 1 wins over the jittered backoff (0.5 · 200 ms).
    expect(t.delays).toEqual([1000]);
    expect(t.client.counters()).toMatchObject({ requests: 2, retries: 1, rateLimited: 1, byMethod: { GET: 2 } });
  });

  it('reads Retry-After as an HTTP date', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    t = testClient(server.url, { now: () => now });
    server.script('GET', '/v2/x', [{ status: 503, headers: { 'retry-after': 'Tue, 01 Jan 2030 00:00:03 GMT' } }, ok]);
    await t.client.get('/v2/x');
    expect(t.delays).toEqual([3000]);
  });

  it('backs off exponentially with full jitter through several 503s', async () => {
    server.script('GET', '/v2/x', [{ status: 503 }, { status: 503 }, { status: 503 }, ok]);
    await t.client.get('/v2/x');
    // random() = 0.5 → half of 200, 400, 800.
    expect(t.delays).toEqual([100, 200, 400]);
    expect(t.attempts.map((a) => a.status)).toEqual([503, 503, 503, 200]);
  });

  it('caps the backoff at 10 s and gives up after `retries`', async () => {
    t = testClient(server.url, { retries: 8, random: () => 0.999 });
    server.script('GET', '/v2/x', [{ status: 502, body: { error_code: 'UNEXPECTED_ERROR', message: 'bad gateway' } }]);
    const err = await failure(t.client.get('/v2/x'));
    expect(err.info).toMatchObject({ status: 502, errorCode: 'UNEXPECTED_ERROR' });
    expect(t.delays).toHaveLength(8);
    expect(Math.max(...t.delays)).toBeLessThan(10_000);
    expect(t.delays.slice(-2)).toEqual([9990, 9990]);
    expect(t.client.counters().requests).toBe(9);
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    server.script('GET', '/v2/x', [{ status: 429, headers: { 'retry-after': '3600' } }, ok]);
    await expect(t.client.get('/v2/x')).rejects.toMatchObject({ info: { status: 429 } });
    expect(t.delays).toEqual([]);
  });

  it('retries a connection reset for GET', async () => {
    server.script('GET', '/v2/x', [{ reset: true }, ok]);
    expect(await t.client.get('/v2/x')).toEqual({ ok: true });
    expect(t.attempts[0]).toMatchObject({
      status: undefined,
      errorCode: expect.stringMatching(/UND_ERR_SOCKET|ECONNRESET/),
    });
  });

  it('retries 500 for idempotent methods only', async () => {
    server.script('PUT', '/v2/x', [{ status: 500 }, ok]);
    await t.client.put('/v2/x', { a: 1 });
    server.script('POST', '/v2/y', [{ status: 500 }, ok]);
    await expect(t.client.post('/v2/y', { a: 1 })).rejects.toMatchObject({ info: { status: 500 } });
    expect(server.seen.filter((r) => r.path === '/v2/y')).toHaveLength(1);
  });

  it('retries a plain POST on 429 and 503, never on a reset or 502', async () => {
    server.script('POST', '/v2/a', [{ status: 429 }, { status: 503 }, { status: 201, body: { key: 'a' } }]);
    expect(await t.client.post('/v2/a', { key: 'a' })).toEqual({ key: 'a' });
    server.script('POST', '/v2/b', [{ reset: true }, ok]);
    await expect(t.client.post('/v2/b', {})).rejects.toMatchObject({ info: { status: 0, errorCode: 'NETWORK_ERROR' } });
    server.script('POST', '/v2/c', [{ status: 502 }, ok]);
    await expect(t.client.post('/v2/c', {})).rejects.toMatchObject({ info: { status: 502 } });
    expect(server.seen.map((r) => r.path)).toEqual(['/v2/a', '/v2/a', '/v2/a', '/v2/b', '/v2/c']);
  });

  it('retries when the connection is refused, then reports a network error', async () => {
    const port = new URL(server.url).port;
    await server.close();
    const dead = testClient(`http://127.0.0.1:${port}`, { retries: 2, minSilenceMs: 0 });
    const err = await failure(dead.client.post('/v2/x', {}));
    await dead.client.close();
    expect(err.info).toMatchObject({ method: 'POST', path: '/v2/x', status: 0, errorCode: 'NETWORK_ERROR' });
    expect(err.info.detail).toMatch(/ECONNREFUSED/);
    expect(dead.delays).toEqual([100, 200]);
    server = await startFlakyServer(); // for afterEach
  });

  it('a refused connection is retried past its retries until refused for minSilenceMs (a restart is waited out)', async () => {
    const port = new URL(server.url).port;
    await server.close();
    let t = 0;
    const dead = testClient(`http://127.0.0.1:${port}`, {
      retries: 2,
      now: () => t,
      sleep: async (ms) => void (t += ms),
    });
    const err = await failure(dead.client.post('/v2/x', {}));
    await dead.client.close();
    expect(err.info).toMatchObject({ status: 0 });
    expect(t).toBeGreaterThanOrEqual(8_000);
    expect(t).toBeLessThan(9_100);
    server = await startFlakyServer(); // for afterEach
  });

  // The first answer never comes, so only the attempt's timeout ends it; the retry's answer must arrive
  // within the same timeout, so that one is far from what a loaded machine needs (test/README.md, "Deadlines").
  it('times out a slow answer and retries it', async () => {
    t = testClient(server.url, { timeoutMs: 3_000, retries: 1 });
    server.script('GET', '/v2/slow', [{ hold: true }, { status: 200, body: { fast: true } }]);
    expect(await t.client.get('/v2/slow')).toEqual({ fast: true });
    expect(t.attempts.map((a) => a.errorCode)).toEqual(['ATTEMPT_TIMEOUT', undefined]);
  });

  it('reports a timeout once retries are spent', async () => {
    t = testClient(server.url, { timeoutMs: 80, retries: 1 });
    server.script('GET', '/v2/slow', [{ hold: true }]);
    await expect(t.client.get('/v2/slow')).rejects.toMatchObject({ info: { status: 0, errorCode: 'TIMEOUT' } });
    expect(t.attempts.map((a) => a.errorCode)).toEqual(['ATTEMPT_TIMEOUT', 'ATTEMPT_TIMEOUT']);
  });
});

describe('idempotent creates', () => {
  const duplicate = { status: 409, body: { id: 'r-2', error_code: 'DUPLICATE_ENTITY', message: 'exists' } };

  it('counts a 409 after a reset as done', async () => {
    server.script('POST', '/v2/schema/proj/dev%20env/roles', [{ reset: true }, duplicate]);
    const result = await t.client.create(`${t.client.paths.schema}/roles`, { key: 'r', name: 'R' });
    expect(result).toEqual({ alreadyExisted: true });
    expect(t.client.counters()).toMatchObject({ requests: 2, retries: 1, alreadyExisted: 1 });
  });

  it('counts a 409 after a 502 as done, through request()', async () => {
    server.script('POST', '/v2/r', [{ status: 502 }, duplicate]);
    const res = await t.client.request('POST', '/v2/r', { body: { key: 'r' }, idempotentCreate: true });
    expect(res).toMatchObject({ status: 409, alreadyExisted: true, data: undefined, attempts: 2 });
  });

  it('returns the created object when the first attempt succeeds', async () => {
    server.script('POST', '/v2/r', [{ status: 201, body: { key: 'r' } }]);
    expect(await t.client.create('/v2/r', { key: 'r' })).toEqual({ alreadyExisted: false, data: { key: 'r' } });
  });

  it('treats a 409 on the first attempt as a real error', async () => {
    server.script('POST', '/v2/r', [duplicate]);
    await expect(t.client.create('/v2/r', { key: 'r' })).rejects.toMatchObject({
      info: { status: 409, errorCode: 'DUPLICATE_ENTITY', requestId: 'r-2' },
    });
  });

  it('treats a 409 after a 429 as a real error: the 429 attempt surely did nothing', async () => {
    server.script('POST', '/v2/r', [{ status: 429, headers: { 'retry-after': '1' } }, duplicate]);
    await expect(t.client.create('/v2/r', { key: 'r' })).rejects.toMatchObject({ info: { status: 409 } });
  });
});
