/**
 * The store's asynchronous database interface. SQL is written once, in a portable subset that both
 * SQLite and PostgreSQL accept: `?` placeholders (the PostgreSQL adapter numbers them), TEXT ids and
 * ISO timestamps, JSON kept as TEXT, `ON CONFLICT ... DO NOTHING`, `RETURNING`, recursive CTEs.
 * Repositories and domain rules only see this interface, so a second store needs no rewrite of them.
 */
export type SqlValue = string | number | null;

export interface Queryable {
  all<T = Record<string, unknown>>(sql: string, params?: SqlValue[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }>;
  /**
   * Rows as arrays of their column values, in the select's order: for large pages, where building an
   * object per row is much of the cost (better-sqlite3's raw mode: ~40 -> ~28 ms for 21 pages of 1,000
   * role assignments). SQLite only; call as `q.values?.(...)` and fall back to `all`.
   */
  values?(sql: string, params?: SqlValue[]): Promise<SqlValue[][]>;
  /**
   * Inside a transaction only: waits until no other transaction holds `key`, then holds it until this
   * transaction ends. For read-then-write rules that no key or row lock covers (the cycle rule), across
   * processes. PostgreSQL: a transaction-level advisory lock. SQLite leaves it out: `BEGIN IMMEDIATE`
   * already serialises writing transactions, and only one process writes the file. Call as `tx.lock?.(k)`.
   */
  lock?(key: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `fn` in one transaction: all of its writes commit together or none do. Rules that read then
   * write (uniqueness beyond keys, the cycle rule, single decisions) run inside one.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` (the migrations) so that processes starting at once apply each migration exactly once.
   * PostgreSQL: a session advisory lock; SQLite needs none (one process opens the file, and the
   * migrations' own transactions are IMMEDIATE).
   */
  withMigrationLock?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * SQLite only: runs `fn` (one migration's transaction) with foreign-key enforcement off, which SQLite
   * can switch only outside a transaction. For rebuilding a table that others reference; the migration
   * runner checks `PRAGMA foreign_key_check` inside the transaction, before it commits.
   */
  withoutForeignKeys?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A token that changes whenever the data may have changed: this process's writes and other
   * connections' commits. Where present, a read may be remembered under it (list counts, repo/common.ts).
   * SQLite: its own write counter and `PRAGMA data_version`. PostgreSQL has none (several processes
   * write, and asking would cost a round trip).
   */
  dataVersion?(): string;
  close(): Promise<void>;
}

/** A unique-key violation, whatever the driver. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === '23505';
}

/** A foreign-key violation, whatever the driver. */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || e?.code === '23503';
}

/** Socket errors and PostgreSQL's connection-class codes: the database is away, not the request wrong. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
]);
/** pg's own messages for a connection that went away or could not be made (they carry no code). */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout|the database system is (starting up|shutting down|in recovery mode)/i;

/**
 * The database cannot be reached right now (PostgreSQL restarting, the network to it cut). The request
 * did nothing (its transaction, if any, died with the connection): the service answers 503 with
 * Retry-After and clients retry.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof e?.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  if (typeof e?.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  // Node's connect error for a host with several addresses (127.0.0.1 and ::1) is an AggregateError.
  return Array.isArray(e?.errors) && e.errors.some((x) => isDatabaseUnavailable(x));
}
