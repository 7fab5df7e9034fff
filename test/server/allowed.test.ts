import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { allowed, assign, expectError, expectInvalid, ok, role, seedDocs, tenant, user } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ environments: [{ project: 'p', env: 'e2' }] });
  // seedDocs: viewer reads doc; editor writes doc and extends viewer.
  await seedDocs(s);
  // The environment came with the tenant `default`.
  await tenant(s, 'u');
  await s.facts('POST', '/resource_instances', { key: 'd9', resource: 'doc', tenant: 'u' }).then(ok);
  await role(s, 'admin', ['doc:delete'], ['editor']);
  await user(s, 'wide');
  await user(s, 'direct');
  await user(s, 'boss');
  await user(s, 'nobody');
  await user(s, 'home');
  await assign(s, { user: 'wide', role: 'viewer', tenant: 't' });
  await assign(s, { user: 'direct', role: 'editor', resource_instance: 'doc:d1' });
  await assign(s, { user: 'boss', role: 'admin', tenant: 'u' });
  await assign(s, { user: 'home', role: 'viewer' });
});
afterAll(() => s.close());

describe('POST /allowed decides from the live data', () => {
  it.each([
    // Tenant-wide roles apply to every instance of their tenant, and only there.
    ['wide', 'read', { type: 'doc', key: 'd1' }, true],
    ['wide', 'read', { type: 'doc', key: 'd2' }, true],
    ['wide', 'read', { type: 'doc', key: 'd9' }, false],
    ['wide', 'write', { type: 'doc', key: 'd1' }, false],
    ['wide', 'read', { type: 'doc', tenant: 't' }, true],
    ['wide', 'read', { type: 'doc', tenant: 'u' }, false],
    // Direct instance roles apply to that instance only; editor extends viewer.
    ['direct', 'write', { type: 'doc', key: 'd1' }, true],
    ['direct', 'read', { type: 'doc', key: 'd1' }, true],
    ['direct', 'write', { type: 'doc', key: 'd2' }, false],
    ['direct', 'read', { type: 'doc', tenant: 't' }, false],
    // Roles extending roles extending roles.
    ['boss', 'delete', { type: 'doc', key: 'd9' }, true],
    ['boss', 'write', { type: 'doc', key: 'd9' }, true],
    ['boss', 'read', { type: 'doc', key: 'd9' }, true],
    ['boss', 'read', { type: 'doc', key: 'd1' }, false],
    // No tenant named: the tenant "default".
    ['home', 'read', { type: 'doc' }, true],
    ['wide', 'read', { type: 'doc' }, false],
    // Unknown user, instance, type or action: false, never an error.
    ['ghost', 'read', { type: 'doc', key: 'd1' }, false],
    ['wide', 'read', { type: 'doc', key: 'ghost' }, false],
    ['wide', 'read', { type: 'doc', key: 'ghost', tenant: 't' }, false],
    ['wide', 'read', { type: 'ghost', key: 'd1' }, false],
    ['wide', 'fly', { type: 'doc', key: 'd1' }, false],
    ['nobody', 'read', { type: 'doc', key: 'd1' }, false],
  ] as const)('%s %s %j → %s', async (u, action, res, expected) => {
    expect(await allowed(s, u, action, res)).toBe(expected);
  });

  it('accepts the SDK shapes: user and resource as strings, extra fields ignored', async () => {
    const r = await s.call(
      'POST',
      '/allowed',
      { user: 'direct', action: 'write', resource: 'doc:d1' },
      { key: ENV_KEY },
    );
    expect(ok(r)).toEqual({ allow: true, result: true });
    const sdk = {
      user: { key: 'direct', attributes: {}, email: 'x@y' },
      action: 'write',
      resource: { type: 'doc', key: 'd1', tenant: 't', attributes: {}, context: {} },
      context: {},
      sdk: 'node',
    };
    expect(ok(await s.call('POST', '/allowed', sdk, { key: ENV_KEY })).allow).toBe(true);
  });

  it('answers 422 for a malformed check', async () => {
    expectInvalid(await s.call('POST', '/allowed', { user: 'x', action: 'read' }, { key: ENV_KEY }), [
      'body',
      'resource',
    ]);
    expectInvalid(
      await s.call('POST', '/allowed', { user: { key: 5 }, action: 'read', resource: 'doc' }, { key: ENV_KEY }),
    );
  });

  it('follows changes at once', async () => {
    await user(s, 'late');
    expect(await allowed(s, 'late', 'read', { type: 'doc', key: 'd2' })).toBe(false);
    await assign(s, { user: 'late', role: 'viewer', resource_instance: 'doc:d2' });
    expect(await allowed(s, 'late', 'read', { type: 'doc', key: 'd2' })).toBe(true);
    ok(
      await s.facts('DELETE', '/role_assignments', {
        user: 'late',
        role: 'viewer',
        resource_instance: 'doc:d2',
        tenant: 't',
      }),
    );
    expect(await allowed(s, 'late', 'read', { type: 'doc', key: 'd2' })).toBe(false);
  });
});

describe('POST /allowed/bulk', () => {
  const checks = [
    { user: { key: 'wide' }, action: 'read', resource: { type: 'doc', key: 'd1' } },
    { user: { key: 'wide' }, action: 'write', resource: { type: 'doc', key: 'd1' } },
    { user: { key: 'boss' }, action: 'delete', resource: { type: 'doc', key: 'd9' } },
  ];

  it('answers one decision per check, in order, for an array or {checks}', async () => {
    const expected = {
      allow: [
        { allow: true, result: true },
        { allow: false, result: false },
        { allow: true, result: true },
      ],
    };
    expect(ok(await s.call('POST', '/allowed/bulk', checks, { key: ENV_KEY }))).toEqual(expected);
    expect(ok(await s.call('POST', '/allowed/bulk', { checks }, { key: ENV_KEY }))).toEqual(expected);
    expect(ok(await s.call('POST', '/allowed/bulk', [], { key: ENV_KEY }))).toEqual({ allow: [] });
  });

  it('takes at most 1000 checks', async () => {
    expectInvalid(
      await s.call(
        'POST',
        '/allowed/bulk',
        Array.from({ length: 1001 }, () => checks[0]),
        { key: ENV_KEY },
      ),
    );
  });
});

describe('which environment decides', () => {
  const check = { user: { key: 'wide' }, action: 'read', resource: { type: 'doc', key: 'd1' } };

  it.each([
    ['/allowed', check],
    ['/allowed/bulk', [check]],
  ])('the organisation key on %s without an environment is 400 ENVIRONMENT_REQUIRED', async (path, body) => {
    const r = await s.call('POST', path, body);
    expectError(r, 400, 'ENVIRONMENT_REQUIRED');
    expect(r.body.message).toContain('?project=');
  });

  it('the organisation key names the environment by query or by headers', async () => {
    expect(ok(await s.call('POST', '/allowed?project=p&environment=e', check)).allow).toBe(true);
    expect(
      ok(await s.call('POST', '/allowed', check, { headers: { 'x-roster-project': 'p', 'x-roster-environment': 'e' } }))
        .allow,
    ).toBe(true);
    // Another environment has none of this data.
    expect(ok(await s.call('POST', '/allowed?project=p&environment=e2', check)).allow).toBe(false);
  });

  it('the environment key decides in its own environment and may not name another', async () => {
    expectError(
      await s.call('POST', '/allowed?project=p&environment=e2', check, { key: ENV_KEY }),
      403,
      'FORBIDDEN_ACCESS',
    );
  });

  it.each([['project=a%20b&environment=e'], ['project=a&project=b&environment=e']])(
    'a malformed environment (%s) is 422',
    async (q) => {
      expectInvalid(await s.call('POST', `/allowed?${q}`, check));
    },
  );

  it('is 401 without a key', async () => {
    expectError(await s.call('POST', '/allowed', check, { key: null }), 401, 'UNAUTHORIZED');
  });
});
