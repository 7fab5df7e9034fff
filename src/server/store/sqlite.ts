import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Db, Queryable, SqlValue } from './db.js';
import { migrate } from './migrate.js';

/**
 * WAL pages that trigger a checkpoint (SQLite's default: 1,000 pages, 4 MB): 400 MB. A checkpoint copies
 * each page once however often it was written since the last, so fewer, larger checkpoints copy less
 * (x10 apply from empty: COMMITs 5.0 s at 10,000 pages, 3.9 s at 100,000; 1,352 checkpoints at the
 * default, 55 s). After a checkpoint the WAL is truncated back to JOURNAL_LIMIT_BYTES.
 */
const CHECKPOINT_PAGES = 100_000;
/** What a WAL keeps on disk once checkpointed (`journal_size_limit`). */
const JOURNAL_LIMIT_BYTES = 64 * 2 ** 20;

/**
 * SQLite store: one file `roster.db` under the data directory, WAL journal. better-sqlite3 is
 * synchronous and has one connection, so an asynchronous transaction must not let another request's
 * statements run inside it: a lock serialises transactions, and plain statements wait while one is open.
 * Transactions begun in one turn of the event loop commit together (group commit: `transaction`).
 * With WAL and `synchronous = NORMAL` a committed transaction survives a kill -9 of the process (the
 * WAL is in the OS's hands); only a power loss can drop the last commits.
 */
export async function openSqlite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'roster.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Each checkpoint syncs the WAL and the database file, on this thread, inside the COMMIT that
  // triggers it (CHECKPOINT_PAGES).
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${JOURNAL_LIMIT_BYTES}`);
  const store = new SqliteDb(db);
  await migrate(store);
  return store;
}

class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();
  /** Statements this process ran that may have written; with `PRAGMA data_version`, the data version. */
  private writes = 0;
  private readonly version: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.version = db.prepare('PRAGMA data_version').pluck();
  }

  dataVersion(): string {
    return `${this.writes}.${this.version.get() as number}`;
  }

  private prepare(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** The same statements in raw mode (`values`): a statement's mode is its own, so they are kept apart. */
  private readonly rawStatements = new Map<string, Database.Statement>();

  private prepareRaw(sql: string): Database.Statement {
    let st = this.rawStatements.get(sql);
    if (!st) {
      st = this.db.prepare(sql).raw(true);
      this.rawStatements.set(sql, st);
    }
    return st;
  }

  private direct: Queryable = {
    values: async (sql: string, params: SqlValue[] = []) => this.prepareRaw(sql).all(...params) as SqlValue[][],
    all: async <T>(sql: string, params: SqlValue[] = []) => this.prepare(sql).all(...params) as T[],
    get: async <T>(sql: string, params: SqlValue[] = []) => this.prepare(sql).get(...params) as T | undefined,
    run: async (sql: string, params: SqlValue[] = []) => {
      const st = this.prepare(sql);
      this.writes++;
      return { changes: st.reader ? (st.all(...params), 0) : st.run(...params).changes };
    },
  };

  /** A FIFO lock: the order of `acquire` calls is the order of entry, decided synchronously. */
  private tail: Promise<void> = Promise.resolve();

  private acquire(): Promise<() => void> {
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.tail = previous.then(() => mine);
    return previous.then(() => release);
  }

  /**
   * The open SQLite transaction, shared by the transactions that ran since it began (group commit):
   * defined exactly while one is open. `committed` settles when it commits (or fails); `done` then
   * resolves whatever the outcome.
   */
  private group: CommitGroup | undefined;

  /**
   * Plain statements never run inside an open transaction (they would read what may not commit, or
   * become part of it): they wait for the group's commit. Opening and committing a group are synchronous,
   * so the check and the statement cannot be separated by either.
   */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.group) await this.group.done;
    return fn();
  }

  all<T>(sql: string, params?: SqlValue[]): Promise<T[]> {
    return this.exclusive(() => this.direct.all<T>(sql, params));
  }

  get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined> {
    return this.exclusive(() => this.direct.get<T>(sql, params));
  }

  values(sql: string, params?: SqlValue[]): Promise<SqlValue[][]> {
    return this.exclusive(() => this.direct.values!(sql, params));
  }

  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }> {
    return this.exclusive(() => this.direct.run(sql, params));
  }

  /**
   * Group commit. Transactions still run one at a time (the lock), each in a savepoint of one SQLite
   * transaction that stays open until the event loop's turn ends (`setImmediate`): every transaction
   * begun in that turn commits with it, in one COMMIT. A transaction's result is returned only once its
   * group has committed, so an answer never reports a write that could still be lost; a transaction that
   * throws is rolled back to its savepoint alone. With several requests in flight, an apply's writes
   * commit several at a time: fewer commits, and pages that consecutive writes share (the last pages of
   * indexes that grow at their end) written to the WAL once per group (docs/performance.md).
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const release = await this.acquire();
    let group: CommitGroup;
    let result: T;
    try {
      group = this.group ?? this.begin();
      this.db.exec('SAVEPOINT tx');
      try {
        result = await fn(this.direct);
        this.db.exec('RELEASE tx');
      } catch (err) {
        if (this.db.inTransaction) {
          this.db.exec('ROLLBACK TO tx');
          this.db.exec('RELEASE tx');
        } else if (this.group === group) {
          // SQLite rolled back the whole transaction (a full disk, an I/O error): the group's earlier
          // members are lost with it, and fail with the same error.
          this.group = undefined;
          group.fail(err);
        }
        throw err;
      }
    } finally {
      release();
    }
    await group.committed;
    return result;
  }

  private begin(): CommitGroup {
    this.db.exec('BEGIN IMMEDIATE');
    const group = new CommitGroup();
    this.group = group;
    setImmediate(() => void this.commit(group));
    return group;
  }

  private async commit(group: CommitGroup): Promise<void> {
    const release = await this.acquire();
    try {
      if (this.group !== group) return;
      this.group = undefined;
      try {
        this.db.exec('COMMIT');
        group.succeed();
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        group.fail(err);
      }
    } finally {
      release();
    }
  }

  async withoutForeignKeys<T>(fn: () => Promise<T>): Promise<T> {
    // The pragma is a no-op inside a transaction.
    while (this.group) await this.group.done;
    this.db.pragma('foreign_keys = OFF');
    try {
      return await fn();
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  async close(): Promise<void> {
    while (this.group) await this.group.done;
    const release = await this.acquire();
    this.db.close();
    release();
  }
}

/** The transactions committed by one COMMIT (SqliteDb.transaction). */
class CommitGroup {
  readonly committed: Promise<void>;
  readonly done: Promise<void>;
  private settle!: (err?: unknown) => void;
  private settled = false;

  constructor() {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    this.committed = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    // Awaited only by members, after their own outcome; a group nobody awaits must not warn.
    this.committed.catch(() => {});
    this.done = this.committed.then(
      () => {},
      () => {},
    );
    this.settle = (err) => (err === undefined ? resolve() : reject(err));
  }

  succeed(): void {
    if (!this.settled) this.settle();
    this.settled = true;
  }

  fail(err: unknown): void {
    if (!this.settled) this.settle(err ?? new Error('the transaction was rolled back'));
    this.settled = true;
  }
}
