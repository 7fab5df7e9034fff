import type { Db, Queryable, SqlValue } from '../store/db.js';
import { parseJson } from './common.js';

/** One logged decision, as the decision log keeps it (src/server/decision-log.ts). */
export interface DecisionRow {
  id: string;
  envId: string;
  /** ISO 8601 UTC with milliseconds. */
  ts: string;
  /** Which endpoint decided: `permit/root` (POST /allowed) or `permit/bulk` (POST /allowed/bulk). */
  query: string;
  user: string;
  action: string;
  type: string;
  key: string | null;
  tenant: string | null;
  decision: boolean;
  /** The check as the caller sent it, normalised to objects (JSON text). */
  input: string;
}

const COLUMNS = 'id, env_id, ts, query, user_key, action, resource_type, resource_key, tenant, decision, input';
const PER_ROW = 11;
/**
 * Rows per INSERT: fixed sizes, so that SQLite's statement cache holds one statement per size. 50 rows
 * is 550 parameters, under SQLite's default limit of 32,766 and PostgreSQL's 65,535.
 */
const CHUNK = 50;

function insertSql(rows: number): string {
  const one = `(${Array.from({ length: PER_ROW }, () => '?').join(', ')})`;
  return `INSERT INTO decision_log (${COLUMNS}) VALUES ${Array.from({ length: rows }, () => one).join(', ')} ON CONFLICT (id) DO NOTHING`;
}

/** Writes the rows in one transaction (a flush is all or nothing: a retry writes each row once, by id). */
export async function writeDecisions(db: Db, rows: readonly DecisionRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction(async (tx) => {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const params: SqlValue[] = [];
      for (const r of chunk)
        params.push(
          r.id,
          r.envId,
          r.ts,
          r.query,
          r.user,
          r.action,
          r.type,
          r.key,
          r.tenant,
          r.decision ? 1 : 0,
          r.input,
        );
      await tx.run(insertSql(chunk.length), params);
    }
  });
}

/**
 * The retention bound: deletes decisions older than `before`, then all but the newest `keep` (by time,
 * then id: a total order, so exactly `keep` remain). Returns how many were deleted.
 */
export async function pruneDecisions(
  db: Queryable,
  { before, keep }: { before: string; keep: number },
): Promise<number> {
  let deleted = (await db.run(`DELETE FROM decision_log WHERE ts < ?`, [before])).changes;
  const edge = await db.get<{ ts: string; id: string }>(
    `SELECT ts, id FROM decision_log ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?`,
    [keep],
  );
  if (edge)
    deleted += (
      await db.run(`DELETE FROM decision_log WHERE ts < ? OR (ts = ? AND id <= ?)`, [edge.ts, edge.ts, edge.id])
    ).changes;
  return deleted;
}

export interface DecisionFilter {
  envId: string;
  /** User keys, or emails of users of the environment. */
  users?: string[];
  decision?: boolean;
  /** Resource types. */
  resources?: string[];
  tenant?: string;
  action?: string;
  /** ISO bounds, inclusive from, exclusive to. */
  from?: string;
  to?: string;
}

function where(f: DecisionFilter): { sql: string; params: SqlValue[] } {
  const parts = ['env_id = ?'];
  const params: SqlValue[] = [f.envId];
  const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
  if (f.users?.length) {
    parts.push(
      `(user_key IN (${list(f.users.length)}) OR user_key IN (SELECT key FROM users WHERE env_id = ? AND email IN (${list(f.users.length)})))`,
    );
    params.push(...f.users, f.envId, ...f.users);
  }
  if (f.decision !== undefined) {
    parts.push('decision = ?');
    params.push(f.decision ? 1 : 0);
  }
  if (f.resources?.length) {
    parts.push(`resource_type IN (${list(f.resources.length)})`);
    params.push(...f.resources);
  }
  for (const [column, value] of [
    ['tenant', f.tenant],
    ['action', f.action],
  ] as const) {
    if (value !== undefined) {
      parts.push(`${column} = ?`);
      params.push(value);
    }
  }
  if (f.from !== undefined) {
    parts.push('ts >= ?');
    params.push(f.from);
  }
  if (f.to !== undefined) {
    parts.push('ts < ?');
    params.push(f.to);
  }
  return { sql: parts.join(' AND '), params };
}

interface Stored {
  id: string;
  ts: string;
  query: string;
  user_key: string;
  action: string;
  resource_type: string;
  resource_key: string | null;
  tenant: string | null;
  decision: number;
  input: string;
}

/** A logged decision read back: the row without its environment, the input parsed. */
export type StoredDecision = Omit<DecisionRow, 'envId' | 'input'> & { input: unknown };

const toDecision = (r: Stored): StoredDecision => ({
  id: r.id,
  ts: r.ts,
  query: r.query,
  user: r.user_key,
  action: r.action,
  type: r.resource_type,
  key: r.resource_key,
  tenant: r.tenant,
  decision: Number(r.decision) === 1,
  input: parseJson(r.input, null),
});

/** Newest first. */
export async function listDecisions(
  db: Queryable,
  f: DecisionFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: StoredDecision[]; total: number }> {
  const w = where(f);
  const rows = await db.all<Stored>(
    `SELECT ${COLUMNS} FROM decision_log WHERE ${w.sql} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    [...w.params, page.limit, page.offset],
  );
  const total = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM decision_log WHERE ${w.sql}`, w.params);
  return { rows: rows.map(toDecision), total: Number(total?.n ?? 0) };
}

export async function getDecision(db: Queryable, envId: string, id: string): Promise<StoredDecision | undefined> {
  const r = await db.get<Stored>(`SELECT ${COLUMNS} FROM decision_log WHERE env_id = ? AND id = ?`, [envId, id]);
  return r && toDecision(r);
}
