import type { Queryable } from '../store/db.js';
import { parseJson } from './common.js';

/**
 * The public lists' attribute filter: `?attr_<name>=<value>` keeps the rows whose attribute `<name>`
 * reads as `<value>` (a string as is, a number or bool as its text, anything else as JSON). Not in the
 * public OpenAPI description; the official Go SDK sends it (`ListByAttributes` on roles, tenants and
 * resource actions) and its integration test expects the public service to filter.
 */
export function attributeFilters(query: Record<string, unknown>): [string, string][] {
  return Object.entries(query)
    .filter(([k, v]) => k.startsWith('attr_') && k.length > 5 && typeof v === 'string')
    .map(([k, v]) => [k.slice(5), v as string]);
}

export function matchesAttributes(attributes: Record<string, unknown>, filters: [string, string][]): boolean {
  return filters.every(([name, value]) => Object.hasOwn(attributes, name) && asText(attributes[name]) === value);
}

const asText = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);

/**
 * A `WHERE` addition for `table` (its rows of `envId` under `where`) keeping only the rows whose
 * `attributes` match: the ids are found here, so that the list's own paging and order stay in SQL.
 */
export async function attributeClause(
  q: Queryable,
  table: 'roles' | 'tenants',
  where: string,
  params: unknown[],
  filters: [string, string][],
): Promise<{ where: string; params: string[] }> {
  if (filters.length === 0) return { where: '', params: [] };
  const rows = await q.all<{ id: string; attributes: string | null }>(
    `SELECT id, attributes FROM ${table} WHERE ${where}`,
    params as never,
  );
  const ids = rows.filter((r) => matchesAttributes(parseJson(r.attributes ?? '{}', {}), filters)).map((r) => r.id);
  if (ids.length === 0) return { where: ' AND 1 = 0', params: [] };
  return { where: ` AND id IN (${ids.map(() => '?').join(', ')})`, params: ids };
}
