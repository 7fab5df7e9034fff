import { ApiError, NoApiError } from '../errors.js';
import type { ApiClient } from '../api/index.js';
import { readHistorySince, type HistoryEvent } from '../api/read-history.js';

export type ChangesRead = { ok: true; calls: HistoryEvent[]; serverTime: number } | { ok: false; reason: string };

interface Page {
  data?: unknown[];
  total_count?: number;
}

/**
 * What changed since `sinceSec` (epoch seconds): the changes made in the web UI (`GET /v2/activity`,
 * any of them reads everything: they are not API calls) and the writes through the API
 * (`readHistorySince`, src/api/read-history.ts), with the service's time before either was read (the
 * activity answer's `Date` header; the client's clock when it sends none): the time of the next snapshot.
 * Every way of not reading them (403, 404, more than `maxCalls`, a failure) is a reason, not an error.
 *
 * The history's reach is not asked (`checkReach`): a fresh service holds no call before the snapshot,
 * which is no loss. Calls after the snapshot are not lost to retention while the snapshot is younger than
 * the history's age limit (`--refresh-max-age`, 7 days, under roster serve's 30) and `maxCalls` is under
 * its count limit (1,000 under 100,000): a count limit reached since the snapshot is over the budget.
 */
export async function readChangesSince(
  client: ApiClient,
  options: { sinceSec: number; maxCalls: number; now?: () => number },
): Promise<ChangesRead> {
  const now = options.now ?? Date.now;
  try {
    const activity = await client.request<Page>('GET', '/v2/activity', {
      query: { timestamp_from: options.sinceSec, page: 1, per_page: 1 },
      expect: (b) =>
        b !== null && typeof b === 'object' && Array.isArray((b as Page).data) ? undefined : 'an answer without data',
    });
    const date = Date.parse(activity.headers.date ?? '');
    const serverTime = Number.isFinite(date) ? date : now();
    const ui = activity.data?.total_count ?? activity.data?.data?.length ?? 0;
    if (ui > 0)
      return { ok: false, reason: `the activity log lists ${ui} change(s) made in the web UI since the snapshot` };
    const history = await readHistorySince(client, {
      since: new Date(options.sinceSec * 1000),
      budget: options.maxCalls,
      checkReach: false,
    });
    if (!history.readable) return { ok: false, reason: `the change history was not read: ${history.reason}` };
    return { ok: true, calls: history.events, serverTime };
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
