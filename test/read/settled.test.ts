/**
 * The minute before a snapshot (src/read/history.ts, `Settled`): a write that began before a read may be
 * listed by the history only later, dated before the snapshot. The snapshot keeps how many writes the
 * history listed in that minute; the next read counts it again and reads its calls only when the count
 * moved, so that an apply's own writes cost one request, not a page per hundred. Against the real server
 * over HTTP; its clock moved back to date a write inside the settled minute after the snapshot was taken.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { countHistory } from '../../src/api/read-history.js';
import { readLive, type SnapshotPlace } from '../../src/read/live.js';
import { deriveSnapshotKey } from '../../src/read/seal.js';
import { loadSnapshot, snapshotFile, writeSnapshot, type Snapshot } from '../../src/read/snapshot.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: ApiClient;
let dir: string;
/** How far the server's clock is from the machine's (its history's timestamps). */
let skew = 0;

afterEach(async () => {
  skew = 0;
  await client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A server with two tenants, written `writtenAgo` ms before now on its clock, and a snapshot read after them. */
async function setUp(writtenAgo = 0) {
  server = await startTestServer({ now: () => new Date(Date.now() + skew) });
  skew = -writtenAgo;
  dir = mkdtempSync(path.join(os.tmpdir(), 'roster-settled-'));
  client = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
  const own: string[] = [];
  for (const key of ['t0', 't1']) {
    const r = await server.facts('POST', '/tenants', { key, name: key.toUpperCase() });
    expect(r.status).toBeLessThan(300);
    own.push(r.headers.get('x-request-id')!);
  }
  skew = 0;
  const target = { url: server.url, project: 'p', environment: 'e' };
  const place: SnapshotPlace = { file: snapshotFile(dir, target), key: deriveSnapshotKey(ORG_KEY), target };
  await readLive({ client, snapshot: place, own });
  return place;
}

function edit(place: SnapshotPlace, change: (s: Snapshot) => void): Snapshot {
  const loaded = loadSnapshot(place.file, place.key, place.target);
  if (!loaded.ok) throw new Error(loaded.reason);
  change(loaded.snapshot);
  writeSnapshot(place.file, place.key, loaded.snapshot);
  return loaded.snapshot;
}

const tenantsOf = (s: Snapshot) =>
  s.lists.find((l) => l.path.endsWith('/tenants'))!.items as { key: string; name: string }[];

describe('the minute before a snapshot', () => {
  it('reads a write the history lists late, dated inside the minute the snapshot settled', async () => {
    const place = await setUp();
    const before = loadSnapshot(place.file, place.key, place.target);
    if (!before.ok) throw new Error(before.reason);
    expect(before.snapshot.settled).toBeDefined();
    // A write dated 20 s before now: inside the snapshot's minute, before the calls read since it.
    skew = -20_000;
    expect((await server.facts('PATCH', '/tenants/t0', { name: 'renamed late' })).status).toBe(200);
    skew = 0;
    const read = await readLive({ client, snapshot: place, refresh: 'incremental' });
    expect(read.summary).toMatchObject({ mode: 'incremental', calls: 1 });
    expect(read.summary.reread).toContain('tenants');
    expect(read.live.tenants.get('t0')!.name).toBe('renamed late');
    const full = await readLive({ client, refresh: 'full' });
    expect(read.live).toEqual(full.live);
  });

  it('costs three requests when quiet and the snapshot is older than its minute, and settles the next from the calls since', async () => {
    const place = await setUp(200_000);
    // The snapshot taken two minutes ago, after the writes (dated 200 s ago): its minute held none.
    edit(place, (s) => {
      s.readAt -= 120_000;
      s.settled = { fromSec: s.settled!.fromSec - 120, untilSec: s.settled!.untilSec - 120, count: 0 };
    });
    const read = await readLive({ client, snapshot: place, refresh: 'incremental' });
    // The activity log, the previous minute counted, one page of the calls since (the own writes, skipped).
    expect(read.summary).toMatchObject({ mode: 'incremental', requests: 3, calls: 0, reread: [] });
    const next = loadSnapshot(place.file, place.key, place.target);
    if (!next.ok) throw new Error(next.reason);
    // Settled from the calls read: the count the service gives for that minute.
    expect(next.snapshot.settled!.count).toBe(await countHistory(client, next.snapshot.settled!));
    const quiet = await readLive({ client, snapshot: place, refresh: 'incremental' });
    expect(quiet.summary).toMatchObject({ calls: 0, reread: [] });
  });

  it('reads again the lists of a call that was in flight when the snapshot was read', async () => {
    const place = await setUp();
    // As if the snapshot had been read while a rename of t0 was running: its list holds the old name, and
    // the call is recorded as in flight.
    edit(place, (s) => {
      tenantsOf(s).find((t) => t.key === 't0')!.name = 'before the rename';
      s.pending = [{ method: 'PATCH', path: '/v2/facts/p/e/tenants/t0', status: 0 }];
    });
    const read = await readLive({ client, snapshot: place, refresh: 'incremental' });
    expect(read.summary.reread).toContain('tenants');
    expect(read.live.tenants.get('t0')!.name).toBe('T0');
    const next = loadSnapshot(place.file, place.key, place.target);
    expect(next.ok && next.snapshot.pending).toEqual([]);
  });

  it('reads the minute before a snapshot of an earlier Roster, which kept no count', async () => {
    const place = await setUp();
    edit(place, (s) => {
      delete s.settled;
      tenantsOf(s).find((t) => t.key === 't1')!.name = 'stale';
    });
    skew = -20_000;
    expect((await server.facts('PATCH', '/tenants/t1', { name: 'T1 again' })).status).toBe(200);
    skew = 0;
    const read = await readLive({ client, snapshot: place, refresh: 'incremental' });
    expect(read.summary.mode).toBe('incremental');
    expect(read.live.tenants.get('t1')!.name).toBe('T1 again');
  });
});
