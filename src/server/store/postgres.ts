import pg from 'pg';
import type { Db, Queryable, SqlValue } from './db.js';
import { migrate } from './migrate.js';

/**
 * PostgreSQL store, through `pg` with a connection pool. Several `roster serve` processes may share one
 * database: every rule is enforced by PostgreSQL (keys, foreign keys and cascades, row locks, advisory
 * locks), never by this process's memory, and nothing read from the database is cached here.
 *
 * Isolation: READ COMMITTED, PostgreSQL's default. Each statement sees what was committed when it
 * started, and an UPDATE/DELETE that meets a row another transaction is changing waits for it and then
 * re-checks its WHERE on the new version of the row. The rules that read and then write rely on that
 * or on an explicit lock; none needs SERIALIZABLE:
 *   - single decisions (routes/access-requests.ts): `UPDATE ... WHERE id = ? AND status IS NULL` must
 *     change one row; a concurrent decision waits on the row lock, re-checks, changes none, answers 409;
 *   - keys: unique indexes, with `ON CONFLICT DO NOTHING` where a duplicate is not an error (a failed
 *     statement aborts a PostgreSQL transaction, so a caught violation cannot be ignored);
 *   - the cycle rule (routes/groups.ts `checkNoCycle`): a transaction-level advisory lock (`lock`);
 *   - cascades: foreign keys `ON DELETE CASCADE`.
 * Transactions are still retried on serialization failures and deadlocks (SQLSTATE 40001, 40P01), which
 * READ COMMITTED can meet too (e.g. a deadlock between two cascading deletes).
 *
 * The URL is a libpq-style `postgres://user:password@host:port/database`, plus two parameters of ours,
 * removed before it reaches the driver:
 *   - `schema=NAME`: the schema to use (created if missing, then put first on the search_path); default:
 *     the server's search_path (normally `public`).
 *   - `pool=N`: the pool's size per process (default 10).
 */
export interface PostgresOptions {
  /** Overrides `?schema=` in the URL. */
  schema?: string;
  /** Overrides `?pool=` in the URL. */
  poolSize?: number;
}

const MIGRATION_LOCK = 'roster:migrations';
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 5;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function parsePostgresUrl(url: string, options: PostgresOptions = {}) {
  const u = new URL(url);
  const schema = options.schema ?? (u.searchParams.get('schema') || undefined);
  const poolText = options.poolSize === undefined ? u.searchParams.get('pool') : String(options.poolSize);
  const pool = options.poolSize ?? (poolText !== null ? Number(poolText) : 10);
  u.searchParams.delete('schema');
  u.searchParams.delete('pool');
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new Error(`?schema= must be a plain SQL identifier (letters, digits, _; at most 63), got '${schema}'`);
  if (!Number.isInteger(pool) || pool < 1) throw new Error(`?pool= must be a positive integer, got '${poolText}'`);
  return { connectionString: u.toString(), schema, poolSize: pool };
}

/** The URL without its password, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable database URL)';
  }
}

/** Opens the pool, applies pending migrations (under an advisory lock) and returns the store. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Db> {
  const { connectionString, schema, poolSize } = parsePostgresUrl(url, options);
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    // Every connection of the pool works in the schema: `SET search_path` at connection start. JIT off:
    // the planner over-estimates the recursive group closure of /allowed (tens of thousands of rows for
    // a handful) and JIT-compiles it, ~300 ms a check, where the query itself takes about 2 ms.
    options: [`-c jit=off`, ...(schema ? [`-c search_path=${schema}`] : [])].join(' '),
    // COUNT(*) is a bigint, which pg returns as a string; counts here are far below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20
          ? (v: string) => Number(v)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
    connectionTimeoutMillis: 10_000,
  });
  // An idle connection that the server closes (restart, admin kill) must not crash the process: the pool
  // drops it and the next query opens a new one.
  pool.on('error', (err) =>
    process.stderr.write(`roster: PostgreSQL connection error (the pool replaces the connection): ${err.message}\n`),
  );
  const store = new PostgresDb(
    pool,
    schema,
    () => new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 }),
  );
  try {
    await migrate(store);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  return store;
}

/** `?` placeholders to `$1..$n`, and SQLite-compatible text semantics; once per distinct SQL string. */
const translated = new Map<string, string>();

export function translateSql(sql: string): string {
  let out = translated.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  let result = '';
  // Walk the text, leaving quoted strings and identifiers alone.
  for (let i = 0; i < sql.length;) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      result += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '?') {
      result += `$${++n}`;
      i++;
    } else {
      let j = i;
      while (j < sql.length && sql[j] !== "'" && sql[j] !== '"' && sql[j] !== '?') j++;
      let code = sql.slice(i, j);
      // SQLite's LIKE ignores ASCII case; PostgreSQL's ILIKE under the "C" collation does the same.
      code = code.replace(/\bLIKE\b/g, 'ILIKE');
      // Text sorts byte-wise in SQLite (BINARY). Lists are ordered by keys, so key columns get the "C"
      // collation, which does the same whatever the database's default collation: pages come in the same
      // order from both stores. (Only keys: ids and timestamps sort alike in every collation, and a
      // recursive query may not mix a "C" id column with a parameter of the default collation.)
      if (/^\s*CREATE\s+TABLE/i.test(sql)) code = code.replace(/\b(\w*key) TEXT\b/g, '$1 TEXT COLLATE "C"');
      result += code;
      i = j;
    }
  }
  out = result;
  translated.set(sql, out);
  return out;
}

type Runner = Pick<pg.Pool | pg.PoolClient, 'query'>;

function queryable(runner: Runner): Queryable {
  return {
    all: async <T>(sql: string, params: SqlValue[] = []) => (await runner.query(translateSql(sql), params)).rows as T[],
    get: async <T>(sql: string, params: SqlValue[] = []) =>
      (await runner.query(translateSql(sql), params)).rows[0] as T | undefined,
    run: async (sql: string, params: SqlValue[] = []) => {
      const r = await runner.query(translateSql(sql), params);
      // As in SQLite, a statement that only reads changes nothing.
      return { changes: r.command === 'SELECT' ? 0 : (r.rowCount ?? 0) };
    },
  };
}

class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  private readonly direct: Queryable;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string | undefined,
    private readonly dedicated: () => pg.Client,
  ) {
    this.direct = queryable(pool);
  }

  all<T>(sql: string, params?: SqlValue[]): Promise<T[]> {
    return this.direct.all<T>(sql, params);
  }

  get<T>(sql: string, params?: SqlValue[]): Promise<T | undefined> {
    return this.direct.get<T>(sql, params);
  }

  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }> {
    return this.direct.run(sql, params);
  }

  /**
   * One connection from the pool, BEGIN (READ COMMITTED) … COMMIT, or ROLLBACK on any error. On a
   * serialization failure or deadlock the whole function runs again (a few times, with a short random
   * pause): it only touches the database, so running it again is safe.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          ...queryable(client),
          // A transaction-level advisory lock: held until COMMIT/ROLLBACK, so whoever takes the same key
          // next sees this transaction's writes (READ COMMITTED takes a new snapshot per statement).
          lock: async (key: string) => {
            await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
          },
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          broken = rollbackErr as Error;
        }
        const code = (err as { code?: string }).code;
        if (code && RETRYABLE.has(code) && attempt < MAX_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
          continue;
        }
        throw err;
      } finally {
        // A connection whose ROLLBACK failed is in an unknown state: destroy it rather than reuse it.
        client.release(broken);
      }
    }
  }

  /**
   * Runs `fn` holding a session-level advisory lock on a dedicated connection: processes starting at
   * once wait for each other here, and the second finds every migration already applied. The schema is
   * created under the lock too (two `CREATE SCHEMA IF NOT EXISTS` at once can collide).
   */
  async withMigrationLock<T>(fn: () => Promise<T>): Promise<T> {
    // Not a pool connection: `fn` needs the pool, which may have a single connection.
    const client = this.dedicated();
    await client.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
      if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      return await fn();
    } finally {
      // Ending the session releases the lock, also when fn failed.
      await client.end();
    }
  }

  private closing?: Promise<void>;

  /** Idempotent, as the SQLite store's: shutdown paths may close twice. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}
