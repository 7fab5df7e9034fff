import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openSealedJson, openSealedJsonFrames, sealJson, sealJsonFrames } from './seal.js';
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
export interface Snapshot extends SnapshotHead {
  lists: SnapshotList[];
}

/**
 * What a snapshot says of its read, apart from the lists. It is a file of its own (`.snapshot`), and the
 * lists another (`.lists`, named by `lists` in the head): a read that read no list again writes the head
 * alone, and the lists it was answered from stay as they are.
 */
export interface SnapshotHead {
  format: 2;
  target: SnapshotTarget;
  /** Epoch milliseconds, the service's clock (its `Date` header) when the read began. */
  readAt: number;
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

/** The lists of the snapshot in `file`: beside it, the same name ending in `.lists`. */
const listsFile = (file: string) => file.replace(/(\.snapshot)?$/, '.lists');

/** Written to a temporary file and renamed: a reader never sees half a file. */
function writeAtomically(file: string, data: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * The whole snapshot: its lists (each list sealed as a frame of its own, seal.ts: the environment's JSON is
 * never one string), then its head naming them. Returns the lists' id, for `writeSnapshotHead`.
 */
export function writeSnapshot(file: string, key: Buffer, snapshot: Snapshot): string {
  const { lists, ...head } = snapshot;
  const id = randomBytes(12).toString('hex');
  writeAtomically(listsFile(file), sealJsonFrames(key, [{ id }, ...lists]));
  writeSnapshotHead(file, key, head, id);
  return id;
}

/** The head alone, naming the lists `id` already on disk: a read that read no list again. */
export function writeSnapshotHead(file: string, key: Buffer, head: SnapshotHead, id: string): void {
  writeAtomically(file, sealJson(key, { ...head, lists: id }));
}

export type Loaded = { ok: true; snapshot: Snapshot; id: string } | { ok: false; reason: string };

/** The snapshot of `target`, or why there is none to use; `id` names its lists on disk. */
export function loadSnapshot(file: string, key: Buffer, target: SnapshotTarget): Loaded {
  const head = loadHead(file, key, target);
  if (!head.ok) return head;
  const sealed = readSealed(listsFile(file));
  if (!sealed.ok) return { ok: false, reason: 'the snapshot has no lists' };
  const opened = openSealedJsonFrames(key, sealed.data);
  if (!opened.ok) return opened;
  const [first, ...lists] = opened.values;
  if ((first as { id?: unknown } | undefined)?.id !== head.id)
    return {
      ok: false,
      reason: 'the lists beside the snapshot are not the ones it names (another Roster wrote them meanwhile)',
    };
  return { ok: true, snapshot: { ...head.head, lists: lists as SnapshotList[] }, id: head.id };
}

function readSealed(file: string): { ok: true; data: Buffer } | { ok: false; code: string | undefined } {
  try {
    return { ok: true, data: readFileSync(file) };
  } catch (err) {
    return { ok: false, code: (err as NodeJS.ErrnoException).code };
  }
}

function loadHead(
  file: string,
  key: Buffer,
  target: SnapshotTarget,
): { ok: true; head: SnapshotHead; id: string } | { ok: false; reason: string } {
  const sealed = readSealed(file);
  if (!sealed.ok)
    return {
      ok: false,
      reason: sealed.code === 'ENOENT' ? 'no snapshot yet' : `the snapshot cannot be read (${sealed.code})`,
    };
  const opened = openSealedJson(key, sealed.data);
  if (!opened.ok) return opened;
  const { lists: id, ...head } = opened.value as Partial<SnapshotHead> & { lists?: unknown };
  if (head.format !== 2 || !head.target || typeof head.readAt !== 'number' || typeof id !== 'string')
    return { ok: false, reason: 'the snapshot is not in a format this Roster reads' };
  const t = head.target;
  if (t.url !== target.url || t.project !== target.project || t.environment !== target.environment)
    return {
      ok: false,
      reason: `the snapshot was read from ${t.project}/${t.environment} on ${t.url}, not from this environment`,
    };
  return { ok: true, head: head as SnapshotHead, id };
}
