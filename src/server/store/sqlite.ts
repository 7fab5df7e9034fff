import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Db, Queryable, SqlValue } from './db.js';
import { migrate } from './migrate.js';

/** WAL pages that trigger a checkpoint (SQLite's default: 1,000 pages, 4 MB). */
const CHECKPOINT_PAGES = 10_000;

/**
 * SQLite store: one file `roster.db` under the data directory, WAL journal. better-sqlite3 is
 * synchronous and has one connection, so an asynchronous transaction must not let another request's
 * statements run inside it: a mutex serialises transactions, and plain statements wait while one is open.
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
  // Each checkpoint (by default when the WAL reaches 1,000 pages) syncs the WAL and the database file,
  // on this thread, inside the COMMIT that triggers it: ~40 ms each, 1,352 of them in an apply from empty
  // of 100,000 users (bench/scale.bench.ts), 55 s of the service's time. Ten times fewer, each larger.
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
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
  private pending = 0;

  private acquire(): Promise<() => void> {
    this.pending++;
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    this.tail = previous.then(() => mine);
    return previous.then(() => () => {
      this.pending--;
      release();
    });
  }

  /** Plain statements run at once unless a transaction is open or queued; then they take their turn. */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.pending === 0) return fn();
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
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

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      release();
    }
  }

  async withoutForeignKeys<T>(fn: () => Promise<T>): Promise<T> {
    this.db.pragma('foreign_keys = OFF');
    try {
      return await fn();
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  async close(): Promise<void> {
    const release = await this.acquire();
    this.db.close();
    release();
  }
}
