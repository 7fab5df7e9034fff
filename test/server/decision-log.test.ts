import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { allowed, assign, expectError, expectInvalid, ok, seedDocs, user } from './builders.js';

/**
 * The decision log (src/server/decision-log.ts) through the public audit-log API, on the store the
 * project runs on (SQLite or PostgreSQL): what /allowed decides is read back with its filters and paging,
 * survives a restart, and is bounded by age and count.
 */
const LOGS = '/v2/pdps/p/e/audit_logs';

let s: TestServer;
let t0: number;
beforeAll(async () => {
  s = await startTestServer({ environments: [{ project: 'p', env: 'e2' }] });
  await seedDocs(s);
  await user(s, 'carol', { email: 'carol@example.com' });
  await assign(s, { user: 'alice', role: 'editor', resource_instance: 'doc:d1' });
  await assign(s, { user: 'bob', role: 'viewer', tenant: 't' });
  t0 = Math.floor(Date.now() / 1000);
  // 3 single checks, then 4 in one bulk call; carol is denied everything.
  expect(await allowed(s, 'alice', 'write', { type: 'doc', key: 'd1' })).toBe(true);
  expect(await allowed(s, 'alice', 'write', { type: 'doc', key: 'd2' })).toBe(false);
  expect(await allowed(s, 'bob', 'read', { type: 'doc', tenant: 't' })).toBe(true);
  const bulk = await s.call(
    'POST',
    '/allowed/bulk',
    [
      { user: 'bob', action: 'read', resource: 'doc:d2' },
      {
        user: { key: 'carol', attributes: { level: 3 } },
        action: 'read',
        resource: { type: 'doc', key: 'd1' },
        context: { ip: '10.0.0.1' },
      },
      { user: { key: 'carol' }, action: 'write', resource: { type: 'doc', key: 'd2', tenant: 't' } },
      { user: { key: 'alice' }, action: 'read', resource: { type: 'doc' } },
    ],
    { key: ENV_KEY },
  );
  expect(ok(bulk).allow.map((a: { allow: boolean }) => a.allow)).toEqual([true, false, false, false]);
});
afterAll(() => s.close());

const list = async (query = '') => ok(await s.call('GET', `${LOGS}${query ? '?' + query : ''}`));

describe('decisions read back through GET /v2/pdps/{p}/{e}/audit_logs', () => {
  it('lists every decision newest first, in the public shape', async () => {
    const body = await list('per_page=100');
    expect(Object.keys(body).sort()).toEqual(['data', 'page_count', 'pagination_count', 'total_count']);
    expect(body.total_count).toBe(7);
    expect(
      body.data.map(
        (d: any) => `${d.user_key} ${d.action} ${d.resource_type}:${d.input.resource.key ?? '-'} ${d.decision}`,
      ),
    ).toEqual([
      'alice read doc:- false',
      'carol write doc:d2 false',
      'carol read doc:d1 false',
      'bob read doc:d2 true',
      'bob read doc:- true',
      'alice write doc:d2 false',
      'alice write doc:d1 true',
    ]);
    const carol = body.data[2];
    expect(carol).toMatchObject({
      query: 'permit/bulk',
      user_key: 'carol',
      resource_type: 'doc',
      action: 'read',
      decision: false,
      result: { allow: false },
      context: { ip: '10.0.0.1' },
    });
    // The input as sent (normalised to objects), attributes and context included.
    expect(carol.input).toEqual({
      user: { key: 'carol', attributes: { level: 3 } },
      action: 'read',
      resource: { type: 'doc', key: 'd1' },
      context: { ip: '10.0.0.1' },
    });
    expect(body.data[3].input).toEqual({ user: { key: 'bob' }, action: 'read', resource: { type: 'doc', key: 'd2' } });
    for (const d of body.data) {
      expect(d.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Date(d.timestamp).toISOString()).toBe(d.timestamp);
      expect(d.project_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    // A check without an instance decides in the tenant named, else `default`; with one, the tenant named.
    expect(body.data[0].tenant).toBe('default');
    expect(body.data[1].tenant).toBe('t');
    expect(body.data[6].tenant).toBeUndefined();
  });

  it.each([
    ['users=alice', 3],
    ['users=alice&users=bob', 5],
    ['users=carol%40example.com', 2],
    ['decision=true', 3],
    ['decision=false', 4],
    ['resources=doc', 7],
    ['resources=folder', 0],
    ['tenant=t', 2],
    ['action=write', 3],
    ['action=write&decision=false&users=carol', 1],
    ['query=check', 7],
    ['query=none', 7],
    ['query=get_user_permissions', 0],
    ['pdp_id=42f0e113-219b-4bb9-ba90-e2c904761be1', 0],
    ['sort_by=None', 7],
  ])('filter %s → %i', async (query, n) => {
    const body = await list(`${query}&per_page=100`);
    expect(body.total_count).toBe(n);
    expect(body.data).toHaveLength(n);
  });

  it('filters by time (Unix seconds, both ends inclusive)', async () => {
    expect((await list(`timestamp_from=${t0}`)).total_count).toBe(7);
    expect((await list(`timestamp_from=${t0 + 3600}`)).total_count).toBe(0);
    expect((await list(`timestamp_to=${t0 - 1}`)).total_count).toBe(0);
    expect((await list(`timestamp_from=${t0}&timestamp_to=${t0 + 3600}`)).total_count).toBe(7);
  });

  it('pages: per_page, page, page_count; no page past the 10,000th result', async () => {
    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push(await list(`per_page=3&page=${page}`));
    expect(pages.map((p) => p.data.length)).toEqual([3, 3, 1]);
    expect(pages[0].page_count).toBe(3);
    expect(new Set(pages.flatMap((p) => p.data.map((d: any) => d.id))).size).toBe(7);
    expect((await list('per_page=3&page=4')).data).toEqual([]);
    expectError(await s.call('GET', `${LOGS}?per_page=100&page=101`), 400, 'BAD_REQUEST');
    expectInvalid(await s.call('GET', `${LOGS}?per_page=101`));
    expectInvalid(await s.call('GET', `${LOGS}?decision=maybe`));
    expectInvalid(await s.call('GET', `${LOGS}?sort_by=user`));
    expectInvalid(await s.call('GET', `${LOGS}?timestamp_from=10&timestamp_to=9`));
  });

  it('reads one decision with its raw form; another environment sees none of them', async () => {
    const [first] = (await list()).data;
    const one = ok(await s.call('GET', `${LOGS}/${first.id}`));
    expect(one).toMatchObject({
      ...first,
      raw_data: { engine: 'GENERIC', decision_id: first.id, decision: first.decision, user_key: first.user_key },
    });
    expectError(await s.call('GET', `/v2/pdps/p/e2/audit_logs/${first.id}`), 404, 'NOT_FOUND');
    expect(ok(await s.call('GET', '/v2/pdps/p/e2/audit_logs')).total_count).toBe(0);
    expectInvalid(await s.call('GET', `${LOGS}/not-a-uuid`));
    // The environment key reads its own environment's log.
    expect(ok(await s.call('GET', LOGS, undefined, { key: ENV_KEY })).total_count).toBe(7);
  });
});

describe('no query gives a 5xx', () => {
  it.each([
    `users=${Array.from({ length: 100 }, (_, i) => `u${i}`).join('&users=')}`,
    `users=${'x'.repeat(501)}`,
    'timestamp_from=253402300799&timestamp_to=253402300799',
    'timestamp_from=99999999999999',
    'timestamp_from=-1',
    'page=1000000&per_page=100',
    'page=0',
    'per_page=0',
    'tenant=%00',
    'action=a&action=b',
    "resources=doc'%20OR%201=1--",
    'decision=1',
  ])('%s', async (query) => {
    const r = await s.call('GET', `${LOGS}?${query}`);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
    expect([200, 400, 422]).toContain(r.status);
  });
});

describe('the log survives a restart and keeps its retention bound', () => {
  it('a decision answered just before a stop is read after the restart', async () => {
    // A long flush interval: only the write on close can have stored it.
    const a = await startTestServer({ decisionLog: { flushMs: 60_000 } });
    try {
      await seedDocs(a);
      await assign(a, { user: 'alice', role: 'viewer', tenant: 't' });
      expect(await allowed(a, 'alice', 'read', { type: 'doc', key: 'd1' })).toBe(true);
      await a.stop();
      const b = await startTestServer({ dataDir: a.dataDir });
      try {
        const body = ok(await b.call('GET', LOGS));
        expect(body.data.map((d: any) => [d.user_key, d.decision])).toEqual([['alice', true]]);
      } finally {
        await b.stop();
      }
    } finally {
      await a.close();
    }
  });

  it('keeps at most maxCount decisions, the newest, and none older than maxAgeMs', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const c = await startTestServer({
      now: () => new Date(clock),
      decisionLog: { maxCount: 5, maxAgeMs: 3_600_000, pruneEveryMs: 0 },
    });
    try {
      await seedDocs(c);
      for (let i = 0; i < 8; i++) {
        clock += 1000;
        await allowed(c, 'alice', `a${i}`, { type: 'doc', key: 'd1' });
      }
      // The count bound: the 5 newest remain.
      expect(ok(await c.call('GET', `${LOGS}?per_page=100`)).data.map((d: any) => d.action)).toEqual([
        'a7',
        'a6',
        'a5',
        'a4',
        'a3',
      ]);
      // Two hours later, one more decision: the others are past the age bound.
      clock += 7_200_000;
      await allowed(c, 'alice', 'late', { type: 'doc', key: 'd1' });
      await c.call('GET', LOGS);
      expect(ok(await c.call('GET', `${LOGS}?per_page=100`)).data.map((d: any) => d.action)).toEqual(['late']);
    } finally {
      await c.close();
    }
  });
});
