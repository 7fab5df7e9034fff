import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient, type ClientOptions } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { ApiError } from '../../src/errors.js';
import { startFaultProxy, type Fault, type FaultProxy, type FaultRequest } from '../helpers/fault-proxy.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The client against hostile answers, through a fault-injecting proxy in front of the real server. The
 * waits between retries are skipped (an injected sleep); nothing here asserts on time.
 */
let server: TestServer;
let proxy: FaultProxy | undefined;
const clients: ApiClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  // Something to read: a tenant and a few users, so lists have pages.
  await server.call('POST', '/v2/facts/p/e/tenants', { key: 'acme', name: 'Acme' });
  for (let i = 0; i < 5; i++)
    await server.call('POST', '/v2/facts/p/e/users', { key: `u${i}`, email: `u${i}@acme.test` });
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => server?.close());

async function through(
  decide: (r: FaultRequest) => Fault | undefined,
  options: Partial<ClientOptions> = {},
): Promise<ApiClient> {
  proxy = await startFaultProxy(server.url, decide);
  const client = createClient({
    baseUrl: proxy.url,
    apiKey: ORG_KEY,
    project: 'p',
    environment: 'e',
    sleep: async () => {},
    ...options,
  });
  clients.push(client);
  return client;
}

async function failureOf(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('malformed read answers', () => {
  it('a truncated answer to every other read is retried, and the live state reads whole', async () => {
    const direct = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
    clients.push(direct);
    const expected = await readLiveState(direct);
    const client = await through((r) => (r.method === 'GET' && r.index % 2 === 0 ? { kind: 'truncate' } : undefined));
    expect(await readLiveState(client)).toEqual(expected);
    expect(proxy!.seen.some((r) => r.fault === 'truncate')).toBe(true);
    expect(client.counters().retries).toBe(proxy!.seen.filter((r) => r.fault === 'truncate').length);
  });

  it('an answer that is always truncated ends in one ApiError naming the request, after the retries', async () => {
    const client = await through((r) => (r.path.endsWith('/users') ? { kind: 'truncate' } : undefined), { retries: 3 });
    const err = await failureOf(client.listAll('/v2/facts/p/e/users'));
    expect(err.message).toBe(
      'GET /v2/facts/p/e/users answered 200 MALFORMED_ANSWER: a body that is not valid JSON (truncated or garbled) (after 4 attempts)',
    );
    expect(proxy!.seen.filter((r) => r.path.endsWith('/users'))).toHaveLength(4);
  });

  it('JSON of the wrong shape for a list, and an HTML page, are named as such', async () => {
    let client = await through(() => ({ kind: 'wrong-shape' }), { retries: 1 });
    let err = await failureOf(client.listAll('/v2/facts/p/e/tenants'));
    expect(err.info).toMatchObject({ status: 200, errorCode: 'MALFORMED_ANSWER', path: '/v2/facts/p/e/tenants' });
    expect(err.message).toContain(
      'JSON of the wrong shape (an object with keys unexpected, where a list page, an array or {data: [...]}, was expected)',
    );
    await proxy!.close();
    client = await through(() => ({ kind: 'html' }), { retries: 1 });
    err = await failureOf(client.get('/v2/facts/p/e/tenants/acme'));
    expect(err.message).toContain('HTML where JSON was expected');
  });

  it('writes are not judged by their body: a 2xx is done', async () => {
    const client = await through((r) => (r.method === 'PUT' ? { kind: 'truncate' } : undefined));
    await client.put('/v2/facts/p/e/users/w1', { key: 'w1' });
    expect(proxy!.seen.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });
});

describe('hostile answers', () => {
  it('an endless answer is cut at the size limit and reported, not read into memory', async () => {
    const client = await through(() => ({ kind: 'endless' }), { maxAnswerBytes: 1 << 20 });
    const err = await failureOf(client.get('/v2/facts/p/e/tenants/acme'));
    expect(err.info.errorCode).toBe('ANSWER_TOO_LARGE');
    expect(err.message).toContain('the answer was larger than 1 MB; stopped reading it');
  });

  it('a redirect is reported with its target', async () => {
    const client = await through(() => ({ kind: 'redirect', location: 'https://elsewhere.test/v2/facts' }));
    const err = await failureOf(client.get('/v2/facts/p/e/tenants/acme'));
    expect(err.message).toContain(
      'answered 307: redirected to https://elsewhere.test/v2/facts; point --api-url (ROSTER_API_URL) at the service itself',
    );
  });

  it('a silent service: each attempt ends at its timeout, the request at its deadline, with notices while waiting', async () => {
    // The proxy never answers, so only the attempt's timer ends an attempt. The request's deadline is
    // counted on a controlled clock, which each attempt moves on by its timeout and each wait by its
    // length: how many attempts fit does not depend on how fast this machine runs them.
    let now = 1_000_000;
    const waits: string[] = [];
    const attempts: (string | undefined)[] = [];
    const client = await through(() => ({ kind: 'silent' }), {
      timeoutMs: 150,
      deadlineMs: 400,
      waitingNoticeMs: 100,
      now: () => now,
      random: () => 0.5,
      sleep: async (ms) => void (now += ms),
      onRequest: (a) => {
        attempts.push(a.errorCode);
        now += 150;
      },
      onWaiting: (w) => waits.push(`${w.method} ${w.path}`),
    });
    const err = await failureOf(client.get('/v2/facts/p/e/tenants/acme'));
    expect(err.info.errorCode).toBe('TIMEOUT');
    // 150 ms, a wait of 100 (0.5 · 200), 150 ms: the deadline is reached, and the next wait (200) would pass it.
    expect(attempts).toEqual(['ATTEMPT_TIMEOUT', 'ATTEMPT_TIMEOUT']);
    expect(err.message).toMatch(/no complete answer within the \d+ s deadline \(--timeout\), 2 attempts/);
    expect(waits[0]).toBe('GET /v2/facts/p/e/tenants/acme');
  });
});

describe('a service that is gone', () => {
  it('after attempts in a row without an answer, every request fails at once as UNREACHABLE', async () => {
    const client = await through((r) => (r.index >= 2 ? { kind: 'die' } : undefined), {
      maxConsecutiveFailures: 4,
      minSilenceMs: 0,
      retries: 5,
    });
    await client.get('/v2/facts/p/e/tenants/acme');
    await client.get('/v2/facts/p/e/tenants/acme');
    const errors = await Promise.all(
      Array.from({ length: 6 }, (_, i) => failureOf(client.get(`/v2/facts/p/e/users/u${i % 5}`))),
    );
    expect(errors.some((e) => e.info.errorCode === 'UNREACHABLE')).toBe(true);
    const unreachable = errors.find((e) => e.info.errorCode === 'UNREACHABLE')!;
    expect(unreachable.message).toMatch(
      /the service stopped answering: 4 attempts in a row over \d+ s got no answer \(last: /,
    );
    // Six requests of up to six attempts each would be 36; the breaker stops at its threshold (plus those already in flight).
    const attempts = client.counters().requests - 2;
    expect(attempts).toBeLessThanOrEqual(4 + 8);
    const later = await failureOf(client.get('/v2/facts/p/e/tenants/acme'));
    expect(later.info.errorCode).toBe('UNREACHABLE');
    expect(client.counters().requests - 2).toBe(attempts);
  });
});
