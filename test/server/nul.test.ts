import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNul } from '../../src/server/nul.js';
import { rawRequest } from '../helpers/raw-http.js';
import { ENV_KEY, ORG_KEY, startTestServer, type Resp, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok, seedWorldWithGroup } from './builders.js';

/**
 * A NUL character (U+0000) anywhere in the input answers the same 422 on every store (PostgreSQL text
 * cannot hold one; it used to answer 500 there): src/server/nul.ts. Runs in both vitest projects.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await seedWorldWithGroup(s);
});
afterAll(() => s.close());

function expectNul(r: Resp, loc: (string | number)[]) {
  expectInvalid(r, loc);
  expect(r.body.detail[0].type).toBe('nul_character');
}

/** Every route the server has, as [method, path pattern], read from fastify's own route tree. */
function routeTable(app: TestServer['app']): [string, string][] {
  const routes: [string, string][] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    // `/:key|:resource`: routes below name the same segment differently; kept, see `paramsOf`.
    const path = (prefixes[depth - 1] ?? '') + m[2];
    prefixes[depth] = path;
    for (const method of m[3].split(', ')) if (method !== 'HEAD') routes.push([method, path]);
  }
  return routes;
}

/** Plausible values for each path parameter, so that only the one under test is odd. */
const PLAUSIBLE: Record<string, string> = {
  proj: 'p',
  env: 'e',
  key: 't',
  resource: 'doc',
  role: 'viewer',
  instance: 'doc:d1',
  group: 'team:a',
  user: 'alice',
  tenant: 't',
  config: 'um',
  id: 'r1',
};

describe('a NUL answers 422 on every store', () => {
  it('in any path parameter of any route', async () => {
    const routes = routeTable(s.app).filter(([, p]) => p.includes(':'));
    expect(routes.length).toBeGreaterThan(60);
    let sent = 0;
    for (const [method, pattern] of routes) {
      // A segment is `:name` or `:key|:resource` (either name, depending on the route).
      const segments = [...pattern.matchAll(/:(\w+(?:\|:\w+)*)/g)].map((m) => m[1]);
      for (const odd of segments) {
        const path = pattern.replace(/:(\w+(?:\|:\w+)*)/g, (_, seg: string) =>
          seg === odd ? 'a%00b' : (PLAUSIBLE[seg.split('|')[0]] ?? 'x'),
        );
        const r = await s.call(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
        expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(422);
        expect(r.body.detail[0].type).toBe('nul_character');
        expect(odd.split('|:').map((name) => ['path', name])).toContainEqual(r.body.detail[0].loc);
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(100);
  });

  it('the requests of the issue', async () => {
    for (const path of [
      '/v2/schema/p/e/groups/%00/parents',
      '/v2/schema/p/e/resources/%00',
      '/v2/elements/p/e/config/%00',
      '/v2/elements/p/e/config/um/access_requests/a%00b',
      '/v2/facts/p/e/users/%00',
    ]) {
      expect((await s.call('GET', path)).status, path).toBe(422);
    }
  });

  it('in a query value or a query key', async () => {
    for (const p of [
      '/v2/facts/p/e/users',
      '/v2/facts/p/e/role_assignments',
      '/v2/schema/p/e/groups',
      '/v2/facts/p/e/relationship_tuples',
      '/v2/elements/p/e/config/um/access_requests',
    ]) {
      expectNul(await s.call('GET', `${p}?search=a%00b`), ['query', 'search']);
      expectNul(await s.call('GET', `${p}?tenant=t&tenant=%00`), ['query', 'tenant', 1]);
      expectNul(await s.call('GET', `${p}?a%00b=1`), ['query', 'a\u0000b']);
    }
    expectNul(
      await s.call('POST', '/allowed?project=p&environment=e%00', {
        user: 'alice',
        action: 'read',
        resource: 'doc:d1',
      }),
      ['query', 'environment'],
    );
  });

  it('in a JSON body string or key, at any depth', async () => {
    expectNul(await s.facts('POST', '/tenants', { key: 'a\u0000b', name: 'x' }), ['body', 'key']);
    expectNul(await s.facts('POST', '/users', { key: 'zed', attributes: { deep: [{ x: ['ok', 'n\u0000'] }] } }), [
      'body',
      'attributes',
      'deep',
      0,
      'x',
      1,
    ]);
    expectNul(await s.facts('POST', '/users', { key: 'zed', attributes: { 'k\u0000': 1 } }), [
      'body',
      'attributes',
      'k\u0000',
    ]);
    expectNul(await s.facts('POST', '/role_assignments/bulk', [{ user: 'alice', role: 'viewer', tenant: '\u0000' }]), [
      'body',
      0,
      'tenant',
    ]);
    expectNul(
      await s.call('POST', '/allowed', { user: '\u0000', action: 'read', resource: 'doc:d1' }, { key: ENV_KEY }),
      ['body', 'user'],
    );
    // A body nested far deeper than the call stack: the check walks it without recursion.
    const deep = `${'['.repeat(200_000)}"\\u0000"${']'.repeat(200_000)}`;
    expect((await s.facts('POST', '/tenants', deep)).status).toBe(422);
    // Nothing was written.
    expectError(await s.facts('GET', '/users/zed'), 404, 'NOT_FOUND');
  });

  it('a key check comes first: without a key, 401', async () => {
    expectError(await s.call('GET', '/v2/schema/p/e/resources/%00', undefined, { key: null }), 401, 'UNAUTHORIZED');
  });

  it('a NUL byte in a header is refused by the HTTP parser, in the public shape', async () => {
    const head = `GET /v2/facts/p/e/access_requests/um/user/alice/tenant/t HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ORG_KEY}\r\nstatus: a\u0000b`;
    const r = await rawRequest(s.url, head);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ error_code: 'BAD_REQUEST', id: expect.any(String) });
    expect(r.headers).toMatch(/^content-type: application\/json/im);
  });
});

describe('findNul', () => {
  it.each([
    ['no NUL', { a: ['b', 1, null, true, { c: 'd' }] }, undefined],
    ['a string', 'a\u0000', ['r']],
    ['an array item', ['a', 'b\u0000'], ['r', 1]],
    ['a key', { ok: 1, 'k\u0000': 1 }, ['r', 'k\u0000']],
    ['the first in document order', { a: { b: '\u0000' }, c: '\u0000' }, ['r', 'a', 'b']],
  ])('%s', (_, value, loc) => expect(findNul(value, 'r')).toEqual(loc));
});
