/**
 * When an incremental read cannot be trusted it reads everything and says why (docs/plan.md,
 * "Incremental reads"); `--refresh=incremental` fails instead. Against the real server over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { readLive, type SnapshotPlace } from '../../src/read/live.js';
import { deriveSnapshotKey } from '../../src/read/seal.js';
import { snapshotFile } from '../../src/read/snapshot.js';
import { ConfigError } from '../../src/errors.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: ApiClient;
let dir: string;

afterEach(async () => {
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setUp(options: Parameters<typeof startTestServer>[0] = {}, key = ORG_KEY) {
  server = await startTestServer(options);
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-fallback-'));
  client = createClient({ baseUrl: server.url, apiKey: key, project: 'p', environment: 'e' });
  const own: string[] = [];
  for (const body of [
    { key: 't0', name: 'T0' },
    { key: 't1', name: 'T1' },
  ]) {
    const r = await server.facts('POST', '/tenants', body, key);
    expect(r.status).toBeLessThan(300);
    own.push(r.headers.get('x-request-id')!);
  }
  const target = { url: server.url, project: 'p', environment: 'e' };
  const place: SnapshotPlace = { file: snapshotFile(dir, target), key: deriveSnapshotKey(key), target };
  return { place, own };
}

describe('readLive', () => {
  it('reads in full without a snapshot, keeps one, then reads only what the history says changed', async () => {
    const { place, own } = await setUp();
    const first = await readLive({ client, snapshot: place, own });
    expect(first.summary).toMatchObject({ mode: 'full', fallback: 'no snapshot yet', snapshot: { saved: true } });
    const quiet = await readLive({ client, snapshot: place, refresh: 'incremental' });
    expect(quiet.summary).toMatchObject({ mode: 'incremental', calls: 0, reread: [], objects: 0 });
    // The activity log, this read's minute counted (and its calls in flight read when it holds any), the
    // previous minute counted again, one page of the history since (test/read/settled.test.ts).
    expect(quiet.summary.requests).toBeGreaterThanOrEqual(4);
    expect(quiet.summary.requests).toBeLessThanOrEqual(5);
    expect(quiet.live).toEqual(first.live);
    await server.facts('PATCH', '/tenants/t0', { name: 'renamed' });
    const after = await readLive({ client, snapshot: place, refresh: 'incremental' });
    expect(after.summary).toMatchObject({ mode: 'incremental', calls: 1 });
    expect(after.summary.reread).toContain('tenants');
    expect(after.summary.reread).not.toContain('set_rules');
    expect(after.live.tenants.get('t0')!.name).toBe('renamed');
  });

  it('reads in full when the snapshot is older than the limit', async () => {
    const { place, own } = await setUp();
    await readLive({ client, snapshot: place, own });
    const later = () => Date.now() + 8 * 86_400_000;
    const read = await readLive({ client, snapshot: place, now: later });
    expect(read.summary).toMatchObject({
      mode: 'full',
      fallback: 'the snapshot is 8 d old, older than --refresh-max-age (7 d)',
    });
    const limited = await readLive({ client, snapshot: place, maxAgeMs: 1, now: () => Date.now() + 3_600_000 });
    expect(limited.summary.fallback).toMatch(/^the snapshot is 1 h old, older than --refresh-max-age/);
  });

  it('reads in full when the snapshot was sealed with another API key', async () => {
    const { place, own } = await setUp();
    await readLive({ client, snapshot: place, own });
    const read = await readLive({ client, snapshot: { ...place, key: deriveSnapshotKey('another key') } });
    expect(read.summary).toMatchObject({
      mode: 'full',
      fallback: 'the snapshot cannot be decrypted with this API key (another key, or a damaged file)',
    });
  });

  it('reads in full, keeping no snapshot, when the history answers 403 to this key', async () => {
    const { place } = await setUp({ apiHistory: { orgKeyOnly: true } }, ENV_KEY);
    const first = await readLive({ client, snapshot: place });
    expect(first.summary.snapshot).toEqual({
      saved: false,
      why: 'the change history cannot be read with this API key (403 on /v2/history)',
    });
    // A snapshot from a key that could read it (or from before): still refused at the history.
    await readLive({
      client: createClient({ baseUrl: server.url, apiKey: ENV_KEY, project: 'p', environment: 'e' }),
      snapshot: place,
      refresh: 'full',
    });
    const read = await readLive({ client, snapshot: place });
    expect(read.summary).toMatchObject({ mode: 'full', fallback: 'no snapshot yet' });
    await expect(readLive({ client, snapshot: place, refresh: 'incremental' })).rejects.toThrow(ConfigError);
  });

  it('reads in full when the history answers 404 (roster serve --no-history)', async () => {
    const { place, own } = await setUp();
    await readLive({ client, snapshot: place, own });
    await server.close();
    server = await startTestServer({ dataDir: server.dataDir, apiHistory: false });
    const other = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
    try {
      const moved = { ...place.target, url: server.url };
      const read = await readLive({
        client: other,
        snapshot: { file: place.file, key: place.key, target: moved },
      });
      expect(read.summary.mode).toBe('full');
    } finally {
      await other.close();
    }
  });

  it('reads in full when the history lists more writes than the budget', async () => {
    const { place, own } = await setUp();
    await readLive({ client, snapshot: place, own });
    for (const key of ['u1', 'u2', 'u3']) await server.facts('POST', '/users', { key });
    const read = await readLive({ client, snapshot: place, maxCalls: 2 });
    expect(read.summary.mode).toBe('full');
    expect(read.summary.fallback).toMatch(
      /^the change history was not read: 5 calls since .*, more than the budget of 2$/,
    );
    expect([...read.live.users.keys()]).toEqual(['u1', 'u2', 'u3']);
  });

  it('reads in full when a write may have changed anything, and fails under --refresh=incremental', async () => {
    const { place, own } = await setUp();
    await readLive({ client, snapshot: place, own });
    expect((await server.call('POST', '/v2/projects/p/envs', { key: 'other', name: 'other' })).status).toBe(200);
    const read = await readLive({ client, snapshot: place });
    expect(read.summary).toMatchObject({
      mode: 'full',
      fallback: 'the change history lists POST /v2/projects/p/envs, which may change anything',
    });
    await server.call('POST', '/v2/projects/p/envs', { key: 'other2', name: 'other2' });
    await expect(readLive({ client, snapshot: place, refresh: 'incremental' })).rejects.toThrow(
      '--refresh=incremental: the live state cannot be read incrementally: the change history lists POST /v2/projects/p/envs',
    );
  });

  it('refuses a snapshot of another environment', async () => {
    const { place, own } = await setUp();
    await readLive({ client, snapshot: place, own });
    const elsewhere = { ...place, target: { ...place.target, environment: 'other' } };
    const read = await readLive({ client, snapshot: elsewhere });
    expect(read.summary.fallback).toBe(`the snapshot was read from p/e on ${server.url}, not from this environment`);
  });
});
