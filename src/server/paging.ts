import { httpError, invalid } from './errors.js';

export interface Paging {
  page: number;
  perPage: number;
  offset: number;
}

export interface Envelope<T> {
  data: T[];
  total_count: number;
  page_count: number;
}

/**
 * `page` (default 1, min 1) and `per_page` (default 30, min 1, max 100, or the route's own maximum:
 * 1000 for role assignments). A page past the end is an empty page, not an error.
 */
export function parsePaging(query: unknown, max = 100): Paging {
  const page = toInt(field(query, 'page'), 'page', 1);
  const perPage = toInt(field(query, 'per_page'), 'per_page', 30);
  if (page < 1) throw invalid(['query', 'page'], 'must be >= 1');
  if (perPage < 1) throw invalid(['query', 'per_page'], 'must be >= 1');
  if (perPage > max) throw httpError('PAGINATION_SIZE_OVERREACHED', `per_page may be at most ${max}, got ${perPage}`);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * A field of a querystring: typed by the route's schema where it has one, checked here where it has not
 * (parsePaging reads `page` and `per_page` of any route).
 */
const field = (query: unknown, name: string): unknown =>
  typeof query === 'object' && query !== null ? Reflect.get(query, name) : undefined;

function toInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n)) throw invalid(['query', name], 'must be an integer');
  // Offsets beyond this are meaningless and would overflow SQL integer arithmetic.
  if (n > 1_000_000_000) throw invalid(['query', name], 'is too large');
  return n;
}

/** A list's total, or how to count it: counted only when the answer carries it. */
export type Total = number | (() => Promise<number>);

export async function envelope<T>(data: T[], total: Total, paging: Paging): Promise<Envelope<T>> {
  const n = typeof total === 'number' ? total : await total();
  return { data, total_count: n, page_count: Math.ceil(n / paging.perPage) };
}

/**
 * Schema lists answer a bare array unless `include_total_count=true` (the public API's convention); the
 * total is counted only then.
 */
export async function schemaList<T>(
  data: T[],
  total: Total,
  paging: Paging,
  query: unknown,
): Promise<T[] | Envelope<T>> {
  const count = field(query, 'include_total_count');
  const want = count === true || count === 'true';
  return want ? envelope(data, total, paging) : data;
}
