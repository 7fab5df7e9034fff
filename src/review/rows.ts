import type { DecisionIntent } from './decisions.js';
import type { Tab } from './filter.js';
import { feedComplete, feedItem, feedLength, rowState } from './paging.js';
import type { AccessRequest } from './request.js';
import { grantOf } from './revoke.js';
import { CHROME_ROWS, type QueueState } from './state.js';

/**
 * The queue's rows as the screen and the reducer read them (pure selectors over the state): the list's
 * height, which request each row shows (rows decided away are stepped over, a decision's answer wins over
 * its page), the rows on screen, a tab's count, and a request by id.
 */

/** Rows of the list area at the current terminal size. */
export function listHeight(s: Pick<QueueState, 'rows'>): number {
  return Math.max(1, s.rows - CHROME_ROWS);
}

export function rowCount(s: QueueState): number {
  return Math.max(0, feedLength(s.feed) - s.gone.length);
}

/** The feed's index of the `index`-th row shown: the rows that left (`gone`) are stepped over. */
export function feedIndex(s: Pick<QueueState, 'gone'>, index: number): number {
  let at = index;
  for (const g of s.gone) if (g <= at) at++;
  return at;
}

/** The request at `index` as last known (a decision's answer wins over the page it came on). */
export function requestAt(s: QueueState, index: number): AccessRequest | undefined {
  const r = feedItem(s.feed, feedIndex(s, index));
  return r && (s.overlay[r.id] ?? r);
}

export function selected(s: QueueState): AccessRequest | undefined {
  return requestAt(s, s.cursor);
}

export interface VisibleRow {
  index: number;
  request?: AccessRequest;
  state: 'loaded' | 'loading' | 'failed';
  selected: boolean;
  inflight?: DecisionIntent;
  /** Pending requests among the rows read with this one's requester, role and place (2 or more: duplicates). */
  duplicates?: number;
  /** Approved, and its grant is gone (grantGone). */
  revoked?: true;
}

/**
 * An approved request whose grant is no longer a role assignment of its requester: revoked (`roster
 * requests revoke`), expired (grant_for) or removed by an apply. The service records no revocation (the
 * request stays approved), so it is read from the requester's roles, once they are loaded; false before.
 */
export function grantGone(s: Pick<QueueState, 'people'>, r: AccessRequest): boolean {
  if (r.status !== 'approved') return false;
  const person = s.people[r.requester];
  if (person?.state !== 'loaded') return false;
  const grant = grantOf(r);
  const on = grant.resource_instance ?? null;
  return !person.value.assignments.some(
    (a) => a.role === grant.role && a.tenant === grant.tenant && a.resource_instance === on,
  );
}

/** The requester, role and place a duplicate shares (the configuration aside: the grant would be the same). */
export const duplicateKey = (r: AccessRequest) =>
  `${r.requester}\u0000${r.role}\u0000${r.resource ?? ''}\u0000${r.instance ?? ''}\u0000${r.tenant}`;

/** Every row read so far, as last known (pure). */
export function loadedRequests(s: QueueState): AccessRequest[] {
  const f = s.feed;
  const rows =
    f.kind === 'scan' ? f.items : Object.values(f.pages).flatMap((p) => (p.state === 'loaded' ? p.items : []));
  return rows.map((r) => s.overlay[r.id] ?? r);
}

/** The pending requests read so far, by duplicate key: which rows are duplicates of each other. */
export function pendingByKey(s: QueueState): Map<string, AccessRequest[]> {
  const out = new Map<string, AccessRequest[]>();
  for (const r of loadedRequests(s)) {
    if (r.status !== 'pending' || s.inflight[r.id]) continue;
    const k = duplicateKey(r);
    const same = out.get(k);
    if (same) {
      if (!same.some((x) => x.id === r.id)) same.push(r);
    } else out.set(k, [r]);
  }
  return out;
}

/** Only the rows on screen: a queue of 10,000 renders `listHeight` rows. */
export function visibleRows(s: QueueState): VisibleRow[] {
  const out: VisibleRow[] = [];
  const end = Math.min(rowCount(s), s.top + listHeight(s));
  const same = pendingByKey(s);
  for (let i = s.top; i < end; i++) {
    const request = requestAt(s, i);
    const duplicates = request ? (same.get(duplicateKey(request))?.length ?? 0) : 0;
    const revoked = request !== undefined && grantGone(s, request);
    out.push({
      index: i,
      request,
      state: request ? 'loaded' : rowState(s.feed, feedIndex(s, i)),
      selected: i === s.cursor,
      inflight: request && s.inflight[request.id],
      ...(duplicates > 1 ? { duplicates } : {}),
      ...(revoked ? { revoked } : {}),
    });
  }
  return out;
}

/** The count of a tab to show: the service's, or for the tab on screen once its list is read whole, its rows. */
export function tabCount(s: QueueState, tab: Tab): number | undefined {
  if (tab === s.tab && !s.filter.text && feedComplete(s.feed)) return rowCount(s);
  return s.counts[tab];
}

/** The feed index of a loaded request, by id. */
export function feedIndexOf(s: QueueState, id: string): number | undefined {
  const n = feedLength(s.feed);
  for (let i = 0; i < n; i++) if (feedItem(s.feed, i)?.id === id) return i;
  return undefined;
}

/** The request with this id among the loaded rows (the prompt's request, even if the cursor moved). */
export function findRequest(s: QueueState, id: string): AccessRequest | undefined {
  if (s.overlay[id]) return s.overlay[id];
  // By feed position, not by row: rows shift up when a decided request leaves the queue.
  const at = feedIndexOf(s, id);
  return at === undefined ? undefined : feedItem(s.feed, at);
}
