import { ApiError } from '../errors.js';
import type { ApiClient, Query } from './types.js';
import { BOOLEAN, expectListItems, ID, optional, STRING, type Shape } from './answer.js';

/**
 * Reading the change history: the public API log `GET /v2/history` (api-notes, "Change history";
 * docs/service-api.md). Its retention and whether a key may read it are not documented, so every way of
 * not reading it is an answer with a reason, never an error: the caller then reads everything.
 */

/** The writes: what can change the live state. */
export const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The largest page the public API gives. */
const PER_PAGE = 100;
/** How many calls a read takes at most, by default: past it, reading everything is as cheap. */
export const HISTORY_BUDGET = 1000;

/** One call of the history, as Roster uses it. */
export interface HistoryEvent {
  id: string;
  /** ISO 8601, as the service gave it. */
  timestamp: string;
  method: string;
  /** The path called (no query). */
  path: string;
  /** The HTTP status; 0 on roster serve: in flight, or its answer was never recorded (a change all the same). */
  status: number;
  success: boolean;
  actor: { type: string; id: string; name?: string };
  project?: string;
  environment?: string;
  envId?: string;
  requestId?: string;
}

export type HistoryRead =
  | {
      readable: true;
      /** Oldest first (time, then id), each call once. */
      events: HistoryEvent[];
      /** Requests sent. */
      requests: number;
    }
  | {
      readable: false;
      /** Why not, in a phrase that completes "the change history was not read: …". */
      reason: string;
      requests: number;
    };

export interface HistoryQuery {
  /** Calls at or after this time (to its second: the API filters by whole seconds). */
  since: Date;
  /** Calls up to this time (to its second); no end by default. */
  until?: Date;
  /** Only calls answered with these statuses (roster serve lists a call in flight with status 0). */
  statusCodes?: readonly number[];
  /** Only this environment's calls (its id; roster serve takes its key too). */
  envId?: string;
  /** Methods to list; default the writes. */
  methods?: readonly string[];
  /** The most calls worth reading (default 1,000): beyond it the answer is "too many". */
  budget?: number;
  /**
   * Ask first whether the history reaches back to `since` (one more request): when it holds no call at or
   * before it, calls after it may have been deleted (retention), and the answer is "not readable". Default true.
   */
  checkReach?: boolean;
}

const ITEM: Shape = {
  id: ID,
  timestamp: STRING,
  method: STRING,
  path: STRING,
  status: { expected: 'a number', fits: (v) => typeof v === 'number' },
  success: optional(BOOLEAN),
  actor_type: optional(STRING),
  actor_id: optional(ID),
};

interface Item {
  id: string | number;
  timestamp: string;
  method: string;
  path: string;
  status: number;
  success?: boolean | null;
  actor_type?: string | null;
  actor_id?: string | number | null;
  actor_display_name?: string | null;
  project_key?: string | null;
  env_key?: string | null;
  env_id?: string | null;
  request_id?: string | null;
}
interface Page {
  data: Item[];
  total_count?: number;
  pagination_count?: number;
}

/**
 * The calls since `since`, oldest first: page by page (100 each, newest first as the API lists them) to
 * the end. The pages' end is not fixed by a `timestamp_until` (the client's clock is not the service's):
 * paging goes on until a short page, so that calls arriving meanwhile, which push older ones to later
 * pages, cost a repeated item (kept once) and never a missed one. A 403 or 404 is "no history", with
 * the reason; so is a history holding more than the budget, or one that does not reach back to `since`.
 */
export async function readHistorySince(client: ApiClient, q: HistoryQuery): Promise<HistoryRead> {
  const budget = q.budget ?? HISTORY_BUDGET;
  const from = Math.floor(q.since.getTime() / 1000);
  const base: Query = {
    method: q.methods ?? WRITE_METHODS,
    ...(q.envId !== undefined ? { env_id: q.envId } : {}),
    ...(q.until !== undefined ? { timestamp_until: Math.floor(q.until.getTime() / 1000) } : {}),
    ...(q.statusCodes !== undefined ? { status_code: q.statusCodes } : {}),
  };
  let requests = 0;
  const page = async (query: Query, n: number): Promise<Page> => {
    requests++;
    return client.get<Page>('/v2/history', { query, expect: expectListItems(ITEM, n) });
  };
  try {
    if (q.checkReach !== false && from > 0) {
      // Any call before `since`, whatever its environment: retention deletes the oldest calls of all.
      const before = await page({ timestamp_until: from - 1, page: 1, per_page: 1 }, 1);
      if ((before.total_count ?? before.data.length) === 0)
        return {
          readable: false,
          reason: `the history holds no call before ${q.since.toISOString()}: calls after it may have been deleted (its retention)`,
          requests,
        };
    }
    const seen = new Map<string, HistoryEvent>();
    for (let n = 1; ; n++) {
      const got = await page({ ...base, timestamp_from: from, page: n, per_page: PER_PAGE }, n);
      const total = Math.max(got.total_count ?? 0, seen.size + got.data.length);
      if (total > budget || (got.pagination_count !== undefined && total > got.pagination_count))
        return {
          readable: false,
          reason: `${total} calls since ${q.since.toISOString()}, more than the budget of ${budget}`,
          requests,
        };
      for (const item of got.data) seen.set(String(item.id), eventOf(item));
      if (got.data.length < PER_PAGE) break;
    }
    return { readable: true, events: [...seen.values()].sort(byTime), requests };
  } catch (err) {
    const status = err instanceof ApiError ? err.info.status : undefined;
    if (status === 403) return { readable: false, reason: 'this API key may not read it (403)', requests };
    if (status === 404) return { readable: false, reason: 'the service keeps none (404)', requests };
    throw err;
  }
}

/**
 * How many writes the history lists between two times (whole seconds, both as the API takes them): one
 * request, a one-item page's `total_count`. Undefined when the answer does not say (no `total_count`):
 * the caller then reads the calls themselves. A 403 or 404 throws, as any other refusal.
 */
export async function countHistory(
  client: ApiClient,
  q: { fromSec: number; untilSec: number },
): Promise<number | undefined> {
  const got = await client.get<Page>('/v2/history', {
    query: { method: WRITE_METHODS, timestamp_from: q.fromSec, timestamp_until: q.untilSec, page: 1, per_page: 1 },
    expect: expectListItems(ITEM, 1),
  });
  return typeof got.total_count === 'number' ? got.total_count : undefined;
}

/**
 * One call's request or response body (`GET /v2/history/{id}/request|response`), parsed when it is JSON:
 * the public answer is the body as a string (roster serve) or the body itself; undefined for none.
 */
export async function readHistoryBody(client: ApiClient, id: string, which: 'request' | 'response'): Promise<unknown> {
  const body = await client.get<unknown>(`/v2/history/${encodeURIComponent(id)}/${which}`);
  if (typeof body !== 'string') return body;
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

const byTime = (a: HistoryEvent, b: HistoryEvent) =>
  a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

function eventOf(item: Item): HistoryEvent {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    id: String(item.id),
    timestamp: item.timestamp,
    method: item.method.toUpperCase(),
    path: item.path.split('?')[0],
    status: item.status,
    success: typeof item.success === 'boolean' ? item.success : item.status >= 200 && item.status < 400,
    actor: {
      type: text(item.actor_type) ?? 'unknown',
      id: item.actor_id === undefined || item.actor_id === null ? '' : String(item.actor_id),
      ...(text(item.actor_display_name) ? { name: text(item.actor_display_name) } : {}),
    },
    ...(text(item.project_key) ? { project: text(item.project_key) } : {}),
    ...(text(item.env_key) ? { environment: text(item.env_key) } : {}),
    ...(text(item.env_id) ? { envId: text(item.env_id) } : {}),
    ...(text(item.request_id) ? { requestId: text(item.request_id) } : {}),
  };
}
