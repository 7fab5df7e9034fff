import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('GET /healthz', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers without a key when the store answers', async () => {
    const r = await s.call('GET', '/healthz', undefined, { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok', store: s.db.dialect });
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('is only a GET: other methods still need a key', async () => {
    expect((await s.call('POST', '/healthz', {}, { key: null })).status).toBe(401);
  });

  it('answers 503 once the store is gone', async () => {
    await s.db.close();
    const r = await s.call('GET', '/healthz', undefined, { key: null });
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: 'unavailable', store: s.db.dialect });
  });
});
