import type { AccessRequest } from './request.js';

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
 *
 * Here: the feed's shape and the rows it holds so far. Reading its pages (which to ask for, each answer
 * folded in) is fetches.ts.
 */

export type ListStatus = 'pending' | 'approved' | 'denied' | 'canceled';

export interface FeedQuery {
  status?: ListStatus;
  role?: string;
  resource?: string;
  /** `type:key` or a bare key. */
  resourceInstance?: string;
  /** The element configuration to list in; absent: the source's own. */
  config?: string;
}

export interface FeedSpec {
  queries: FeedQuery[];
  /** Default `newest`, the service's own order; `oldest` reads its pages from the end. */
  order?: Order;
  /** Client-side filter; undefined keeps everything. */
  keep?: (r: AccessRequest) => boolean;
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
    sources: spec.queries.map(() => ({
      nextPage: 1,
      loading: false,
      done: false,
      buffer: [],
      read: 0,
      held: [],
      descending: false,
    })),
    items: [],
  };
}

/** Rows known so far: the total for an exact feed, the merged rows for a scan. */
export function feedLength(feed: Feed): number {
  return feed.kind === 'exact' ? (feed.total ?? 0) : feed.items.length;
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
