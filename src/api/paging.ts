import { InternalError } from '../errors.js';

/**
 * Paging through a list in either answer form (api-notes.md, "Lists"):
 * - a bare array: keep asking for the next page until one has fewer than `perPage` items;
 * - the envelope `{data, total_count, page_count}`: page 1 tells how many pages there are, and the rest
 *   are fetched a few at a time in parallel.
 */

export interface Envelope<T> {
  data: T[];
  total_count?: number;
  page_count?: number;
}

export function isEnvelope(value: unknown): value is Envelope<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as { data?: unknown }).data)
  );
}

/** A guard against a server that ignores `page` and answers the same full page forever. */
const MAX_PAGES = 10_000;

function pageCountOf(envelope: Envelope<unknown>, perPage: number): number | undefined {
  if (typeof envelope.page_count === 'number') return envelope.page_count;
  if (typeof envelope.total_count === 'number') return Math.ceil(envelope.total_count / perPage);
  return undefined;
}

function itemsOf<T>(answer: unknown, page: number): T[] {
  if (Array.isArray(answer)) return answer as T[];
  if (isEnvelope(answer)) return answer.data as T[];
  throw new InternalError(`page ${page} of a list was neither an array nor {data: [...]}`);
}

export async function fetchAllPages<T>(options: {
  fetchPage: (page: number) => Promise<unknown>;
  perPage: number;
  /** Pages fetched at once once the page count is known; default 4. */
  parallel?: number;
}): Promise<T[]> {
  const { fetchPage, perPage } = options;
  const first = await fetchPage(1);
  const firstItems = itemsOf<T>(first, 1);
  const known = isEnvelope(first) ? pageCountOf(first, perPage) : undefined;

  if (known !== undefined) {
    if (known > MAX_PAGES) throw new InternalError(`a list announced ${known} pages, more than ${MAX_PAGES}`);
    const pages: T[][] = [firstItems];
    let next = 2;
    const worker = async (): Promise<void> => {
      while (next <= known) {
        const page = next++;
        pages[page - 1] = itemsOf<T>(await fetchPage(page), page);
      }
    };
    const parallel = Math.max(1, options.parallel ?? 4);
    await Promise.all(Array.from({ length: Math.min(parallel, Math.max(0, known - 1)) }, worker));
    return pages.flat();
  }

  // Count unknown: walk one page at a time.
  const items = [...firstItems];
  let last = firstItems.length;
  for (let page = 2; last >= perPage; page++) {
    if (page > MAX_PAGES) throw new InternalError(`a list did not end after ${MAX_PAGES} pages`);
    const got = itemsOf<T>(await fetchPage(page), page);
    items.push(...got);
    last = got.length;
  }
  return items;
}
