import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openSealedJson, sealJson } from './seal.js';
import type { Settled } from './history.js';
import type { HistoryEvent } from '../api/read-history.js';

/** The environment a snapshot was read from: it is refused for any other. */
export interface SnapshotTarget {
  url: string;
  project: string;
  environment: string;
}

/** One list as a full read got it: the path and query asked, the items answered. */
export interface SnapshotList {
  path: string;
  query: [string, string][];
  items: unknown[];
}

/**
 * The live state as its lists were read (not the planner's shapes: the next read rebuilds the live state
 * from them with the same code as a full read, src/read/lists.ts), with when the read began on the
 * service's clock, and the request ids of this Roster's own writes that the lists already hold.
 */
export interface Snapshot {
  format: 1;
  target: SnapshotTarget;
  /** Epoch milliseconds, the service's clock (its `Date` header) when the read began. */
  readAt: number;
  lists: SnapshotList[];
  /** Request ids of writes made before `readAt` by the apply that saved it: not read again. */
  own?: string[];
  /**
   * The minute before `readAt` and how many writes the history listed in it before the read (history.ts):
   * absent in a snapshot of an earlier Roster, whose next read then reads that minute's calls.
   */
  settled?: Settled;
  /** Writes of that minute still in flight when the read began: their lists are read again next time. */
  pending?: Pick<HistoryEvent, 'method' | 'path' | 'status' | 'project' | 'environment'>[];
}

/** Where the snapshot of a target lives: `<data dir>/snapshots/<hash of URL, project, environment>.snapshot`. */
export function snapshotFile(dataDir: string, target: SnapshotTarget): string {
  const id = createHash('sha256')
    .update(`${target.url}\n${target.project}\n${target.environment}`)
    .digest('hex')
    .slice(0, 20);
  return path.join(dataDir, 'snapshots', `${id}.snapshot`);
}

/** Written to a temporary file and renamed: a reader never sees half a snapshot. */
export function writeSnapshot(file: string, key: Buffer, snapshot: Snapshot): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, sealJson(key, snapshot), { mode: 0o600 });
  renameSync(tmp, file);
}

export type Loaded = { ok: true; snapshot: Snapshot } | { ok: false; reason: string };

/** The snapshot of `target`, or why there is none to use. */
export function loadSnapshot(file: string, key: Buffer, target: SnapshotTarget): Loaded {
  let sealed: Buffer;
  try {
    sealed = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'no snapshot yet' : `the snapshot cannot be read (${code})` };
  }
  const opened = openSealedJson(key, sealed);
  if (!opened.ok) return opened;
  const s = opened.value as Partial<Snapshot>;
  if (s.format !== 1 || !s.target || typeof s.readAt !== 'number' || !Array.isArray(s.lists))
    return { ok: false, reason: 'the snapshot is not in a format this Roster reads' };
  const t = s.target;
  if (t.url !== target.url || t.project !== target.project || t.environment !== target.environment)
    return {
      ok: false,
      reason: `the snapshot was read from ${t.project}/${t.environment} on ${t.url}, not from this environment`,
    };
  return { ok: true, snapshot: s as Snapshot };
}
