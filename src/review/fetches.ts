import { compareNewestFirst, type AccessRequest } from './request.js';
import { feedComplete, type Feed, type ScanFeed, type ScanSource } from './paging.js';

/**
 * A feed's page reads, pure: which pages to ask for next (`planFetches`, marking them loading), and each
 * answer or failure folded back in. The controller does the reading (source.ts `listPage`); the reducer
 * plans in `settle` (model.ts) and folds the answers in (answers.ts).
 */

/** One page to read: of query `source`, page number `page` (1-based). */
export interface PageFetch {
  source: number;
  page: number;
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
      for (
        let p = Math.floor(first / feed.perPage) + 1;
        p <= Math.floor(last / feed.perPage) + 1 && last >= 0 && first <= last;
        p++
      )
        wanted.push(p);
    }
    const missing = wanted.filter((p) => feed.pages[p] === undefined);
    if (missing.length === 0) return { feed, fetches };
    const pages = { ...feed.pages };
    for (const p of missing) ((pages[p] = { state: 'loading' }), fetches.push({ source: 0, page: p }));
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
    const known =
      total ??
      (items.length < feed.perPage
        ? (fetch.page - 1) * feed.perPage + items.length
        : (feed.total ?? fetch.page * feed.perPage + 1));
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
  return {
    ...feed,
    sources: feed.sources.map((s, i) => (i === fetch.source ? { ...s, loading: false, failed: message } : s)),
  };
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
    return next <= 1
      ? { ...s, nextPage: 1, done: true, buffer: [...buffer, ...reversed(s.held)], held: [] }
      : { ...s, nextPage: next, buffer };
  }
  const held = [...s.held, ...items];
  const last = s.total !== undefined ? Math.max(1, Math.ceil(s.total / perPage)) : undefined;
  if (page === 1 && last !== undefined && last > 1) return { ...s, held, descending: true, nextPage: last };
  if (items.length < perPage || (last !== undefined && page >= last))
    return { ...s, done: true, held: [], buffer: [...s.buffer, ...reversed(held)] };
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
