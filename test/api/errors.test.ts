import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFlakyServer, type FlakyServer } from './fixtures/flaky-server.js';
import { API_KEY, failure, testClient, type TestClient } from './fixtures/client.js';
import { ApiError } from '../../src/errors.js';

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

describe('ApiError', () => {
  it('carries method, path without query, status, error_code and the request id header', async () => {
    server.script('GET', '/v2/facts/proj/dev%20env/users/alice', [
      {
        status: 404,
        headers: { 'x-request-id': 'hdr-1' },
        body: { id: 'body-1', error_code: 'NOT_FOUND', title: 'Not found', message: 'no user alice' },
      },
    ]);
    const err = await failure(t.client.get(`${t.client.paths.facts}/users/alice`, { query: { token: 'abc' } }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.info).toEqual({
      method: 'GET',
      path: '/v2/facts/proj/dev%20env/users/alice',
      status: 404,
      errorCode: 'NOT_FOUND',
      requestId: 'hdr-1',
      detail: 'no user alice',
    });
    expect(err.message).toBe(
      'GET /v2/facts/proj/dev%20env/users/alice answered 404 NOT_FOUND: no user alice (request hdr-1)',
    );
  });

  it('falls back to the body id for the request id', async () => {
    server.script('DELETE', '/v2/x', [{ status: 403, body: { id: 'body-2', error_code: 'FORBIDDEN_ACCESS' } }]);
    const err = await failure(t.client.delete('/v2/x'));
    expect(err.info).toMatchObject({ status: 403, errorCode: 'FORBIDDEN_ACCESS', requestId: 'body-2' });
  });

  it('reads a 422 validation answer as VALIDATION_ERROR with the first loc and msg', async () => {
    server.script('POST', '/v2/r', [
      {
        status: 422,
        body: {
          detail: [
            { loc: ['body', 'key'], msg: 'field required', type: 'value_error.missing' },
            { loc: ['body', 'name'], msg: 'x' },
          ],
        },
      },
    ]);
    const err = await failure(t.client.post('/v2/r', {}));
    expect(err.info).toMatchObject({
      status: 422,
      errorCode: 'VALIDATION_ERROR',
      detail: 'body.key: field required (and 1 more)',
    });
  });

  it('never shows the API key, even when the server echoes it back', async () => {
    server.script('GET', '/v2/me', (req) => ({
      status: 401,
      headers: { 'x-request-id': `echo ${String(req.headers.authorization)}` },
      body: { error_code: 'UNAUTHORIZED', message: `bad key: ${String(req.headers.authorization)}` },
    }));
    const err = await failure(t.client.get('/v2/me'));
    expect(server.seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    for (const text of [err.message, String(err), JSON.stringify(err), err.stack ?? '', JSON.stringify(err.info)]) {
      expect(text).not.toContain(API_KEY);
    }
    expect(err.info.detail).toContain('***');
  });

  it('keeps the key out of network errors and attempt reports', async () => {
    server.script('GET', '/v2/x', [{ reset: true }]);
    t = testClient(server.url, { retries: 1 });
    const err = await failure(t.client.get('/v2/x'));
    expect(err.info).toMatchObject({ status: 0, errorCode: 'NETWORK_ERROR' });
    expect(JSON.stringify([err, err.message, t.attempts])).not.toContain(API_KEY);
  });

  it('answers non-JSON bodies as text', async () => {
    server.script('GET', '/v2/x', [
      { status: 500, headers: { 'content-type': 'text/plain' }, body: 'upstream exploded' },
    ]);
    t = testClient(server.url, { retries: 0 });
    const err = await failure(t.client.get('/v2/x'));
    expect(err.info).toMatchObject({ status: 500, detail: 'upstream exploded' });
  });
});
