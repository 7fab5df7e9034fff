import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../../src/server/listen.js';
import {
  dropSchema,
  ENV_KEY,
  freshSchema,
  httpClient,
  ORG_KEY,
  schemaUrl,
  startTestServer,
  TEST_STORE,
  type TestServer,
} from '../helpers/server.js';
import { expectError, expectInvalid, ok, tenant, user } from './builders.js';

/**
 * The change history (src/server/api-history.ts) through the public API log, `GET /v2/history`, on the
 * store the project runs on: every write through /v2 is there with its method, path, status, actor,
 * environment, request id and bodies (keys redacted); reads and the decision point are not; every
 * filter and paging; an environment key sees its own environment only; the retention bound.
 */

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
let clock = T0;
const at = (seconds: number) => (clock = T0 + seconds * 1000);
const sec = (seconds: number) => Math.floor(T0 / 1000) + seconds;

let s: TestServer;
/** Request ids of the calls made in beforeAll, by name. */
const ids: Record<string, string> = {};
let e2Id: string;

beforeAll(async () => {
  s = await startTestServer({ now: () => new Date(clock), environments: [{ project: 'p', env: 'e2' }] });
  at(0);
  ids.tenant = (await s.facts('POST', '/tenants', { key: 'acme', name: 'Acme' })).headers.get('x-request-id')!;
  at(10);
  // A key in a body (an attribute value) is redacted in the history.
  ids.alice = (
    await s.facts('POST', '/users', { key: 'alice', attributes: { note: `key ${ORG_KEY} and permit_key_abc123` } })
  ).headers.get('x-request-id')!;
  at(20);
  ids.bad = (await s.facts('POST', '/users', { key: 'bob', not_a_field: 1 })).headers.get('x-request-id')!;
  at(30);
  ids.bulk = (
    await s.call('PUT', '/v2/facts/p/e2/bulk/users', { operations: [{ key: 'carol' }] }, { key: ORG_KEY })
  ).headers.get('x-request-id')!;
  at(40);
  ids.envKey = (await s.facts('DELETE', '/users/alice', undefined, ENV_KEY)).headers.get('x-request-id')!;
  at(50);
  // Not recorded: reads, the decision point, calls without a valid key.
  ok(await s.facts('GET', '/users'));
  await s.call('POST', '/allowed', { user: 'alice', action: 'read', resource: 'doc:d1' });
  expect((await s.facts('POST', '/users', { key: 'mallory' }, 'not-a-key')).status).toBe(401);
  e2Id = ok(await s.call('GET', '/v2/projects/p/envs/e2')).id;
});
afterAll(() => s.close());

const history = async (query = '', key: string = ORG_KEY) =>
  ok(await s.call('GET', `/v2/history${query ? '?' + query : ''}`, undefined, { key }));
const requestIds = async (query = '', key: string = ORG_KEY) =>
  (await history(query, key)).data.map((e: { request_id: string }) => e.request_id);

describe('every write through /v2 is in the change history', () => {
  it('lists the writes newest first, in the public shape, and nothing else', async () => {
    const body = await history('per_page=100');
    expect(Object.keys(body).sort()).toEqual(['data', 'page_count', 'pagination_count', 'total_count']);
    expect(body.total_count).toBe(5);
    expect(body.data.map((e: any) => `${e.method} ${e.path} ${e.status} ${e.success}`)).toEqual([
      'DELETE /v2/facts/p/e/users/alice 204 true',
      'PUT /v2/facts/p/e2/bulk/users 200 true',
      'POST /v2/facts/p/e/users 422 false',
      'POST /v2/facts/p/e/users 200 true',
      'POST /v2/facts/p/e/tenants 200 true',
    ]);
    const [del, , , alice] = body.data;
    expect(alice).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestamp: '2026-03-01T10:00:10.000Z',
      timestamp_utc: '2026-03-01T10:00:10.000Z',
      method: 'POST',
      path: '/v2/facts/p/e/users',
      success: true,
      status: 200,
      request_id: ids.alice,
      client_ip: '127.0.0.1',
      actor_type: 'api_key',
      actor_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      actor_display_name: 'organization API key',
      org_id: expect.any(String),
      project_id: expect.any(String),
      project_key: 'p',
      env_id: expect.any(String),
      env_key: 'e',
    });
    expect(del.actor_display_name).toBe('API key of p/e');
    expect(del.actor_id).not.toBe(alice.actor_id);
    expect(del.request_id).toBe(ids.envKey);
  });

  it('keeps the bodies as sent and as answered, keys redacted', async () => {
    const [alice] = (await history(`path=/v2/facts/p/e/users&status_code=200`)).data;
    const request = ok(await s.call('GET', `/v2/history/${alice.id}/request`));
    const response = ok(await s.call('GET', `/v2/history/${alice.id}/response`));
    expect(typeof request).toBe('string');
    expect(JSON.parse(request)).toEqual({ key: 'alice', attributes: { note: 'key *** and ***' } });
    expect(JSON.parse(response)).toMatchObject({ key: 'alice', attributes: { note: 'key *** and ***' } });
    const all = JSON.stringify((await history('per_page=100')).data);
    expect(all).not.toContain(ORG_KEY);
    // A call with no body (DELETE) and no answer (204): empty strings.
    const [del] = (await history('method=DELETE')).data;
    expect(ok(await s.call('GET', `/v2/history/${del.id}/request`))).toBe('');
    expect(ok(await s.call('GET', `/v2/history/${del.id}/response`))).toBe('');
  });

  it('answers 404 for an unknown event and 422 for an id that is not a uuid', async () => {
    expectError(await s.call('GET', `/v2/history/${crypto.randomUUID()}/request`), 404, 'NOT_FOUND');
    expectInvalid(await s.call('GET', '/v2/history/nope/response'), ['path', 'event_id']);
  });
});

describe('the filters of GET /v2/history', () => {
  const cases: [string, string, () => string[]][] = [
    ['method', 'method=PUT&method=DELETE', () => [ids.envKey, ids.bulk]],
    ['method, any case', 'method=delete', () => [ids.envKey]],
    ['path', 'path=/v2/facts/p/e/tenants&path=/v2/facts/p/e2/bulk/users', () => [ids.bulk, ids.tenant]],
    ['success=false', 'success=false', () => [ids.bad]],
    ['success=true', 'success=true', () => [ids.envKey, ids.bulk, ids.alice, ids.tenant]],
    ['status_code', 'status_code=204&status_code=422', () => [ids.envKey, ids.bad]],
    ['client_ip', 'client_ip=127.0.0.1', () => [ids.envKey, ids.bulk, ids.bad, ids.alice, ids.tenant]],
    ['client_ip elsewhere', 'client_ip=10.0.0.1', () => []],
    ['actor_type', 'actor_type=member', () => []],
    ['actor_display_name, part of it', 'actor_display_name=P/E', () => [ids.envKey]],
    ['env_id by key', 'env_id=e2', () => [ids.bulk]],
    ['env_id by id', `env_id=${'E2_ID'}`, () => [ids.bulk]],
    ['project_id', 'project_id=p&env_id=e', () => [ids.envKey, ids.bad, ids.alice, ids.tenant]],
    ['timestamp_from', `timestamp_from=${sec(30)}`, () => [ids.envKey, ids.bulk]],
    ['timestamp_until (its whole second)', `timestamp_until=${sec(10)}`, () => [ids.alice, ids.tenant]],
    ['a window', `timestamp_from=${sec(10)}&timestamp_until=${sec(20)}`, () => [ids.bad, ids.alice]],
  ];
  it.each(cases)('%s', async (_name, query, expected) => {
    expect(await requestIds(query.replace('E2_ID', e2Id))).toEqual(expected());
  });

  it('filters by actor id', async () => {
    const [del] = (await history('method=DELETE')).data;
    expect(await requestIds(`actor_id=${del.actor_id}`)).toEqual([ids.envKey]);
  });

  it('pages, the total and page count on every page', async () => {
    const pages = [
      await history('per_page=2&page=1'),
      await history('per_page=2&page=2'),
      await history('per_page=2&page=3'),
    ];
    expect(pages.map((p) => [p.total_count, p.page_count, p.pagination_count, p.data.length])).toEqual([
      [5, 3, 5, 2],
      [5, 3, 5, 2],
      [5, 3, 5, 1],
    ]);
    expect(pages.flatMap((p) => p.data.map((e: { request_id: string }) => e.request_id))).toEqual(
      await requestIds('per_page=100'),
    );
  });

  it('refuses what is not a filter', async () => {
    expectInvalid(await s.call('GET', '/v2/history?per_page=101'), ['query', 'per_page']);
    expectInvalid(await s.call('GET', '/v2/history?status_code=ok'));
    expectInvalid(await s.call('GET', `/v2/history?timestamp_from=${sec(20)}&timestamp_until=${sec(10)}`), [
      'query',
      'timestamp_until',
    ]);
    expectError(await s.call('GET', '/v2/history?per_page=100&page=101'), 400, 'BAD_REQUEST');
  });
});

describe('who may read it', () => {
  it('an environment key reads its own environment only, bodies included', async () => {
    expect(await requestIds('', ENV_KEY)).toEqual([ids.envKey, ids.bad, ids.alice, ids.tenant]);
    expect(await requestIds('env_id=e2', ENV_KEY)).toEqual([]);
    const [bulk] = (await history('env_id=e2')).data;
    expectError(await s.call('GET', `/v2/history/${bulk.id}/request`, undefined, { key: ENV_KEY }), 404, 'NOT_FOUND');
  });

  it('needs a key', async () => {
    expectError(await s.call('GET', '/v2/history', undefined, { key: null }), 401, 'UNAUTHORIZED');
  });
});

describe('GET /v2/activity', () => {
  it('answers the public shape, empty: roster serve has no web UI', async () => {
    expect(ok(await s.call('GET', '/v2/activity?env_id=e&per_page=10'))).toEqual({
      data: [],
      total_count: 0,
      page_count: 0,
      pagination_count: 0,
    });
  });
});

describe('written ahead: a write is in the history before it can change anything', () => {
  it('lists a write in flight (status 0) while its handler runs, then with its answer', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-history-'));
    const schema = TEST_STORE === 'postgres' ? freshSchema() : undefined;
    const server = await startServer({
      dataDir,
      databaseUrl: schema && schemaUrl(schema),
      orgKey: ORG_KEY,
      environments: [{ project: 'p', env: 'e' }],
      // Runs after the history's own preHandler (added first): the write is about to happen.
      configure: (app) => {
        app.addHook('preHandler', async (req) => {
          if (req.method === 'POST' && req.url.endsWith('/tenants')) {
            entered();
            await held;
          }
        });
      },
    });
    const c = httpClient(server.url);
    try {
      const write = c.facts('POST', '/tenants', { key: 'acme', name: 'Acme' });
      await inHandler;
      const during = ok(await c.call('GET', '/v2/history')).data;
      expect(during.map((e: any) => [e.method, e.path, e.status, e.success])).toEqual([
        ['POST', '/v2/facts/p/e/tenants', 0, false],
      ]);
      release();
      const answer = await write;
      const after = ok(await c.call('GET', '/v2/history')).data;
      expect(after.map((e: any) => [e.id, e.status, e.request_id])).toEqual([
        [during[0].id, 200, answer.headers.get('x-request-id')],
      ]);
    } finally {
      release();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    }
  });
});

describe('retention and switching it off', () => {
  it('keeps the newest calls under the count bound, and the age bound', async () => {
    let now = T0;
    const r = await startTestServer({ now: () => new Date(now), apiHistory: { maxCount: 3, pruneEveryMs: 0 } });
    try {
      for (let i = 0; i < 5; i++) {
        now = T0 + i * 1000;
        await tenant(r, `t${i}`);
      }
      now = T0 + 10_000;
      // One more write triggers the prune, after its own answer: wait for the bound, not for a time.
      await tenant(r, 't5');
      await expect
        .poll(async () =>
          ok(await r.call('GET', '/v2/history')).data.map((e: { path: string; status: number }) => e.status),
        )
        .toHaveLength(3);
      now = T0 + 40 * 86_400_000;
      await user(r, 'late');
      await expect.poll(async () => ok(await r.call('GET', '/v2/history')).total_count).toBe(1);
    } finally {
      await r.close();
    }
  });

  it('off: GET /v2/history answers 404, which readers take as "no history"', async () => {
    const r = await startTestServer({ apiHistory: false });
    try {
      await tenant(r, 'acme');
      expectError(await r.call('GET', '/v2/history'), 404, 'NOT_FOUND');
    } finally {
      await r.close();
    }
  });
});
