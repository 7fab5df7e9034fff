import type { Db, Queryable } from '../store/db.js';

export interface Remembered<T> {
  /** The data version the value was computed under. */
  version: string;
  value: T;
}

/**
 * Values remembered per store while its data version holds (`Db.dataVersion`: this process's writes and
 * other connections' commits change it): list counts (common.ts), an environment's keys (env-keys.ts)
 * and memberships (user-memberships.ts). At most `max` keys per store; past that the memory starts over.
 */
export function versionMemo<T>(max: number) {
  const memos = new WeakMap<Queryable, Map<string, Remembered<T>>>();
  /** The value of `key` under the store's current version, computed when not remembered; undefined where the store has no data version (PostgreSQL, a transaction). */
  return async (q: Queryable, key: string, compute: () => Promise<T>): Promise<Remembered<T> | undefined> => {
    const version = (q as Partial<Db>).dataVersion?.();
    if (version === undefined) return undefined;
    let memo = memos.get(q);
    if (!memo) memos.set(q, (memo = new Map()));
    const known = memo.get(key);
    if (known?.version === version) return known;
    // Remembered under the version read before computing: a write meanwhile leaves an entry no later read matches.
    const entry = { version, value: await compute() };
    if (memo.size >= max) memo.clear();
    memo.set(key, entry);
    return entry;
  };
}
