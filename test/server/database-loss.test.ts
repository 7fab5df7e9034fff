import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { loadConfig } from '../../src/config/index.js';
import { planChanges } from '../../src/plan/plan.js';
import { startServer, type RunningServer } from '../../src/server/listen.js';
import { isDatabaseUnavailable } from '../../src/server/store/db.js';
import { SMALL } from '../apply/fixtures.js';
import { dropSchema, freshSchema, httpClient, ORG_KEY, schemaUrl, TEST_STORE } from '../helpers/server.js';
import { startCuttableLink, type CuttableLink } from '../helpers/tcp-cut.js';

describe('what counts as the database being away', () => {
  it.each([
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, true],
    [{ code: '08006' }, true],
    [new Error('Connection terminated unexpectedly'), true],
    [Object.assign(new Error('connect'), { errors: [{ code: 'ECONNREFUSED' }] }), true],
    [{ code: '23505' }, false],
    [new Error('something else'), false],
  ])('%o → %s', (err, expected) => {
    expect(isDatabaseUnavailable(err)).toBe(expected);
  });
});

/**
 * `roster serve` on PostgreSQL with the database going away under it: a TCP link in front of
 * PostgreSQL is cut (as a crash would), the service answers 503 with Retry-After, and an apply
 * running meanwhile converges once the link is restored.
 */
describe.skipIf(TEST_STORE !== 'postgres')('PostgreSQL unreachable', { timeout: 120_000 }, () => {
  let link: CuttableLink;
  let server: RunningServer;
  let schema: string;
  let dataDir: string;
  const OPTIONS = { project: 'p', environment: 'e' };

  beforeAll(async () => {
    const direct = new URL(schemaUrl((schema = freshSchema())));
    link = await startCuttableLink(direct.hostname, Number(direct.port || 5432));
    direct.hostname = '127.0.0.1';
    direct.port = String(link.port);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-dbloss-'));
    server = await startServer({
      dataDir,
      databaseUrl: direct.toString(),
      port: 0,
      orgKey: ORG_KEY,
      logger: false,
      environments: [{ project: 'p', env: 'e' }],
    });
  });
  afterAll(async () => {
    await server?.close();
    await link?.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema);
  });

  it('answers 503 with Retry-After while the database is away, and an apply converges once it returns', async () => {
    const { call } = httpClient(server.url);
    expect((await call('POST', '/v2/facts/p/e/tenants', { key: 'before', name: 'Before' })).status).toBe(200);

    const loaded = await loadConfig([writeConfig(dataDir, SMALL)]);
    const client = createClient({
      baseUrl: server.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      onRequest: (i) => {
        if (i.status === 503 && !restored) {
          restored = true;
          void link.restore();
        }
      },
    });
    let restored = false;
    const plan = planChanges(loaded.desired!, await readLiveState(client), OPTIONS);
    expect(plan.changes.length).toBeGreaterThan(0);

    await link.cut();
    for (const [method, p, body] of [
      ['GET', '/v2/facts/p/e/tenants'],
      ['POST', '/v2/facts/p/e/tenants', { key: 'during', name: 'During' }],
    ] as const) {
      const r = await call(method, p, body);
      expect(r.status, JSON.stringify(r.body)).toBe(503);
      expect(r.body).toMatchObject({ error_code: 'SERVICE_UNAVAILABLE' });
      expect(r.headers.get('retry-after')).toBe('2');
    }

    // The apply meets 503 on its first write; the link comes back then, and the client's retries land.
    const result = await applyPlan(plan, client);
    expect(restored).toBe(true);
    expect(result.failed).toEqual([]);
    expect(result.done).toHaveLength(plan.changes.length);
    expect(planChanges(loaded.desired!, await readLiveState(client), OPTIONS).changes).toEqual([]);
    await client.close();
  });
});

function writeConfig(dir: string, text: string): string {
  const file = path.join(dir, 'roster.yaml');
  writeFileSync(file, text);
  return file;
}
