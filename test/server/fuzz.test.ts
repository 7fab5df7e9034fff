import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { ok, seedWorldWithGroup } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await seedWorldWithGroup(s, { grant: true });
});
afterAll(() => s.close());

const ENDPOINTS: [string, string][] = [
  ['POST', '/v2/facts/p/e/tenants'],
  ['PATCH', '/v2/facts/p/e/tenants/t'],
  ['POST', '/v2/facts/p/e/users'],
  ['PUT', '/v2/facts/p/e/users/zed'],
  ['POST', '/v2/facts/p/e/tenants/t/users'],
  ['POST', '/v2/schema/p/e/resources'],
  ['PUT', '/v2/schema/p/e/resources/doc'],
  ['POST', '/v2/schema/p/e/roles'],
  ['PATCH', '/v2/schema/p/e/roles/viewer'],
  ['POST', '/v2/facts/p/e/role_assignments'],
  ['DELETE', '/v2/facts/p/e/role_assignments'],
  ['POST', '/v2/facts/p/e/role_assignments/bulk'],
  ['POST', '/v2/schema/p/e/resource_instances'],
  ['POST', '/v2/facts/p/e/relationship_tuples'],
  ['POST', '/v2/facts/p/e/relationship_tuples/bulk'],
  ['POST', '/v2/schema/p/e/resources/doc/relations'],
  ['POST', '/v2/schema/p/e/resources/doc/roles/viewer/implicit_grants'],
  ['POST', '/v2/schema/p/e/groups'],
  ['POST', '/v2/schema/p/e/groups/team:a/roles'],
  ['PUT', '/v2/schema/p/e/groups/team:a/users/bob'],
  ['PUT', '/v2/schema/p/e/groups/team:a/assign_group'],
  ['POST', '/v2/facts/p/e/bulk/users'],
  ['PUT', '/v2/facts/p/e/bulk/users'],
  ['DELETE', '/v2/facts/p/e/bulk/users'],
  ['POST', '/v2/facts/p/e/bulk/tenants'],
  ['DELETE', '/v2/facts/p/e/bulk/tenants'],
  ['PUT', '/v2/facts/p/e/bulk/resource_instances'],
  ['DELETE', '/v2/facts/p/e/bulk/resource_instances'],
  ['PUT', '/v2/schema/p/e/bulk/roles'],
  ['POST', '/v2/elements/p/e/config'],
  ['PATCH', '/v2/elements/p/e/config/um'],
  ['POST', '/allowed'],
  ['POST', '/allowed/bulk'],
  ['POST', '/user-permissions'],
  ['POST', '/v2/schema/p/e/users/attributes'],
  ['PATCH', '/v2/schema/p/e/resources/doc/attributes/x'],
  ['POST', '/v2/schema/p/e/condition_sets'],
  ['PATCH', '/v2/schema/p/e/condition_sets/fz'],
  ['POST', '/v2/facts/p/e/set_rules'],
  ['DELETE', '/v2/facts/p/e/set_rules'],
];

/** Values near what the endpoints expect: right field names, wrong or odd values, and plain noise. */
const FIELD = fc.constantFrom(
  'key',
  'name',
  'tenant',
  'user',
  'role',
  'resource',
  'resource_instance',
  'actions',
  'permissions',
  'extends',
  'group_instance_key',
  'group_tenant',
  'subject',
  'relation',
  'object',
  'operations',
  'idents',
  'action',
  'attributes',
  'settings',
  'roles_to_levels',
  'role_assignments',
  '__proto__',
  'constructor',
  'conditions',
  'user_set',
  'resource_set',
  'permission',
  'type',
  'parent_id',
  'resource_id',
  'context',
);
/** A string with a NUL (U+0000) somewhere: PostgreSQL text cannot hold one, so every store must refuse it first. */
const WITH_NUL = fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([a, b]) => `${a}\u0000${b}`);
const ODD_STRING = fc.oneof(
  fc.string(),
  WITH_NUL,
  fc.constantFrom(
    '',
    't',
    'alice',
    'viewer',
    'doc',
    'doc:d1',
    'team:a',
    'a:b:c',
    ':',
    '%',
    '\u0000',
    'x'.repeat(300),
    'toString',
    '__proto__',
    'constructor',
    "' OR 1=1 --",
    '../..',
  ),
);
const VALUE = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    ODD_STRING,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(FIELD, fc.string(), WITH_NUL), tie('value'), { maxKeys: 5 }),
  ),
})).value;
const BODY = fc.oneof(
  fc.dictionary(fc.oneof({ weight: 5, arbitrary: FIELD }, { weight: 1, arbitrary: WITH_NUL }), VALUE, { maxKeys: 6 }),
  VALUE,
  fc.array(fc.dictionary(FIELD, VALUE, { maxKeys: 5 }), { maxLength: 3 }),
);

async function send(
  method: string,
  path: string,
  body: string | undefined,
  key: string | null,
  contentType = 'application/json',
) {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = contentType;
  const res = await fetch(s.url + path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text };
}

function expectHandled(r: { status: number; text: string }, what: string) {
  expect(r.status, `${what} → ${r.status} ${r.text.slice(0, 300)}`).toBeLessThan(500);
  if (r.status >= 400) {
    const body = JSON.parse(r.text);
    expect(body.detail !== undefined || typeof body.error_code === 'string', `${what}: ${r.text}`).toBe(true);
  }
}

describe('no input produces a 5xx or stops the server', () => {
  it('random JSON bodies to the write endpoints', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS),
        BODY,
        fc.constantFrom(ORG_KEY, ENV_KEY),
        async ([method, path], body, key) => {
          const text = JSON.stringify(body);
          expectHandled(await send(method, path, text, key), `${method} ${path} ${text}`);
        },
      ),
      { numRuns: 250 },
    );
  });

  it('random conditions trees, and checks with random attributes and context against them', async () => {
    ok(await s.schema('POST', '/condition_sets', { key: 'fz', name: 'fz' }));
    ok(
      await s.schema('POST', '/condition_sets', {
        key: 'fz_docs',
        name: 'fz',
        type: 'resourceset',
        resource_id: 'doc',
      }),
    );
    ok(await s.facts('POST', '/set_rules', { user_set: 'fz', permission: 'doc:write', resource_set: 'fz_docs' }));
    const OP = fc.constantFrom(
      'equals',
      'not-equals',
      'greater-than',
      'less-than-equals',
      'contains',
      'array_contains',
      'array_subset',
      'in',
      'object_match',
      'any_match',
      'between',
    );
    const ATTR = fc.constantFrom(
      'user.email',
      'user.roles',
      'resource.type',
      'tenant.key',
      'role.x',
      'context.x',
      'nobody.x',
      'user',
      'user.',
    );
    const LEAF = fc.tuple(ATTR, OP, VALUE).map(([a, o, v]) => ({ [a]: { [o]: v } }));
    const TREE = fc.letrec((tie) => ({
      t: fc.oneof(
        { depthSize: 'small' },
        LEAF,
        VALUE,
        fc.array(tie('t'), { maxLength: 3 }).map((c) => ({ allOf: c })),
        fc.array(tie('t'), { maxLength: 3 }).map((c) => ({ anyOf: c })),
        tie('t').map((c) => ({ not: c })),
      ),
    })).t;
    await fc.assert(
      fc.asyncProperty(TREE, VALUE, VALUE, async (conditions, attributes, context) => {
        expectHandled(
          await send('PATCH', '/v2/schema/p/e/condition_sets/fz', JSON.stringify({ conditions }), ORG_KEY),
          `PATCH conditions ${JSON.stringify(conditions)}`,
        );
        const check = {
          user: { key: 'bob', attributes },
          action: 'write',
          resource: { type: 'doc', key: 'd1', attributes },
          context,
        };
        expectHandled(
          await send('POST', '/allowed', JSON.stringify(check), ENV_KEY),
          `POST /allowed ${JSON.stringify(check)}`,
        );
      }),
      { numRuns: 150 },
    );
  });

  it('random paths, methods and query strings', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'v2',
        'schema',
        'facts',
        'p',
        'e',
        'groups',
        'direct',
        'users',
        'roles',
        'team:a',
        'doc:d1',
        'resources',
        'relations',
        '%zz',
        '%00',
        'a%00b',
        'team%3Aa%00',
        '..',
        '',
        'x'.repeat(1100),
      ),
      fc.webSegment(),
      fc.string({ maxLength: 8 }).map(encodeURIComponent),
      WITH_NUL.map(encodeURIComponent),
    );
    const query = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'page',
          'per_page',
          'include_total_count',
          'tenant',
          'user',
          'resource_instance',
          'search',
          'nested',
          'project',
          'environment',
        ),
        WITH_NUL.map(encodeURIComponent),
      ),
      ODD_STRING.map(encodeURIComponent),
      { maxKeys: 3 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
        fc.array(segment, { minLength: 1, maxLength: 7 }),
        query,
        async (method, segs, q) => {
          const qs = Object.entries(q)
            .map(([k, v]) => `${k}=${v}`)
            .join('&');
          const path = `/${segs.join('/')}${qs ? `?${qs}` : ''}`;
          expectHandled(
            await send(method, path, method === 'GET' || method === 'DELETE' ? undefined : '{}', ORG_KEY),
            `${method} ${path}`,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('list endpoints with random paging and filters', async () => {
    const lists = [
      '/v2/facts/p/e/users',
      '/v2/facts/p/e/role_assignments',
      '/v2/facts/p/e/role_assignments/detailed',
      '/v2/facts/p/e/relationship_tuples',
      '/v2/facts/p/e/relationship_tuples/detailed',
      '/v2/schema/p/e/groups/direct',
      '/v2/schema/p/e/groups/team:a/users',
      '/v2/facts/p/e/resource_instances',
      '/v2/schema/p/e/groups',
      '/v2/elements/p/e/config',
      '/v2/schema/p/e/condition_sets',
      '/v2/facts/p/e/set_rules',
      '/v2/schema/p/e/users/attributes',
      '/v2/schema/p/e/condition_sets/fz/descendants',
    ];
    const param = fc.oneof(
      fc.integer().map(String),
      fc.constantFrom('1e3', '0x10', ' 2', '-0', '1.0', 'NaN', 'Infinity', '99999999999999999999', 'true'),
      fc.string({ maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        param,
        param,
        fc.constantFrom('tenant', 'user', 'resource_instance', 'search', 'subject', 'object', 'nested', 'detailed'),
        ODD_STRING,
        async (p, page, perPage, filter, value) => {
          const path = `${p}?page=${encodeURIComponent(page)}&per_page=${encodeURIComponent(perPage)}&${filter}=${encodeURIComponent(value)}`;
          expectHandled(await send('GET', path, undefined, ORG_KEY), `GET ${path}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('random values in the headers the service reads, sent as raw bytes (NUL included)', async () => {
    // The headers routes read: /allowed's environment, the access-request list's filters and paging.
    const targets: [string, string, string[]][] = [
      ['POST', '/allowed', ['x-roster-project', 'x-roster-environment']],
      [
        'GET',
        '/v2/facts/p/e/access_requests/um/user/alice/tenant/t',
        ['status', 'tenant', 'role', 'resource', 'resource_instance', 'requesting_user', 'page', 'per_page'],
      ],
      ['GET', '/v2/elements/p/e/config/um/access_requests', ['status', 'page', 'per_page']],
    ];
    // Any byte but CR and LF (which would end the header): Latin-1 on the wire, like a lenient client.
    const headerValue = fc.oneof(
      ODD_STRING,
      fc.string({
        unit: fc
          .integer({ min: 0, max: 255 })
          .filter((c) => c !== 10 && c !== 13)
          .map((c) => String.fromCharCode(c)),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...targets),
        fc.array(fc.tuple(fc.nat(), headerValue), { minLength: 1, maxLength: 3 }),
        async ([method, path, names], picks) => {
          const lines = picks.map(([i, v]) => `${names[i % names.length]}: ${v.replace(/[\r\n]/g, ' ')}`);
          const head = [
            `${method} ${path} HTTP/1.1`,
            'host: x',
            `authorization: Bearer ${ORG_KEY}`,
            'content-type: application/json',
            ...lines,
          ].join('\r\n');
          const r = await rawRequest(
            s.url,
            head,
            method === 'POST' ? JSON.stringify({ user: 'alice', action: 'read', resource: 'doc:d1' }) : '',
          );
          expectHandled({ status: r.status, text: r.body }, `${method} ${path} ${JSON.stringify(lines)}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('bodies that are not JSON, or not the JSON they claim', async () => {
    for (const [body, type] of [
      ['{', 'application/json'],
      ['', 'application/json'],
      ['{"a":1}{"b":2}', 'application/json'],
      ['\u0000', 'application/json'],
      ['{"__proto__":{"x":1}}', 'application/json'],
      ['{"constructor":{"prototype":{"x":1}}}', 'application/json'],
      ['<xml/>', 'application/xml'],
      ['a=b', 'application/x-www-form-urlencoded'],
      ['{}', 'application/json; charset=latin1'],
    ]) {
      for (const [method, path] of ENDPOINTS.slice(0, 6))
        expectHandled(await send(method, path, body, ORG_KEY, type), `${method} ${path} ${type} ${body}`);
    }
  });

  it('a body over the limit is refused with 413, and the server still answers', async () => {
    const r = await send(
      'POST',
      '/v2/facts/p/e/tenants',
      JSON.stringify({ key: 'big', name: 'x'.repeat(6 * 1024 * 1024) }),
      ORG_KEY,
    );
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text).error_code).toBe('PAYLOAD_TOO_LARGE');
    expect(ok(await s.facts('GET', '/tenants/t')).key).toBe('t');
  });

  it('the server still decides afterwards', async () => {
    const r = await s.call('POST', '/allowed', { user: 'alice', action: 'read', resource: 'doc:d1' }, { key: ENV_KEY });
    expect(typeof ok(r).allow).toBe('boolean');
  });
});
