import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok } from './builders.js';

/** `/v2/projects[/{p}[/envs[/{e}]]]`: made only explicitly, read by key or id, scoped for environment keys. */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ environments: [{ project: 'made', env: 'at-start' }] });
});
afterAll(() => s.close());

describe('POST /v2/projects', () => {
  it('creates the project with the public default environments (dev, production) unless told otherwise', async () => {
    const p = ok(await s.call('POST', '/v2/projects', { key: 'acme', name: 'Acme', description: 'the company' }));
    expect(p).toEqual({
      key: 'acme',
      id: expect.any(String),
      organization_id: expect.any(String),
      name: 'Acme',
      description: 'the company',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const envs = ok(await s.call('GET', '/v2/projects/acme/envs'));
    expect(envs.map((e: { key: string; name: string }) => [e.key, e.name])).toEqual([
      ['dev', 'Development'],
      ['production', 'Production'],
    ]);
    const none = ok(await s.call('POST', '/v2/projects', { key: 'bare', name: 'Bare', initial_environments: [] }));
    expect(ok(await s.call('GET', `/v2/projects/${none.id}/envs`))).toEqual([]);
  });

  it('a taken key is 409, a repeated initial environment or an unknown field is 422, and nothing is half made', async () => {
    expectError(await s.call('POST', '/v2/projects', { key: 'acme', name: 'Again' }), 409, 'DUPLICATE_ENTITY');
    expectInvalid(
      await s.call('POST', '/v2/projects', {
        key: 'twice',
        name: 'T',
        initial_environments: [
          { key: 'a', name: 'A' },
          { key: 'a', name: 'B' },
        ],
      }),
    );
    expectError(await s.call('GET', '/v2/projects/twice'), 404, 'NOT_FOUND');
    expectInvalid(await s.call('POST', '/v2/projects', { key: 'x', name: 'X', settings: {} }), ['body', 'settings']);
    expectInvalid(await s.call('POST', '/v2/projects', { key: 'a b', name: 'X' }), ['body', 'key']);
  });
});

describe('environments', () => {
  it('POST /v2/projects/{p}/envs creates one; the same key again is 409; it is then usable', async () => {
    const e = ok(await s.call('POST', '/v2/projects/acme/envs', { key: 'staging', name: 'Staging' }));
    expect(e).toEqual({
      key: 'staging',
      id: expect.any(String),
      organization_id: expect.any(String),
      project_id: expect.any(String),
      name: 'Staging',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expectError(
      await s.call('POST', '/v2/projects/acme/envs', { key: 'staging', name: 'Again' }),
      409,
      'DUPLICATE_ENTITY',
    );
    ok(await s.call('POST', '/v2/facts/acme/staging/tenants', { key: 't', name: 'T' }));
    const byId = ok(await s.call('GET', `/v2/projects/${e.project_id}/envs/${e.id}`));
    expect(byId).toMatchObject({
      key: 'staging',
      id: e.id,
      email_configuration: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('an unknown project or environment is 404 with the closest key; one created at start (--create-env) exists', async () => {
    const env = await s.call('GET', '/v2/projects/acme/envs/stagign');
    expectError(env, 404, 'NOT_FOUND');
    expect(env.body.message).toBe("environment 'stagign' not found; did you mean 'staging'?");
    const project = await s.call('POST', '/v2/projects/acmee/envs', { key: 'x', name: 'X' });
    expectError(project, 404, 'NOT_FOUND');
    expect(project.body.message).toBe("project 'acmee' not found; did you mean 'acme'?");
    expect(ok(await s.call('GET', '/v2/projects/made/envs/at-start')).key).toBe('at-start');
  });
});

describe('an environment-scoped key', () => {
  it('reads its own project and environment, and lists only them', async () => {
    const scope = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    expect(ok(await s.call('GET', `/v2/projects/${scope.project_id}`, undefined, { key: ENV_KEY })).key).toBe('p');
    expect(
      ok(await s.call('GET', `/v2/projects/p/envs/${scope.environment_id}`, undefined, { key: ENV_KEY })).key,
    ).toBe('e');
    expect(
      ok(await s.call('GET', '/v2/projects', undefined, { key: ENV_KEY })).map((p: { key: string }) => p.key),
    ).toEqual(['p']);
    expect(
      ok(await s.call('GET', '/v2/projects/p/envs', undefined, { key: ENV_KEY })).map((e: { key: string }) => e.key),
    ).toEqual(['e']);
  });

  it('may not read other projects or create any (403, whether or not they exist)', async () => {
    expectError(await s.call('GET', '/v2/projects/acme', undefined, { key: ENV_KEY }), 403, 'FORBIDDEN_ACCESS');
    expectError(await s.call('GET', '/v2/projects/nowhere', undefined, { key: ENV_KEY }), 403, 'FORBIDDEN_ACCESS');
    expectError(await s.call('GET', '/v2/projects/p/envs/other', undefined, { key: ENV_KEY }), 403, 'FORBIDDEN_ACCESS');
    expectError(
      await s.call('POST', '/v2/projects', { key: 'mine', name: 'Mine' }, { key: ENV_KEY }),
      403,
      'FORBIDDEN_ACCESS',
    );
    expectError(
      await s.call('POST', '/v2/projects/p/envs', { key: 'e3', name: 'E3' }, { key: ENV_KEY }),
      403,
      'FORBIDDEN_ACCESS',
    );
  });
});

describe('roster serve --create-env', () => {
  it('refuses a value that is not <project>/<env>, in one line', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const r = await runCli(['serve', '--api-key', 'k-0123456789', '--port', '0', '--create-env', 'just-a-key']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "error: --create-env must look like <project>/<env> (keys of letters, digits, - and _), got 'just-a-key'\n",
    );
  });
});
