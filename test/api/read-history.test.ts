import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { readHistoryBody, readHistorySince } from '../../src/api/read-history.js';
import { checkExchange } from '../contract/openapi.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from '../server/builders.js';

/**
 * The client's reader of the change history (src/api/read-history.ts) against roster serve over HTTP:
 * the writes since a time, one environment's, oldest first, paged to the end; and every way of not
 * reading it (404, 403, over the budget, a history that does not reach back) as a reason, not an error.
 * Every request it sends is a public operation (the exchange recorder).
 */

const T0 = Date.parse('2026-04-01T08:00:00.000Z');
let clock = T0;
let s: TestServer;
let client: ApiClient;
let e2Id: string;

const clientOn = (baseUrl: string) =>
  createClient({ baseUrl, apiKey: ORG_KEY, project: 'p', environment: 'e', random: () => 0, retries: 0 });

beforeAll(async () => {
  s = await startTestServer({
    now: () => new Date(clock),
    record: true,
    environments: [{ project: 'p', env: 'e2' }],
  });
  client = clientOn(s.url);
  ok(await s.facts('POST', '/tenants', { key: 'acme', name: 'Acme' }));
  clock = T0 + 60_000;
  // 120 users one by one (two pages of history), in e; one in e2; reads in between.
  for (let i = 0; i < 120; i++) ok(await s.facts('POST', '/users', { key: `u${i}` }));
  ok(await s.facts('GET', '/users'));
  ok(await s.call('POST', '/v2/facts/p/e2/users', { key: 'other' }));
  clock = T0 + 120_000;
  ok(await s.facts('PATCH', '/users/u1', { first_name: 'Uma' }));
  e2Id = ok(await s.call('GET', '/v2/projects/p/envs/e2')).id;
});
afterAll(async () => {
  await client.close();
  await s.close();
});

describe('readHistorySince', () => {
  it("reads one environment's writes since a time, oldest first, paged to the end", async () => {
    const envId = ok(await s.call('GET', '/v2/projects/p/envs/e')).id;
    s.exchanges.splice(0);
    const read = await readHistorySince(client, { since: new Date(T0 + 60_000), envId });
    expect(read.readable).toBe(true);
    if (!read.readable) return;
    expect(read.events.map((e) => `${e.method} ${e.path}`)).toEqual([
      ...Array.from({ length: 120 }, () => 'POST /v2/facts/p/e/users'),
      'PATCH /v2/facts/p/e/users/u1',
    ]);
    const last = read.events.at(-1)!;
    expect(last).toMatchObject({
      status: 200,
      success: true,
      actor: { type: 'api_key', name: 'organization API key' },
      project: 'p',
      environment: 'e',
      envId,
      timestamp: new Date(T0 + 120_000).toISOString(),
    });
    // The reach check, then two pages.
    expect(read.requests).toBe(3);
    expect(s.exchanges.splice(0).flatMap(checkExchange)).toEqual([]);
    expect(await readHistoryBody(client, last.id, 'request')).toEqual({ first_name: 'Uma' });
    expect(await readHistoryBody(client, last.id, 'response')).toMatchObject({ key: 'u1', first_name: 'Uma' });
  });

  it('reads another environment by its id', async () => {
    const read = await readHistorySince(client, { since: new Date(T0 + 60_000), envId: e2Id });
    expect(read.readable && read.events.map((e) => e.path)).toEqual(['/v2/facts/p/e2/users']);
  });

  it('says "too many" past the budget', async () => {
    const read = await readHistorySince(client, { since: new Date(T0 + 60_000), budget: 50 });
    expect(read).toEqual({
      readable: false,
      reason: `122 calls since ${new Date(T0 + 60_000).toISOString()}, more than the budget of 50`,
      requests: 2,
    });
  });

  it('says so when the history does not reach back to the time asked', async () => {
    const read = await readHistorySince(client, { since: new Date(T0 - 60_000) });
    expect(read.readable).toBe(false);
    expect(!read.readable && read.reason).toMatch(/holds no call before 2026-04-01T07:59:00.000Z/);
  });

  it('takes a 404 (history off) and a 403 (a key that may not read it) as "no history"', async () => {
    const off = await startTestServer({ apiHistory: false });
    const offClient = clientOn(off.url);
    const proxy = await startFaultProxy(s.url, (req) =>
      req.path === '/v2/history' ? { kind: 'status', status: 403 } : undefined,
    );
    const refused = clientOn(proxy.url);
    try {
      expect(await readHistorySince(offClient, { since: new Date(T0) })).toEqual({
        readable: false,
        reason: 'the service keeps none (404)',
        requests: 1,
      });
      expect(await readHistorySince(refused, { since: new Date(T0), checkReach: false })).toEqual({
        readable: false,
        reason: 'this API key may not read it (403)',
        requests: 1,
      });
    } finally {
      await offClient.close();
      await refused.close();
      await proxy.close();
      await off.close();
    }
  });
});
