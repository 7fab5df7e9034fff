import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqlite } from '../../src/server/store/sqlite.js';
import type { Db } from '../../src/server/store/db.js';

/**
 * The SQLite store's group commit (src/server/store/sqlite.ts): transactions begun in one turn of the
 * event loop share one COMMIT; each is still all or nothing, and nothing reads what has not committed.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let db: Db;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-group-commit-'));
    db = await openSqlite(dir);
    await db.run(`CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`);
    // A foreign key checked only at COMMIT: the one way to make a COMMIT itself fail on demand.
    await db.run(`CREATE TABLE parent (k TEXT PRIMARY KEY)`);
    await db.run(`CREATE TABLE child (k TEXT PRIMARY KEY, p TEXT REFERENCES parent(k) DEFERRABLE INITIALLY DEFERRED)`);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async () => (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM t`))!.n;

  it('transactions begun together all commit, each with its own result', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.run(`INSERT INTO t (k, v) VALUES (?, ?)`, [`k${i}`, i]);
          return (await tx.get<{ v: number }>(`SELECT v FROM t WHERE k = ?`, [`k${i}`]))!.v;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await count()).toBe(20);
  });

  it('a transaction that throws is rolled back alone: the others of its group commit', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 9 }, (_, i) =>
        db.transaction(async (tx) => {
          await tx.run(`INSERT INTO t (k, v) VALUES (?, ?)`, [`k${i}`, i]);
          await tx.run(`INSERT INTO t (k, v) VALUES (?, ?)`, [`extra${i}`, i]);
          if (i % 3 === 1) throw new Error(`refused ${i}`);
          // A constraint error inside a transaction rolls back that transaction only.
          if (i % 3 === 2) await tx.run(`INSERT INTO t (k, v) VALUES (?, ?)`, [`k0`, 0]);
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    const keys = (await db.all<{ k: string }>(`SELECT k FROM t ORDER BY k`)).map((r) => r.k);
    expect(keys).toEqual(['extra0', 'extra3', 'extra6', 'k0', 'k3', 'k6']);
  });

  it('a plain read never sees a transaction of a group that has not committed', async () => {
    let readDuring: number | undefined;
    const tx = db.transaction(async (q) => {
      await q.run(`INSERT INTO t (k, v) VALUES ('a', 1)`);
      // Another request's read, started while this transaction is open.
      void count().then((n) => (readDuring = n));
      await q.run(`INSERT INTO t (k, v) VALUES ('b', 2)`);
    });
    await tx;
    await new Promise((r) => setImmediate(r));
    // It waited for the commit and saw both rows, never one.
    expect(readDuring).toBe(2);
  });

  it('a COMMIT that fails fails every transaction of its group, and none of their writes stays', async () => {
    const outcomes = await Promise.allSettled([
      db.transaction((tx) => tx.run(`INSERT INTO t (k, v) VALUES ('ok', 1)`)),
      db.transaction((tx) => tx.run(`INSERT INTO child (k, p) VALUES ('c', 'missing')`)),
      db.transaction((tx) => tx.run(`INSERT INTO t (k, v) VALUES ('ok2', 2)`)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(await count()).toBe(0);
    // The store goes on: the next group commits.
    await db.transaction((tx) => tx.run(`INSERT INTO t (k, v) VALUES ('after', 3)`));
    expect(await count()).toBe(1);
  });

  it('transactions of different turns commit in different groups, in order', async () => {
    await db.transaction((tx) => tx.run(`INSERT INTO t (k, v) VALUES ('first', 1)`));
    await new Promise((r) => setImmediate(r));
    const v = await db.transaction(async (tx) => (await tx.get<{ v: number }>(`SELECT v FROM t WHERE k = 'first'`))!.v);
    expect(v).toBe(1);
  });
});
