import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('401: missing or unknown key', () => {
  it.each([
    ['no header', {}],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['another scheme', { authorization: `Basic ${ORG_KEY}` }],
    ['unknown key', { authorization: 'Bearer not-a-key' }],
    ['a prefix of a key', { authorization: `Bearer ${ORG_KEY.slice(0, -1)}` }],
  ])('%s answers 401 UNAUTHORIZED without echoing the key', async (_, headers) => {
    const r = await s.call('GET', '/v2/schema/p/e/resources', undefined, { key: null, headers });
    expectError(r, 401, 'UNAUTHORIZED');
    expect(JSON.stringify(r.body)).not.toContain(ORG_KEY.slice(0, -1));
  });

  it('checks the key before anything else: unknown routes and invalid bodies still answer 401', async () => {
    expectError(await s.call('GET', '/v2/nowhere', undefined, { key: null }), 401, 'UNAUTHORIZED');
    expectError(await s.call('POST', '/v2/facts/p/e/tenants', { bad: 1 }, { key: 'nope' }), 401, 'UNAUTHORIZED');
  });

  it('accepts the scheme in any case and surrounding spaces', async () => {
    ok(
      await s.call('GET', '/v2/schema/p/e/resources', undefined, {
        key: null,
        headers: { authorization: `bearer   ${ENV_KEY}  ` },
      }),
    );
  });
});

describe('403: a valid key scoped elsewhere', () => {
  it.each([
    ['/v2/schema/p/other/resources'],
    ['/v2/schema/q/e/resources'],
    ['/v2/facts/q/other/users'],
    ['/v2/facts/never-created/e/tenants'],
  ])('the environment key on %s answers 403 FORBIDDEN_ACCESS', async (path) => {
    expectError(await s.call('GET', path, undefined, { key: ENV_KEY }), 403, 'FORBIDDEN_ACCESS');
  });

  it('the environment key may not write elsewhere either, and nothing is created there', async () => {
    expectError(
      await s.call('POST', '/v2/facts/q/e/tenants', { key: 'x', name: 'x' }, { key: ENV_KEY }),
      403,
      'FORBIDDEN_ACCESS',
    );
    expectError(await s.call('GET', '/v2/facts/q/e/tenants'), 404, 'NOT_FOUND');
  });

  it('403 comes before body validation', async () => {
    expectError(
      await s.call('POST', '/v2/facts/q/e/tenants', { nonsense: true }, { key: ENV_KEY }),
      403,
      'FORBIDDEN_ACCESS',
    );
  });

  it('the environment key works on its own environment, by key and by id', async () => {
    ok(await s.call('POST', '/v2/facts/p/e/tenants', { key: 'mine', name: 'Mine' }, { key: ENV_KEY }));
    const scope = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    const byId = ok(
      await s.call('GET', `/v2/facts/${scope.project_id}/${scope.environment_id}/tenants/mine`, undefined, {
        key: ENV_KEY,
      }),
    );
    expect(byId).toMatchObject({
      key: 'mine',
      project_id: scope.project_id,
      environment_id: scope.environment_id,
      organization_id: scope.organization_id,
    });
  });

  it('environments are separate: the same key in two environments are two objects', async () => {
    ok(await s.call('POST', '/v2/projects/p/envs', { key: 'e2', name: 'E2' }));
    ok(await s.call('POST', '/v2/facts/p/e2/tenants', { key: 'mine', name: 'Other' }));
    expect(ok(await s.call('GET', '/v2/facts/p/e2/tenants/mine')).name).toBe('Other');
    expect(ok(await s.facts('GET', '/tenants/mine')).name).toBe('Mine');
  });
});

describe('the organisation key', () => {
  it('acts on any project/environment once it is created, never creating one on first use', async () => {
    expectError(
      await s.call('POST', '/v2/schema/neu/prod/resources', { key: 'doc', name: 'Doc', actions: {} }),
      404,
      'NOT_FOUND',
    );
    expect(ok(await s.call('GET', '/v2/projects')).map((p: { key: string }) => p.key)).not.toContain('neu');
    ok(
      await s.call('POST', '/v2/projects', {
        key: 'neu',
        name: 'Neu',
        initial_environments: [{ key: 'prod', name: 'Production' }],
      }),
    );
    ok(await s.call('POST', '/v2/schema/neu/prod/resources', { key: 'doc', name: 'Doc', actions: {} }));
    expect(ok(await s.call('GET', '/v2/schema/neu/prod/resources')).map((r: { key: string }) => r.key)).toEqual([
      'doc',
    ]);
  });

  it('a mistyped environment or project answers 404 naming the closest key, and creates nothing', async () => {
    ok(
      await s.call('POST', '/v2/projects', {
        key: 'shop',
        name: 'Shop',
        initial_environments: [
          { key: 'prod', name: 'Production' },
          { key: 'staging', name: 'Staging' },
        ],
      }),
    );
    const env = await s.call('GET', '/v2/facts/shop/prdo/users');
    expectError(env, 404, 'NOT_FOUND');
    expect(env.body.message).toContain("environment 'prdo' not found in project 'shop'; did you mean 'prod'?");
    const project = await s.call('POST', '/v2/facts/shpo/prod/tenants', { key: 't', name: 'T' });
    expectError(project, 404, 'NOT_FOUND');
    expect(project.body.message).toContain("project 'shpo' not found; did you mean 'shop'?");
    expect(
      ok(await s.call('GET', '/v2/projects/shop/envs'))
        .map((e: { key: string }) => e.key)
        .sort(),
    ).toEqual(['prod', 'staging']);
    expectError(await s.call('GET', '/v2/projects/shpo'), 404, 'NOT_FOUND');
  });

  it('an unknown id (uuid) is 404, not created', async () => {
    const r = await s.call('GET', '/v2/schema/00000000-0000-4000-8000-000000000000/e/resources');
    expectError(r, 404, 'NOT_FOUND');
  });

  it.each([['a.b'], ['a%20b'], ['x'.repeat(257)]])(
    'a project segment %s that is not a key or id is 422',
    async (seg) => {
      expectInvalid(await s.call('GET', `/v2/schema/${seg}/e/resources`));
    },
  );
});

describe('GET /v2/api-key/scope', () => {
  it('names organization, project and environment for an environment key', async () => {
    const scope = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    expect(scope).toEqual({
      organization_id: expect.any(String),
      project_id: expect.any(String),
      environment_id: expect.any(String),
    });
    const tenant = ok(await s.facts('GET', '/tenants/mine'));
    expect(tenant).toMatchObject(scope);
  });

  it('names only the organization for the organisation key', async () => {
    const scope = ok(await s.call('GET', '/v2/api-key/scope'));
    const envScope = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    // Absent, not null: the public read model has strings or nothing.
    expect(scope).toEqual({ organization_id: envScope.organization_id });
  });

  it('is 401 without a key', async () => {
    expectError(await s.call('GET', '/v2/api-key/scope', undefined, { key: null }), 401, 'UNAUTHORIZED');
  });
});
