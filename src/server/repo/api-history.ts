import type { Queryable, SqlValue } from '../store/db.js';
import { containsPattern } from './common.js';

/**
 * The change history (the public "API log", `GET /v2/history`): one row per write through /v2
 * (src/server/api-history.ts records them). `status` is 0 while the call is in flight, and stays 0 when its
 * answer was never recorded (the process stopped, or the store failed, between the write and its answer).
 */
export interface HistoryRow {
  id: string;
  /** ISO 8601 UTC with milliseconds: when the call arrived. */
  ts: string;
  method: string;
  /** The URL path, without the query. */
  path: string;
  status: number;
  clientIp: string;
  actorType: string;
  actorId: string;
  actorName: string;
  projectId: string | null;
  projectKey: string | null;
  envId: string | null;
  envKey: string | null;
  requestId: string;
  /** The body as sent (secrets redacted), or null for none. */
  requestBody: string | null;
  responseBody: string | null;
}

const COLUMNS =
  'id, ts, method, path, status, client_ip, actor_type, actor_id, actor_name, project_id, project_key, env_id, env_key, request_id';

const values = (r: HistoryRow): SqlValue[] => [
  r.id,
  r.ts,
  r.method,
  r.path,
  r.status,
  r.clientIp,
  r.actorType,
  r.actorId,
  r.actorName,
  r.projectId,
  r.projectKey,
  r.envId,
  r.envKey,
  r.requestId,
  r.requestBody,
  r.responseBody,
];

/** Writes one call (in flight, `status` 0, or finished). */
export async function insertHistoryEvent(db: Queryable, row: HistoryRow): Promise<void> {
  await db.run(
    `INSERT INTO api_history (${COLUMNS}, request_body, response_body) VALUES (${Array.from({ length: 16 }, () => '?').join(', ')})`,
    values(row),
  );
}

/** Records the answer of a call written in flight. */
export async function finishHistoryEvent(
  db: Queryable,
  id: string,
  answer: { status: number; responseBody: string | null },
): Promise<void> {
  await db.run(`UPDATE api_history SET status = ?, response_body = ? WHERE id = ?`, [
    answer.status,
    answer.responseBody,
    id,
  ]);
}

/**
 * The retention bound: deletes calls older than `before`, then all but the newest `keep` (by time, then
 * id). Returns how many were deleted.
 */
export async function pruneHistory(db: Queryable, { before, keep }: { before: string; keep: number }): Promise<number> {
  let deleted = (await db.run(`DELETE FROM api_history WHERE ts < ?`, [before])).changes;
  const edge = await db.get<{ ts: string; id: string }>(
    `SELECT ts, id FROM api_history ORDER BY ts DESC, id DESC LIMIT 1 OFFSET ?`,
    [keep],
  );
  if (edge)
    deleted += (
      await db.run(`DELETE FROM api_history WHERE ts < ? OR (ts = ? AND id <= ?)`, [edge.ts, edge.ts, edge.id])
    ).changes;
  return deleted;
}

/** The public filters of `GET /v2/history`: a list matches any of its values (an empty list matches nothing). */
export interface HistoryFilter {
  methods?: string[];
  paths?: string[];
  success?: boolean;
  statuses?: number[];
  clientIps?: string[];
  actorTypes?: string[];
  actorIds?: string[];
  /** Anywhere in the display name, ASCII case ignored. */
  actorName?: string;
  /** Ids or keys. */
  projects?: string[];
  envs?: string[];
  /** ISO bounds, `from` inclusive, `to` exclusive. */
  from?: string;
  to?: string;
}

function whereOf(f: HistoryFilter): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  const anyOf = (column: string, list: readonly SqlValue[] | undefined) => {
    if (list === undefined) return;
    if (list.length === 0) return void parts.push('1 = 0');
    parts.push(`${column} IN (${list.map(() => '?').join(', ')})`);
    params.push(...list);
  };
  const anyOf2 = (idColumn: string, keyColumn: string, list: readonly string[] | undefined) => {
    if (list === undefined) return;
    if (list.length === 0) return void parts.push('1 = 0');
    const marks = list.map(() => '?').join(', ');
    parts.push(`(${idColumn} IN (${marks}) OR ${keyColumn} IN (${marks}))`);
    params.push(...list, ...list);
  };
  anyOf('method', f.methods);
  anyOf('path', f.paths);
  anyOf('status', f.statuses);
  anyOf('client_ip', f.clientIps);
  anyOf('actor_type', f.actorTypes);
  anyOf('actor_id', f.actorIds);
  anyOf2('project_id', 'project_key', f.projects);
  anyOf2('env_id', 'env_key', f.envs);
  // Success is a 2xx or 3xx answer; a call in flight (status 0) is neither success nor failure yet.
  if (f.success === true) parts.push('status >= 200 AND status < 400');
  if (f.success === false) parts.push('(status >= 400 OR status BETWEEN 1 AND 199)');
  if (f.actorName !== undefined) {
    parts.push(`LOWER(actor_name) LIKE ? ESCAPE '\\'`);
    params.push(containsPattern(f.actorName.toLowerCase()));
  }
  if (f.from !== undefined) {
    parts.push('ts >= ?');
    params.push(f.from);
  }
  if (f.to !== undefined) {
    parts.push('ts < ?');
    params.push(f.to);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

interface Stored {
  id: string;
  ts: string;
  method: string;
  path: string;
  status: number;
  client_ip: string;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  project_id: string | null;
  project_key: string | null;
  env_id: string | null;
  env_key: string | null;
  request_id: string;
}

/** One call read back, without its bodies. */
export type HistoryEvent = Omit<HistoryRow, 'requestBody' | 'responseBody'>;

const toEvent = (r: Stored): HistoryEvent => ({
  id: r.id,
  ts: r.ts,
  method: r.method,
  path: r.path,
  status: Number(r.status),
  clientIp: r.client_ip,
  actorType: r.actor_type,
  actorId: r.actor_id,
  actorName: r.actor_name,
  projectId: r.project_id,
  projectKey: r.project_key,
  envId: r.env_id,
  envKey: r.env_key,
  requestId: r.request_id,
});

/** Newest first (time, then id). */
export async function listHistory(
  db: Queryable,
  f: HistoryFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: HistoryEvent[]; total: number }> {
  const w = whereOf(f);
  const rows = await db.all<Stored>(
    `SELECT ${COLUMNS} FROM api_history ${w.sql} ORDER BY ts DESC, id DESC LIMIT ? OFFSET ?`,
    [...w.params, page.limit, page.offset],
  );
  const total = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM api_history ${w.sql}`, w.params);
  return { rows: rows.map(toEvent), total: Number(total?.n ?? 0) };
}

/** One call's request or response body (null: the call had none), or undefined when no such call. */
export async function readHistoryBody(
  db: Queryable,
  id: string,
  which: 'request' | 'response',
): Promise<{ envId: string | null; body: string | null } | undefined> {
  const column = which === 'request' ? 'request_body' : 'response_body';
  const row = await db.get<{ env_id: string | null; body: string | null }>(
    `SELECT env_id, ${column} AS body FROM api_history WHERE id = ?`,
    [id],
  );
  return row && { envId: row.env_id, body: row.body };
}
