import { ApiError, NoApiError } from '../errors.js';
import type { ApiClient } from '../api/index.js';
import type { HistoryCall } from './touched.js';

/** The writes the change history lists (reads change nothing; asking for writes only keeps the pages few). */
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const PER_PAGE = 100;

export type ChangesRead =
  { ok: true; calls: HistoryCall[]; uiChanges: number; serverTime: number } | { ok: false; reason: string };

interface Page<T> {
  data?: T[];
  total_count?: number;
}

/**
 * The writes through the API since `sinceSec` (`GET /v2/history`, epoch seconds) and the changes made in
 * the web UI (`GET /v2/activity`), with the service's time when the history answered (its `Date`
 * header; the client's clock when it sends none). More than `maxCalls` writes: not read further.
 * A 403 or 404 (an environment key may not read the history, api-notes "Change history"), or any
 * other failure, is a reason, not an error: the caller reads everything instead.
 */
export async function readChangesSince(
  client: ApiClient,
  options: { sinceSec: number; maxCalls: number; now?: () => number },
): Promise<ChangesRead> {
  const now = options.now ?? Date.now;
  try {
    const first = await client.request<Page<HistoryCall>>('GET', '/v2/history', {
      query: { method: WRITE_METHODS, timestamp_from: options.sinceSec, page: 1, per_page: PER_PAGE },
      expect: envelope,
    });
    const date = Date.parse(first.headers.date ?? '');
    const serverTime = Number.isFinite(date) ? date : now();
    const calls = [...(first.data?.data ?? [])];
    const total = first.data?.total_count ?? calls.length;
    if (total > options.maxCalls) return overBudget(total, options.maxCalls);
    for (let page = 2; calls.length < total && (page - 1) * PER_PAGE < total; page++) {
      const next = await client.get<Page<HistoryCall>>('/v2/history', {
        query: { method: WRITE_METHODS, timestamp_from: options.sinceSec, page, per_page: PER_PAGE },
        expect: envelope,
      });
      const items = next.data ?? [];
      if (items.length === 0) break;
      calls.push(...items);
      if (calls.length > options.maxCalls) return overBudget(calls.length, options.maxCalls);
    }
    const activity = await client.get<Page<unknown>>('/v2/activity', {
      query: { timestamp_from: options.sinceSec, page: 1, per_page: 1 },
      expect: envelope,
    });
    const uiChanges = activity.total_count ?? activity.data?.length ?? 0;
    return { ok: true, calls, uiChanges, serverTime };
  } catch (err) {
    // A 404 without the service's own code (no such route) comes as NoApiError: the same "no history".
    const answer = err instanceof NoApiError ? err.answer : err instanceof ApiError ? err : undefined;
    if (!answer) throw err;
    const { status, path } = answer.info;
    if (status === 403 || status === 404)
      return { ok: false, reason: `the change history cannot be read with this API key (${status} on ${path})` };
    return { ok: false, reason: `the change history could not be read (${answer.message})` };
  }
}

const overBudget = (count: number, max: number): ChangesRead => ({
  ok: false,
  reason: `the change history lists ${count} writes since the snapshot, more than --refresh-max-calls (${max})`,
});

const envelope = (body: unknown) =>
  body !== null && typeof body === 'object' && Array.isArray((body as Page<unknown>).data)
    ? undefined
    : 'an answer without a data list';
