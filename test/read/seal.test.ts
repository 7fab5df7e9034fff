import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  deriveSnapshotKey,
  openSealedJson,
  openSealedJsonFrames,
  sealJson,
  sealJsonFrames,
  SEAL_VERSION,
} from '../../src/read/seal.js';
import {
  loadSnapshot,
  snapshotFile,
  writeSnapshot,
  writeSnapshotHead,
  type Snapshot,
} from '../../src/read/snapshot.js';

const TARGET = { url: 'https://api.example.test', project: 'p', environment: 'e' };
const snapshotOf = (over: Partial<Snapshot> = {}): Snapshot => ({
  format: 2,
  target: TARGET,
  readAt: 1_700_000_000_000,
  lists: [{ path: '/v2/facts/p/e/users', query: [], items: [{ key: 'alice', email: 'alice@example.test' }] }],
  ...over,
});

describe('sealing the snapshot', () => {
  it('opens with the key derived from the same API key, whatever the value', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.jsonValue(), (apiKey, value) => {
        const opened = openSealedJson(deriveSnapshotKey(apiKey), sealJson(deriveSnapshotKey(apiKey), value));
        expect(opened).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) });
      }),
      { numRuns: 50 },
    );
  });

  it('is noise without the API key: no e-mail in the file, and another key cannot open it', () => {
    const sealed = sealJson(deriveSnapshotKey('key-one'), snapshotOf());
    expect(sealed.includes(Buffer.from('alice@example.test'))).toBe(false);
    expect(sealed[0]).toBe(SEAL_VERSION);
    const opened = openSealedJson(deriveSnapshotKey('key-two'), sealed);
    expect(opened).toEqual({ ok: false, reason: expect.stringContaining('cannot be decrypted with this API key') });
  });

  it('refuses a file changed by one bit, a truncated one, and another format version', () => {
    const key = deriveSnapshotKey('k');
    const sealed = sealJson(key, { a: 1 });
    const flipped = Buffer.from(sealed);
    flipped[20] ^= 1;
    expect(openSealedJson(key, flipped).ok).toBe(false);
    expect(openSealedJson(key, sealed.subarray(0, 10))).toEqual({
      ok: false,
      reason: 'the snapshot file is truncated',
    });
    const other = Buffer.from(sealed);
    other[0] = 9;
    expect(openSealedJson(key, other)).toEqual({
      ok: false,
      reason: expect.stringContaining('format version 9'),
    });
  });

  it('derives 32 bytes, the same for the same API key and different for another', () => {
    expect(deriveSnapshotKey('a')).toHaveLength(32);
    expect(deriveSnapshotKey('a').equals(deriveSnapshotKey('a'))).toBe(true);
    expect(deriveSnapshotKey('a').equals(deriveSnapshotKey('b'))).toBe(false);
  });
});

describe('the snapshot file', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is found again for its target and refused for another', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-snap-'));
    const key = deriveSnapshotKey('k');
    const file = snapshotFile(dir, TARGET);
    expect(file.startsWith(path.join(dir, 'snapshots'))).toBe(true);
    expect(snapshotFile(dir, { ...TARGET, environment: 'other' })).not.toBe(file);
    expect(loadSnapshot(file, key, TARGET)).toEqual({ ok: false, reason: 'no snapshot yet' });
    const id = writeSnapshot(file, key, snapshotOf());
    expect(loadSnapshot(file, key, TARGET)).toEqual({ ok: true, snapshot: snapshotOf(), id });
    expect(loadSnapshot(file, key, { ...TARGET, url: 'https://elsewhere.test' })).toEqual({
      ok: false,
      reason: 'the snapshot was read from p/e on https://api.example.test, not from this environment',
    });
    expect(loadSnapshot(file, deriveSnapshotKey('other'), TARGET).ok).toBe(false);
    // Sealed, but not a snapshot.
    writeFileSync(file, sealJson(key, { format: 2 }));
    expect(loadSnapshot(file, key, TARGET)).toEqual({
      ok: false,
      reason: 'the snapshot is not in a format this Roster reads',
    });
    expect(readFileSync(file).length).toBeGreaterThan(0);
  });

  it('writes its head alone over the lists it names, and refuses lists it does not name', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-snap-'));
    const key = deriveSnapshotKey('k');
    const file = snapshotFile(dir, TARGET);
    const { lists, ...head } = snapshotOf();
    const id = writeSnapshot(file, key, { ...head, lists });
    const later = { ...head, readAt: head.readAt + 60_000, own: ['req-1'] };
    writeSnapshotHead(file, key, later, id);
    expect(loadSnapshot(file, key, TARGET)).toEqual({ ok: true, snapshot: { ...later, lists }, id });
    // Another Roster wrote new lists after this head: the head no longer names them.
    const head2 = readFileSync(file);
    writeSnapshot(file, key, snapshotOf({ lists: [] }));
    writeFileSync(file, head2);
    expect(loadSnapshot(file, key, TARGET)).toEqual({
      ok: false,
      reason: 'the lists beside the snapshot are not the ones it names (another Roster wrote them meanwhile)',
    });
    // Lists that are not JSON frames.
    writeFileSync(file.replace(/\.snapshot$/, '.lists'), sealJson(key, { a: 1 }));
    expect(loadSnapshot(file, key, TARGET).ok).toBe(false);
  });

  it('keeps each list as a frame of its own, opened one at a time', () => {
    const key = deriveSnapshotKey('k');
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), (values) => {
        expect(openSealedJsonFrames(key, sealJsonFrames(key, values))).toEqual({
          ok: true,
          values: JSON.parse(JSON.stringify(values)),
        });
      }),
      { numRuns: 50 },
    );
  });
});
