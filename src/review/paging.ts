import { compareNewestFirst, type AccessRequest } from './request.js';

/** The queue's order: a queue is worked oldest first; `s` turns it around. The service lists newest first. */
export type Order = 'oldest' | 'newest';

/**
 * The rows of one tab, loaded page by page as the user scrolls (pure; no I/O). Two kinds:
 *
 * - `exact`: one list query and no client-side filter. Rows are addressed by index; the first page
 *   gives the total, and any page can be fetched on demand (so `G` on 10,000 rows fetches the last
 *   page only).
 * - `scan`: several queries merged newest first (decided = approved + denied), or a client-side filter
 *   (free words). Pages are read in order until enough rows match to fill the screen. No query at all
 *   (a filter that can match nothing) is an empty scan, complete from the start.
 *
 * Offset paging shows the service's list as it is when each page is read: rows may shift when the queue
 * changes underneath; `R` reloads.
 */

export type ListStatus = 'pending' | 'approved' | 'denied' | 'canceled';

export interface FeedQuery {
  status?: ListStatus;
  role?: string;
  resource?: string;
  /** `type:key` or a bare key. */
  resourceInstance?: string;
}

export interface FeedSpec {
  queries: FeedQuery[];
  /** Default `newest`, the service's own order; `oldest` reads its pages from the end. */
  order?: Order;
  /** Client-side filter; undefined keeps everything. */
  keep?: (r: AccessRequest) => boolean;
}

/** One page to read: of query `source`, page number `page` (1-based). */
export interface PageFetch {
  source: number;
  page: number;
}

type Slot = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'loaded'; items: AccessRequest[] };

export interface ExactFeed {
  kind: 'exact';
  spec: FeedSpec;
  perPage: number;
  /** Known once page 1 (or any page) has answered. */
  total?: number;
  pages: Readonly<Record<number, Slot>>;
}

export interface ScanSource {
  nextPage: number;
  loading: boolean;
  done: boolean;
  failed?: string;
  total?: number;
  /** Read but not yet merged. */
  buffer: AccessRequest[];
  /** Rows read so far. */
  read: number;
  /**
   * Oldest first: page 1 (read first, for the total) waits here until the pages after it, read from the
   * last one down, are merged; without a total every page is collected here and reversed at the end.
   */
  held: AccessRequest[];
  /** Oldest first, the total known: pages are read from the last down to 2. */
  descending: boolean;
}

export interface ScanFeed {
  kind: 'scan';
  spec: FeedSpec;
  perPage: number;
  sources: ScanSource[];
  /** Merged, filtered rows in order. */
  items: AccessRequest[];
}

export type Feed = ExactFeed | ScanFeed;

export function createFeed(spec: FeedSpec, perPage: number): Feed {
  if (spec.queries.length === 1 && !spec.keep) return { kind: 'exact', spec, perPage, pages: {} };
  return {
    kind: 'scan',
    spec,
    perPage,
    sources: spec.queries.map(() => ({ nextPage: 1, loading: false, done: false, buffer: [], read: 0, held: [], descending: false })),
    items: [],
  };
}

/** Rows known so far: the total for an exact feed, the merged rows for a scan. */
export function feedLength(feed: Feed): number {
  return feed.kind === 'exact' ? feed.total ?? 0 : feed.items.length;
}

/** The row's place in the service's list (newest first): its own, or counted from the end oldest first. */
function serviceIndex(feed: ExactFeed, index: number): number | undefined {
  if (feed.spec.order !== 'oldest') return index;
  return feed.total === undefined || index >= feed.total ? undefined : feed.total - 1 - index;
}

export function feedItem(feed: Feed, index: number): AccessRequest | undefined {
  if (feed.kind === 'scan') return feed.items[index];
  const at = serviceIndex(feed, index);
  if (at === undefined) return undefined;
  const slot = feed.pages[Math.floor(at / feed.perPage) + 1];
  return slot?.state === 'loaded' ? slot.items[at % feed.perPage] : undefined;
}

/** Whether a row that is not loaded is on its way or failed (for placeholders). */
export function rowState(feed: Feed, index: number): 'loaded' | 'loading' | 'failed' {
  if (feedItem(feed, index)) return 'loaded';
  if (feed.kind === 'scan') return feed.sources.some((s) => s.failed) ? 'failed' : 'loading';
  const at = serviceIndex(feed, index);
  return at !== undefined && feed.pages[Math.floor(at / feed.perPage) + 1]?.state === 'failed' ? 'failed' : 'loading';
}

/** True when every row is known: nothing more will load. */
export function feedComplete(feed: Feed): boolean {
  if (feed.kind === 'exact') return feed.total !== undefined;
  return feed.sources.every((s) => s.done && s.buffer.length === 0);
}

export interface FeedSummary {
  /** Rows that can be shown now. */
  rows: number;
  /** The exact number of rows of this tab, when known. */
  total?: number;
  /** A scan with a client-side filter that has not read everything: rows read / rows to read. */
  scanning?: { read: number; of?: number };
  /** The first failure, when a page could not be read. */
  failed?: string;
}

export function summarizeFeed(feed: Feed): FeedSummary {
  if (feed.kind === 'exact') {
    const failed = Object.values(feed.pages).find((s) => s.state === 'failed') as { message: string } | undefined;
    return { rows: feed.total ?? 0, total: feed.total, failed: failed?.message };
  }
  const failed = feed.sources.find((s) => s.failed)?.failed;
  const totals = feed.sources.map((s) => s.total);
  const allKnown = totals.every((t) => t !== undefined);
  const sum = allKnown ? totals.reduce((a, b) => a! + b!, 0) : undefined;
  if (feedComplete(feed)) return { rows: feed.items.length, total: feed.items.length, failed };
  if (!feed.spec.keep) return { rows: feed.items.length, total: sum, failed };
  return { rows: feed.items.length, scanning: { read: feed.sources.reduce((a, s) => a + s.read, 0), of: sum }, failed };
}

/**
 * The pages to read so that rows [from, to) can show, marked as loading in the returned feed. Failed
 * pages are not retried here (see `retryFailed`), so a broken service is not hammered.
 */
export function planFetches(feed: Feed, from: number, to: number): { feed: Feed; fetches: PageFetch[] } {
  const fetches: PageFetch[] = [];
  if (feed.kind === 'exact') {
    const wanted: number[] = [];
    if (feed.total === undefined) wanted.push(1);
    else {
      let first = Math.max(0, from);
      let last = Math.min(to, feed.total) - 1;
      // Oldest first: rows [from, to) are the service's rows counted from the end.
      if (feed.spec.order === 'oldest') [first, last] = [feed.total - 1 - last, feed.total - 1 - first];
      for (let p = Math.floor(first / feed.perPage) + 1; p <= Math.floor(last / feed.perPage) + 1 && last >= 0 && first <= last; p++) wanted.push(p);
    }
    const missing = wanted.filter((p) => feed.pages[p] === undefined);
    if (missing.length === 0) return { feed, fetches };
    const pages = { ...feed.pages };
    for (const p of missing) (pages[p] = { state: 'loading' }), fetches.push({ source: 0, page: p });
    return { feed: { ...feed, pages }, fetches };
  }
  if (feed.items.length >= to || feedComplete(feed)) return { feed, fetches };
  const sources = feed.sources.map((s, i) => {
    if (s.done || s.loading || s.failed || s.buffer.length > 0) return s;
    fetches.push({ source: i, page: s.nextPage });
    return { ...s, loading: true };
  });
  return fetches.length === 0 ? { feed, fetches } : { feed: { ...feed, sources }, fetches };
}

/** A page answered. `total` is the list's `total_count` when the service sent one. */
export function receivePage(feed: Feed, fetch: PageFetch, items: AccessRequest[], total: number | undefined): Feed {
  if (feed.kind === 'exact') {
    // Without a count (a bare array), the rows end at the first short page.
    const known = total ?? (items.length < feed.perPage ? (fetch.page - 1) * feed.perPage + items.length : feed.total ?? fetch.page * feed.perPage + 1);
    return { ...feed, total: known, pages: { ...feed.pages, [fetch.page]: { state: 'loaded', items } } };
  }
  const sources = feed.sources.map((s, i) => {
    if (i !== fetch.source || fetch.page !== s.nextPage) return s;
    const read = s.read + items.length;
    const base = { ...s, loading: false, failed: undefined, total: total ?? s.total, read };
    if (feed.spec.order === 'oldest') return receiveBackwards(base, fetch.page, items, feed.perPage);
    const done = items.length < feed.perPage || (total !== undefined && read >= total);
    return { ...base, nextPage: s.nextPage + 1, done, buffer: [...s.buffer, ...items] };
  });
  return drain({ ...feed, sources });
}

export function failPage(feed: Feed, fetch: PageFetch, message: string): Feed {
  if (feed.kind === 'exact') return { ...feed, pages: { ...feed.pages, [fetch.page]: { state: 'failed', message } } };
  return { ...feed, sources: feed.sources.map((s, i) => (i === fetch.source ? { ...s, loading: false, failed: message } : s)) };
}

/** Forget failures, so the next `planFetches` asks again. */
export function retryFailed(feed: Feed): Feed {
  if (feed.kind === 'exact') {
    const pages = Object.fromEntries(Object.entries(feed.pages).filter(([, s]) => s.state !== 'failed'));
    return { ...feed, pages };
  }
  return { ...feed, sources: feed.sources.map((s) => (s.failed ? { ...s, failed: undefined } : s)) };
}

/**
 * Oldest first over a list the service gives newest first: page 1 tells the total; then the pages are
 * read from the last down to 2, each reversed, and page 1 comes last. Without a total, every page is
 * collected and the whole list reversed once it has ended.
 */
function receiveBackwards(s: ScanSource, page: number, items: AccessRequest[], perPage: number): ScanSource {
  const reversed = (xs: AccessRequest[]) => [...xs].reverse();
  if (s.descending) {
    const next = page - 1;
    const buffer = [...s.buffer, ...reversed(items)];
    return next <= 1 ? { ...s, nextPage: 1, done: true, buffer: [...buffer, ...reversed(s.held)], held: [] } : { ...s, nextPage: next, buffer };
  }
  const held = [...s.held, ...items];
  const last = s.total !== undefined ? Math.max(1, Math.ceil(s.total / perPage)) : undefined;
  if (page === 1 && last !== undefined && last > 1) return { ...s, held, descending: true, nextPage: last };
  if (items.length < perPage || (last !== undefined && page >= last)) return { ...s, done: true, held: [], buffer: [...s.buffer, ...reversed(held)] };
  return { ...s, held, nextPage: page + 1 };
}

/** Moves buffered rows into `items`, in the feed's order, while every unfinished source has a row to compare. */
function drain(feed: ScanFeed): ScanFeed {
  const sources = feed.sources.map((s) => ({ ...s, buffer: [...s.buffer] }));
  const items = [...feed.items];
  const keep = feed.spec.keep;
  for (;;) {
    const open = sources.filter((s) => !(s.done && s.buffer.length === 0));
    if (open.length === 0 || open.some((s) => s.buffer.length === 0)) break;
    let best = open[0];
    const sign = feed.spec.order === 'oldest' ? -1 : 1;
    for (const s of open) if (sign * compareNewestFirst(s.buffer[0], best.buffer[0]) < 0) best = s;
    const item = best.buffer.shift()!;
    if (!keep || keep(item)) items.push(item);
  }
  return { ...feed, sources, items };
}
