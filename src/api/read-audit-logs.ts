import type { ApiClient } from './types.js';
import { expectListPage } from './answer.js';

/** The public audit-log API answers no page past its 10,000th result: the count bound of a replay. */
export const REPLAY_MAX_DECISIONS = 10_000;
/** Its largest page. */
const PER_PAGE = 100;
/** Pages in flight at once (within the client's own concurrency and pacing). */
const PARALLEL = 4;

interface Item {
  id?: string;
  timestamp?: string;
  user_key?: string;
  action?: string;
  resource_type?: string;
  tenant?: string;
  decision?: boolean;
  input?: unknown;
}

interface Page {
  data: Item[];
  total_count?: number;
  page_count?: number;
  pagination_count?: number;
}

/**
 * The decisions of a window, newest first, through `GET /v2/pdps/{p}/{e}/audit_logs` (public, paged by
 * 100, 4 pages at a time through the client, which paces them under the public rate limits). At most
 * `max` (and never past the API's 10,000): when the window holds more, the newest are read and the
 * answer says so. The window's end is fixed at the start, so decisions made while paging do not shift
 * the pages; an item met twice is kept once.
 */
export async function readRecentDecisions(
  client: ApiClient,
  scope: { project: string; environment: string },
  window: { since: Date; until: Date; max?: number },
): Promise<ReplayRead> {
  const max = Math.min(window.max ?? REPLAY_MAX_DECISIONS, REPLAY_MAX_DECISIONS);
  const path = `/v2/pdps/${encodeURIComponent(scope.project)}/${encodeURIComponent(scope.environment)}/audit_logs`;
  const query = (page: number) => ({
    timestamp_from: Math.floor(window.since.getTime() / 1000),
    timestamp_to: Math.floor(window.until.getTime() / 1000),
    sort_by: 'timestamp',
    page,
    per_page: PER_PAGE,
  });
  let requests = 0;
  const fetchPage = async (page: number): Promise<Page> => {
    requests++;
    return client.get<Page>(path, { query: query(page), expect: expectListPage });
  };
  const first = await fetchPage(1);
  const total = first.total_count ?? first.data.length;
  const wanted = Math.min(max, total);
  const pages: Item[][] = [first.data];
  const last = Math.min(Math.ceil(wanted / PER_PAGE), first.page_count ?? Math.ceil(total / PER_PAGE));
  let next = 2;
  const worker = async () => {
    while (next <= last) {
      const page = next++;
      pages[page - 1] = (await fetchPage(page)).data;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const seen = new Set<string>();
  const decisions: LoggedDecision[] = [];
  for (const item of pages.flat()) {
    if (decisions.length >= max) break;
    if (item.id !== undefined) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
    }
    decisions.push(toDecision(item));
  }
  return {
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    total,
    decisions,
    truncated: total > decisions.length,
    requests,
  };
}

/** The instance comes from the input the decision point was given (`resource.key`, or `"type:key"`). */
function toDecision(item: Item): LoggedDecision {
  const resource = (item.input as { resource?: unknown } | undefined)?.resource;
  let key: string | undefined;
  if (typeof resource === 'string')
    key = resource.includes(':') ? resource.slice(resource.indexOf(':') + 1) : undefined;
  else if (resource && typeof resource === 'object') {
    const k = (resource as { key?: unknown }).key;
    key = typeof k === 'string' && k !== '' ? k : undefined;
  }
  return {
    id: String(item.id ?? ''),
    timestamp: String(item.timestamp ?? ''),
    ...(typeof item.user_key === 'string' ? { user: item.user_key } : {}),
    ...(typeof item.action === 'string' ? { action: item.action } : {}),
    ...(typeof item.resource_type === 'string' ? { type: item.resource_type } : {}),
    ...(key !== undefined ? { key } : {}),
    ...(typeof item.tenant === 'string' ? { tenant: item.tenant } : {}),
    ...(typeof item.decision === 'boolean' ? { decision: item.decision } : {}),
    input: item.input,
  };
}

/** One decision as the audit log gives it (fields the public item may leave out are optional). */
export interface LoggedDecision {
  id: string;
  timestamp: string;
  user?: string;
  action?: string;
  type?: string;
  /** From the input: `input.resource.key`; absent for a check on the type (tenant-wide). */
  key?: string;
  tenant?: string;
  decision?: boolean;
  input?: unknown;
}

export interface ReplayRead {
  since: string;
  until: string;
  /** Decisions in the window, as the service counted them. */
  total: number;
  decisions: LoggedDecision[];
  /** True when the window held more than the count bound: the newest `decisions.length` were read. */
  truncated: boolean;
  requests: number;
}
