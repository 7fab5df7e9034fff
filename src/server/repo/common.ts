import { createHash } from 'node:crypto';
import type { Queryable, SqlValue } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { notFound } from '../errors.js';
import type { Paging } from '../paging.js';
import { pageClauses, pageWithCursor, type PageFrom, type PageStart } from './page-cursors.js';
import { versionMemo } from './version-memo.js';

/** Whether the store answers at all (the health check): throws when it does not. */
export async function pingStore(q: Queryable): Promise<void> {
  await q.get('SELECT 1 AS ok');
}

export const parseJson = <T>(text: unknown, fallback: T): T =>
  typeof text === 'string' && text ? (JSON.parse(text) as T) : fallback;

/** The fields every read model carries. */
export function envFields(env: EnvContext) {
  return { organization_id: env.orgId, project_id: env.projectId, environment_id: env.envId };
}

/** A row of one of the env-scoped keyed tables (resources, roles, tenants, users) by key or id, or 404. */
export async function findKeyed<T extends { id: string }>(
  q: Queryable,
  table: 'resources' | 'roles' | 'tenants' | 'users',
  envId: string,
  keyOrId: string,
  what: string,
): Promise<T> {
  const row = await findKeyedOrNull<T>(q, table, envId, keyOrId);
  if (!row) throw notFound(what, keyOrId);
  return row;
}

/** By key or id. `roles` here means the top-level roles: a resource's own roles are found through it (repo/role-scope.ts). */
export async function findKeyedOrNull<T>(
  q: Queryable,
  table: string,
  envId: string,
  keyOrId: string,
): Promise<T | undefined> {
  const scope = table === 'roles' ? ' AND resource_id IS NULL' : '';
  return (
    (await q.get<T>(`SELECT * FROM ${table} WHERE env_id = ? AND key = ?${scope}`, [envId, keyOrId])) ??
    (await q.get<T>(`SELECT * FROM ${table} WHERE env_id = ? AND id = ?${scope}`, [envId, keyOrId]))
  );
}

/**
 * One page in a deterministic order (creation time, then id), and how to count the whole list: the count
 * runs only when the answer carries it (paging.ts). `byCursor`: the order is `created_at, id` of the
 * table whose `id` and `created_at` the rows carry, so a page may start where the page before it ended
 * (page-cursors.ts) instead of at its offset. `countFrom`: the FROM the count needs, when fewer joins
 * count the same rows.
 */
export async function pageOf<T>(
  q: Queryable,
  from: string,
  where: string,
  params: SqlValue[],
  paging: Paging,
  select = '*',
  order = 'created_at, id',
  { byCursor = false, countFrom = from }: { byCursor?: boolean; countFrom?: string } = {},
): Promise<{ rows: T[]; total: () => Promise<number> }> {
  const read = (start: PageFrom | undefined) => {
    const c = pageClauses(order, paging, start);
    return q.all<T & PageStart>(
      `SELECT ${select} FROM ${from} WHERE (${where})${c.extra} ORDER BY ${order} ${c.limit}`,
      [...params, ...c.extraParams, ...c.limitParams],
    );
  };
  const rows = byCursor
    ? await pageWithCursor(q, `${select}\0${from}\0${where}\0${JSON.stringify(params)}`, paging, read)
    : await read(undefined);
  return { rows, total: () => countOf(q, `SELECT COUNT(*) AS n FROM ${countFrom} WHERE ${where}`, params) };
}

/** Counts remembered per store while its data version holds: paging a list counts it once, not per page. */
const counted = versionMemo<number>(256);

/** `SELECT COUNT(*) AS n ...`, answered from memory while the store's data version holds (version-memo.ts). */
export async function countOf(q: Queryable, sql: string, params: SqlValue[]): Promise<number> {
  const count = async () => Number((await q.get<{ n: number }>(sql, params))?.n ?? 0);
  return (await counted(q, `${sql}\0${JSON.stringify(params)}`, count))?.value ?? count();
}

/**
 * Builds `a = ? AND b = ?` from the filters that are set. A clause with several `?` for the same value
 * takes the value once per placeholder.
 */
export function whereOf(filters: [string, SqlValue | undefined][], base: string[] = [], baseParams: SqlValue[] = []) {
  const clauses = [...base];
  const params = [...baseParams];
  for (const [clause, value] of filters) {
    if (value === undefined || value === null || value === '') continue;
    clauses.push(clause);
    const n = clause.split('?').length - 1;
    for (let i = 0; i < n; i++) params.push(value);
  }
  return { where: clauses.join(' AND ') || '1 = 1', params };
}

/** `type:key` → `[type, key]`; a bare key is of `defaultType` when given. */
export function splitRef(ref: string, defaultType?: string): [string, string] | undefined {
  const i = ref.indexOf(':');
  if (i < 0) return defaultType ? [defaultType, ref] : undefined;
  return [ref.slice(0, i), ref.slice(i + 1)];
}

/** A `LIKE ? ESCAPE '\\'` pattern matching `text` anywhere: `*` matches any run of characters; `%`, `_` and `\\` are literal. */
export function containsPattern(text: string): string {
  // `*` is a wildcard, as on the public service (permit-golang's integration test: `res*` finds `res` and
  // `res-2`, `res-*` finds `res-2`, `res_*` finds nothing); LIKE's own `%` and `_` are literal.
  return `%${text.replace(/[\\%_]/g, (c) => '\\' + c).replace(/\*/g, '%')}%`;
}

/** A uuid (version 4 layout) that is the same for the same seed: ids for things the store has no row for. */
export function stableUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The public `search` of a schema or tenant list: the text anywhere in the key or the name (ASCII case ignored). */
export function searchClause(search: unknown): { where: string; params: string[] } {
  if (typeof search !== 'string' || search === '') return { where: '', params: [] };
  const p = containsPattern(search);
  return { where: ` AND (key LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')`, params: [p, p] };
}
