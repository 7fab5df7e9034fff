/**
 * `roster requests create` with a role or an instance that does not exist (issue #31): the flag, the
 * name and the one meant, as `--user caroll` gets, instead of the service's bare 404. Against the real
 * server, seeded through the public API (test/review/world.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { seedReviewWorld } from '../review/world.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await seedReviewWorld(server);
});
afterAll(() => server?.close());

const create = (...args: string[]) =>
  runCli(
    [
      'requests',
      'create',
      '--user',
      'alice',
      '--tenant',
      'acme',
      ...args,
      '--api-url',
      server.url,
      '--project',
      'p',
      '--env',
      'e',
    ],
    { env: { ROSTER_API_KEY: ORG_KEY } },
  );

describe('roster requests create: what does not exist, with the name meant', { timeout: 120_000 }, () => {
  it('--user caroll (as before)', async () => {
    const r = await create('--role', 'editor');
    expect(r.code, r.stderr).toBe(0);
    const caroll = await runCli(
      [
        'requests',
        'create',
        '--user',
        'caroll',
        '--tenant',
        'acme',
        '--role',
        'editor',
        '--api-url',
        server.url,
        '--project',
        'p',
        '--env',
        'e',
      ],
      { env: { ROSTER_API_KEY: ORG_KEY } },
    );
    expect(caroll.stderr).toContain('did you mean "carol"?');
  });

  it('--role editr', async () => {
    const r = await create('--role', 'editr', '--instance', 'document:readme');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: --role editr: no role "editr" in p/e (did you mean "editor"?)');
    expect(r.stderr).not.toContain('internal error');
  });

  it('--instance document:readmee, and --resource with a bare --instance', async () => {
    const r = await create('--role', 'editor', '--instance', 'document:readmee');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: --instance document:readmee: no instance "document:readmee" in p/e (did you mean "document:readme"?)',
    );
    const bare = await create('--role', 'editor', '--resource', 'document', '--instance', 'readmee');
    expect(bare.stderr).toContain('did you mean "document:readme"?');
  });

  it('--resource documnet', async () => {
    const r = await create('--role', 'editor', '--resource', 'documnet', '--instance', 'readme');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--resource documnet: no resource "documnet" in p/e (did you mean "document"?)');
  });
});
