import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { startProxy, type Proxy } from '../../bench/proxy.js';
import { peekScope } from '../../src/usecases/workflow.js';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startEnv, type Env } from '../apply/helpers.js';
import { ENV_KEY } from '../helpers/server.js';

/**
 * `roster plan` validates the configuration while it reads the live state (issue #12): the result is the
 * same plan, only reads go out before the configuration validates, and a configuration error still
 * writes nothing. The configuration here is large enough (> 256 KiB) to be validated on a worker thread.
 */
describe('peekScope', () => {
  it.each([
    ['project: acme\nenvironment: prod\n', { project: 'acme', environment: 'prod' }],
    ['project: "acme"   # quoted\nenvironment: \'prod\'\n', { project: 'acme', environment: 'prod' }],
    ['users: {}\n  project: nested\n', {}],
    ['project: &a acme\n', {}],
    ['environment: staging # only this\n', { environment: 'staging' }],
  ])('%j', (text, scope) => {
    expect(peekScope([{ text }])).toEqual(scope);
  });

  it('the first file that names it wins', () => {
    expect(peekScope([{ text: 'users: {}\n' }, { text: 'project: one\n' }, { text: 'project: two\n' }])).toEqual({
      project: 'one',
    });
  });
});

describe('roster plan reads while it validates', { timeout: 180_000 }, () => {
  let env: Env;
  let proxy: Proxy;
  const big = toYaml({
    project: 'p',
    environment: 'e',
    ...generateEnvironment({
      users: 3500,
      groups: 60,
      maxDepth: 3,
      instances: 60,
      memberships: 500,
      tenants: 3,
      seed: 5,
    }),
  } as never);

  beforeAll(async () => {
    env = await startEnv();
    proxy = await startProxy({ upstream: env.server.url });
  });
  afterAll(async () => {
    await proxy?.close();
    await env?.close();
  });

  const plan = (file: string, ...args: string[]) =>
    runCli(['plan', file, '--api-url', proxy.url, '--format', 'json', ...args], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ORG_KEY },
      timeoutMs: 120_000,
    });

  it('plans a large configuration in the environment it names, reading only', async () => {
    expect(big.length).toBeGreaterThan(256 * 1024);
    const file = env.write('big.yaml', big);
    proxy.reset();
    const r = await plan(file);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ project: 'p', environment: 'e' });
    expect(out.summary.create).toBeGreaterThan(3500);
    expect(proxy.seen.length).toBeGreaterThan(0);
    // The environment's reads, the two that name it by key (src/usecases/scope.ts), and the change history and
    // activity log (organisation-wide lists; src/read/), read for the snapshot of an incremental plan.
    const naming = new Set(['/v2/projects/p', '/v2/projects/p/envs/e', '/v2/history', '/v2/activity']);
    expect(
      proxy.seen.every(
        (x) =>
          x.method === 'GET' &&
          x.path.startsWith('/v2/') &&
          (x.path.includes('/p/e/') || x.path.endsWith('/p/e') || naming.has(x.path)),
      ),
    ).toBe(true);
  });

  it('a configuration error in a large file: reported with its place, nothing written', async () => {
    const file = env.write('broken.yaml', big.replace(/^(users:\n {2}\S+: \{ )/m, '$1emial: typo, '));
    proxy.reset();
    const r = await plan(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.yaml:\d+:\d+: .*emial/);
    expect(r.stderr).toContain('nothing was written to the service');
    expect(proxy.seen.every((x) => x.method === 'GET')).toBe(true);
  });

  it('a scope the text does not show plainly is taken from the validated configuration', async () => {
    const file = env.write('anchored.yaml', big.replace(/^project: p$/m, 'project: &scope p'));
    proxy.reset();
    const r = await plan(file);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ project: 'p', environment: 'e' });
  });

  it('ROSTER_PROJECT and ROSTER_ENV set but empty (as CI sets unset variables) count as unset: the key names its environment', async () => {
    const file = env.write('small.yaml', 'tenants: { acme: { name: Acme } }\n');
    const r = await runCli(['plan', file, '--api-url', proxy.url, '--format', 'json'], {
      cwd: env.dir,
      env: { ROSTER_API_KEY: ENV_KEY, ROSTER_PROJECT: '', ROSTER_ENV: '' },
      timeoutMs: 60_000,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The key's scope answers the environment by id; the plan names it by key (GET /v2/projects/{id}...).
    expect(JSON.parse(r.stdout)).toMatchObject({ project: 'p', environment: 'e' });
  });

  it('--pacing takes public or none; anything else is refused before any request', async () => {
    const file = env.write('pacing.yaml', 'tenants: { acme: { name: Acme } }\n');
    proxy.reset();
    const r = await plan(file, '--project', 'p', '--env', 'e', '--pacing', 'fast');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--pacing must be public or none, got 'fast'");
    expect(proxy.seen).toEqual([]);
    const ok = await plan(file, '--project', 'p', '--env', 'e', '--pacing', 'public');
    expect(ok.code).toBe(0);
  });
});
