import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/server/errors.js';
import { ROOT } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type Resp, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, group, ok, seedDocs, tenant } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await seedDocs(s);
  await tenant(s, 'u');
  await group(s, 'team:a', 't');
  await group(s, 'team:b', 't');
  await group(s, 'dept:x', 't');
  await group(s, 'team:far', 'u');
  await s.schema('PUT', '/groups/team:a/assign_group', { group_instance_key: 'team:b' }).then(ok);
  await s.schema('POST', '/resources', { key: 'folder', name: 'folder', actions: {} }).then(ok);
  await s.facts('POST', '/resource_instances', { key: 'f1', resource: 'folder', tenant: 't' }).then(ok);
  await s
    .schema('POST', '/resources/doc/relations', { key: 'parent', name: 'parent', subject_resource: 'folder' })
    .then(ok);
});
afterAll(() => s.close());

describe('docs/server.md documents every error code', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/server.md'), 'utf8');
  const section = doc.split(/^## /m).find((part) => part.startsWith('Error codes'));
  const rows = new Map(
    [...(section ?? '').matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|(.+)\|\s*$/gm)].map((m) => [
      m[1],
      { status: Number(m[2]), when: m[3].trim() },
    ]),
  );

  it('has an "## Error codes" section with a table', () => {
    expect(section).toBeDefined();
    expect(rows.size).toBeGreaterThan(0);
  });

  it.each(Object.entries(ERROR_CODES))('%s is in the table with its status and a "when"', (code, { status }) => {
    expect(rows.get(code)).toEqual({ status, when: expect.stringMatching(/\w{3}/) });
  });

  it('documents no code the server does not have', () => {
    expect([...rows.keys()].filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });
});

/** One request per error code that the part-1 endpoints can produce, sent to the running server. */
const TRIGGERS: Partial<Record<ErrorCode, () => Promise<Resp>>> = {
  INVALID_INPUT: () => s.schema('PATCH', '/roles/viewer', { extends: ['editor'] }),
  UNAUTHORIZED: () => s.schema('GET', '/resources', undefined, 'wrong-key'),
  FORBIDDEN_ACCESS: () => s.call('GET', '/v2/schema/p/other/resources', undefined, { key: ENV_KEY }),
  NOT_FOUND: () => s.schema('GET', '/resources/ghost'),
  DUPLICATE_ENTITY: () => s.facts('POST', '/tenants', { key: 't', name: 'again' }),
  GROUP_CYCLE: () => s.schema('PUT', '/groups/team:b/assign_group', { group_instance_key: 'team:a' }),
  MISMATCH_GROUP_TYPE: () => s.schema('PUT', '/groups/team:a/assign_group', { group_instance_key: 'dept:x' }),
  MISMATCH_RESOURCE_INSTANCES_TENANTS: () =>
    s.schema('PUT', '/groups/team:a/assign_group', { group_instance_key: 'team:far' }),
  MISMATCH_RELATION_TYPE: () =>
    s.facts('POST', '/relationship_tuples', { subject: 'doc:d2', relation: 'parent', object: 'doc:d1' }),
  PAGINATION_SIZE_OVERREACHED: () => s.facts('GET', '/tenants?per_page=101'),
  MISSING_RESOURCE_ATTRIBUTE: () =>
    s.schema('POST', '/condition_sets', {
      key: 'cleared',
      name: 'cleared',
      conditions: { 'user.clearance': { equals: 'top' } },
    }),
  ENVIRONMENT_REQUIRED: () => s.call('POST', '/allowed', { user: 'alice', action: 'read', resource: 'doc:d1' }),
  PAYLOAD_TOO_LARGE: () => s.facts('POST', '/tenants', { key: 'big', name: 'x'.repeat(5 * 1024 * 1024) }),
  UNSUPPORTED_MEDIA_TYPE: () => raw('POST', '/v2/facts/p/e/tenants', 'key=x', 'application/x-www-form-urlencoded'),
  BAD_REQUEST: () => s.call('GET', '/v2/schema/p/e/resources/%zz'),
  HEADERS_TOO_LARGE: () =>
    s.call('GET', '/v2/schema/p/e/resources', undefined, { headers: { 'x-big': 'h'.repeat(20 * 1024) } }),
  ROUTE_NOT_FOUND: () => s.call('GET', '/v2/nowhere'),
  METHOD_NOT_ALLOWED: () => s.call('PATCH', '/v2/facts/p/e/role_assignments', {}),
};

/** A request with a body of any content type (the helper always sends JSON). */
async function raw(method: string, p: string, body: string, contentType: string): Promise<Resp> {
  const res = await fetch(s.url + p, {
    method,
    body,
    headers: { authorization: `Bearer ${ENV_KEY}`, 'content-type': contentType },
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** Codes the part-1 endpoints cannot produce on demand, and why. */
const NOT_TRIGGERED: Partial<Record<ErrorCode, string>> = {
  CONFLICT: 'access requests (test/access-requests) and lost races between processes',
  USER_NOT_IN_TENANT: 'access requests only (test/access-requests)',
  REQUEST_TIMEOUT:
    "a client that stalls for the server's request timeout (Node's default, 300 s); src/server/client-error.ts",
  UNEXPECTED_ERROR: 'a bug by definition; test/server/fuzz.test.ts checks that no input produces it',
  SERVICE_UNAVAILABLE: 'the database unreachable; test/server/database-loss.test.ts cuts the link to PostgreSQL',
};

describe('every error class over HTTP', () => {
  it('each code is either triggered here or accounted for', () => {
    expect(Object.keys({ ...TRIGGERS, ...NOT_TRIGGERED }).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it.each(Object.entries(TRIGGERS))('%s', async (code, trigger) => {
    expectError(await trigger!(), ERROR_CODES[code as ErrorCode].status, code);
  });

  it('405 lists the allowed methods', async () => {
    const r = await s.call('PATCH', '/v2/facts/p/e/role_assignments', {});
    expect(r.headers.get('allow')).toBe('DELETE, GET, HEAD, POST');
  });

  it('text/plain is read as a string, which no endpoint takes: 422', async () => {
    expectInvalid(await raw('POST', '/v2/facts/p/e/tenants', '{"key":"x","name":"x"}', 'text/plain'), ['body']);
  });

  it('the request id differs per request and is the x-request-id header', async () => {
    const [a, b] = await Promise.all([s.schema('GET', '/resources/ghost'), s.schema('GET', '/resources/ghost')]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.headers.get('x-request-id')).toBe(a.body.id);
  });
});

describe('invalid input answers 422 {detail: [{loc, msg, type}]}', () => {
  const long = 'k'.repeat(257);
  it.each([
    ['an unknown field', '/v2/facts/p/e/tenants', { key: 'a', name: 'a', colour: 'red' }, ['body', 'colour']],
    ['a missing required field', '/v2/facts/p/e/tenants', { key: 'a' }, ['body', 'name']],
    ['a wrong type', '/v2/facts/p/e/tenants', { key: 'a', name: 5 }, ['body', 'name']],
    ['a number for a string key', '/v2/facts/p/e/tenants', { key: 5, name: 'a' }, ['body', 'key']],
    ['a key with a space', '/v2/facts/p/e/tenants', { key: 'a b', name: 'a' }, ['body', 'key']],
    ['a key with a colon', '/v2/schema/p/e/resources', { key: 'a:b', name: 'a', actions: {} }, ['body', 'key']],
    ['an empty key', '/v2/schema/p/e/roles', { key: '', name: 'a' }, ['body', 'key']],
    ['a key of 257 characters', '/v2/facts/p/e/tenants', { key: long, name: 'a' }, ['body', 'key']],
    ['a user key of 257 characters', '/v2/facts/p/e/users', { key: long }, ['body', 'key']],
    ['a user key with a slash', '/v2/facts/p/e/users', { key: 'a/b' }, ['body', 'key']],
    [
      'an action name that is not a key',
      '/v2/schema/p/e/resources',
      { key: 'r', name: 'r', actions: { 'a b': {} } },
      ['body', 'actions'],
    ],
    [
      'an unknown field in an action',
      '/v2/schema/p/e/resources',
      { key: 'r', name: 'r', actions: { a: { x: 1 } } },
      ['body', 'actions', 'a', 'x'],
    ],
    [
      'a permission that is not resource:action',
      '/v2/schema/p/e/roles',
      { key: 'r', name: 'r', permissions: ['read'] },
      ['body', 'permissions', 0],
    ],
    [
      'an instance reference that is not type:key',
      '/v2/facts/p/e/role_assignments',
      { user: 'alice', role: 'viewer', resource_instance: 'd1' },
      ['body', 'resource_instance'],
    ],
    ['an array body', '/v2/facts/p/e/tenants', [], ['body']],
    ['a null body', '/v2/facts/p/e/tenants', 'null', ['body']],
    ['a body that is not JSON', '/v2/facts/p/e/tenants', '{"key":', ['body']],
  ])('%s', async (_, p, body, loc) => {
    expectInvalid(await s.call('POST', p, body), loc);
  });

  // FastAPI (the public service) names where with `body`, `query`, `path`, `header` (its ParamTypes, one
  // per OpenAPI `in`), whichever check found the problem: the route's schema or a rule checked by hand.
  it.each([
    ['a query parameter', 'GET', '/v2/facts/p/e/resource_instances/detailed?page=0', undefined, {}, ['query', 'page']],
    ['a path parameter', 'PUT', '/v2/facts/p/e/users/a%20b', { key: 'a b' }, {}, ['path', 'key']],
    [
      'a header',
      'POST',
      '/allowed',
      { user: 'alice', action: 'read', resource: 'doc:d1' },
      { 'x-roster-project': 'not a key!', 'x-roster-environment': 'e' },
      ['header', 'x-roster-project'],
    ],
    ['a body field', 'POST', '/v2/facts/p/e/tenants', { key: 'a', name: 'a', colour: 'red' }, {}, ['body', 'colour']],
  ])('loc starts as FastAPI does for %s', async (_, method, p, body, headers, loc) => {
    const r = await s.call(method, p, body, { headers });
    expectInvalid(r, loc);
    for (const d of r.body.detail) expect(['body', 'query', 'path', 'header']).toContain(d.loc[0]);
  });

  it('reports every problem at once', async () => {
    const r = await s.facts('POST', '/tenants', { key: 'a b', colour: 'red' });
    expectInvalid(r);
    expect(r.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'key'],
        ['body', 'colour'],
        ['body', 'name'],
      ]),
    );
  });

  it('a key of exactly 256 characters is fine, in the body and in the path', async () => {
    const key = 'k'.repeat(256);
    ok(await s.facts('POST', '/tenants', { key, name: 'long' }));
    expect(ok(await s.facts('GET', `/tenants/${key}`)).key).toBe(key);
    expect(ok(await s.facts('GET', `/resource_instances?tenant=${key}`))).toEqual([]);
  });

  it('a path parameter far beyond any key is 422, not a bare 414', async () => {
    expectInvalid(await s.facts('GET', `/tenants/${'k'.repeat(2000)}`));
  });

  // PostgreSQL cannot store NUL in text: refused up front on every store alike, never a 500.
  it.each([
    ['a query filter', 'GET', '/v2/facts/p/e/users?tenant=%00', undefined, ['query', 'tenant']],
    ['a path key', 'GET', '/v2/facts/p/e/users/a%00b', undefined, ['path', 'key']],
    ['a body text field', 'POST', '/v2/facts/p/e/tenants', { key: 'nul', name: 'a\u0000b' }, ['body', 'name']],
    [
      'a nested value',
      'POST',
      '/v2/facts/p/e/tenants',
      { key: 'nul', name: 'n', attributes: { list: ['ok', '\u0000'] } },
      ['body', 'attributes', 'list', 1],
    ],
    [
      'an object key',
      'PATCH',
      '/v2/facts/p/e/tenants/x',
      { attributes: { 'a\u0000': 1 } },
      ['body', 'attributes', 'a\u0000'],
    ],
  ])('the NUL character in %s is 422', async (_, method, p, body, loc) => {
    expectInvalid(await s.call(method, p, body), loc);
  });

  it('a body up to the limit is read (and then validated)', async () => {
    expectInvalid(
      await s.facts('POST', '/tenants', { key: 'big', name: 'n', description: 'x'.repeat(3 * 1024 * 1024) }),
      ['body', 'description'],
    );
  });
});
