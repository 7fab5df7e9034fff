/**
 * Client-side pacing under the public service's published rate limits (api-notes.md): one limiter per
 * category, and a request waits until every category it belongs to lets it through.
 *
 * Each limiter is a token bucket written as GCRA (a "theoretical arrival time" per bucket), which makes
 * it loop-free: `acquire` decides the send time synchronously, reserves it in every bucket, then sleeps
 * once. A bucket holds `burst` tokens and refills at `(limit - burst) / window`, so in ANY window of that
 * length at most `burst + (limit - burst) = limit` requests are sent, however the server aligns its
 * windows. `headroom` (default 0.9) keeps us a further 10% under the published figure, for clock and
 * latency skew between our send times and the server's arrival times.
 */

export type PacingCategory = 'request' | 'write' | 'delete' | 'schemaWrite' | 'bulk';

export interface RateLimit {
  limit: number;
  windowMs: number;
  /** Share of the limit that may go at once (the bucket's size); default 0.1. The rest refills over the window. */
  burstShare?: number;
}

export type RateLimits = Partial<Record<PacingCategory, RateLimit>>;

/**
 * The public service's published limits. Reads come in bursts (a plan reads its whole environment at
 * once, about 250 requests for 10,000 users), so a third of the request limit may go at once: a plan
 * is not held back, and a long read still averages 600 a minute; writes are spread out more evenly.
 */
export const PUBLIC_LIMITS: Readonly<Required<RateLimits>> = {
  request: { limit: 1000, windowMs: 60_000, burstShare: 1 / 3 },
  write: { limit: 300, windowMs: 60_000 },
  delete: { limit: 60, windowMs: 60_000 },
  schemaWrite: { limit: 40, windowMs: 60_000 },
  bulk: { limit: 100, windowMs: 600_000 },
};

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The categories one request counts against. The path is the API path (`/v2/...`), query excluded.
 * `POST /allowed` is a decision query, not a write, so it only counts as a request.
 */
export function categorize(method: string, path: string): PacingCategory[] {
  const categories: PacingCategory[] = ['request'];
  const upper = method.toUpperCase();
  const isWrite = !READ_METHODS.has(upper) && !/(^|\/)allowed(\/|$)/.test(path);
  if (isWrite) categories.push('write');
  if (upper === 'DELETE') categories.push('delete');
  if (isWrite && path.includes('/v2/schema/')) categories.push('schemaWrite');
  if (/\/bulk(\/|$)/.test(path)) categories.push('bulk');
  return categories;
}

/** What one request is, in the cost line's words (src/plan/render-common.ts), in the order it lists them. */
export const REQUEST_KINDS = [
  'schema write',
  'write',
  'bulk write',
  'schema delete',
  'delete',
  'bulk delete',
  'read',
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

/**
 * One kind per request, where the classes of `categorize` overlap (a bulk delete is a write, a delete and
 * a bulk call): counted by kind, the requests add up to their number, which a sum of classes does not.
 */
export function requestKind(method: string, path: string): RequestKind {
  const classes = categorize(method, path);
  if (!classes.includes('write')) return 'read';
  const del = classes.includes('delete');
  if (classes.includes('bulk')) return del ? 'bulk delete' : 'bulk write';
  if (classes.includes('schemaWrite')) return del ? 'schema delete' : 'schema write';
  return del ? 'delete' : 'write';
}

interface Bucket {
  /** Minimum spacing between sends once the burst is spent. */
  intervalMs: number;
  /** How far ahead of its theoretical arrival time a send may go: (burst - 1) intervals. */
  toleranceMs: number;
  /** Theoretical arrival time of the next send. */
  tat: number;
}

function bucketFor(rate: RateLimit, headroom: number, now: number): Bucket {
  const limit = Math.max(1, Math.floor(rate.limit * headroom));
  const burst = Math.max(1, Math.floor(limit * Math.min(1, rate.burstShare ?? 0.1)));
  // Limits under 2 per window cannot keep burst + refill within the limit; they send one per window.
  const intervalMs = rate.windowMs / Math.max(1, limit - burst);
  return { intervalMs, toleranceMs: (burst - 1) * intervalMs, tat: now };
}

export interface Pacer {
  /** Waits until the request may be sent; resolves with the milliseconds waited (0 when none). */
  acquire(method: string, path: string): Promise<number>;
}

export interface PacerOptions {
  limits: RateLimits;
  /** Fraction of each published limit to use; default 0.9. */
  headroom?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function createPacer(options: PacerOptions): Pacer {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const headroom = options.headroom ?? 0.9;
  const buckets = new Map<PacingCategory, Bucket>();
  for (const [category, rate] of Object.entries(options.limits) as Array<[PacingCategory, RateLimit | undefined]>) {
    if (rate) buckets.set(category, bucketFor(rate, headroom, now()));
  }

  return {
    async acquire(method, path) {
      const t = now();
      const mine = categorize(method, path)
        .map((c) => buckets.get(c))
        .filter((b): b is Bucket => b !== undefined);
      // The send time is the earliest moment every bucket conforms; it is reserved in all of them at
      // once (synchronously, so concurrent callers cannot both take the same slot).
      let sendAt = t;
      for (const b of mine) sendAt = Math.max(sendAt, b.tat - b.toleranceMs);
      for (const b of mine) b.tat = Math.max(b.tat, sendAt) + b.intervalMs;
      const wait = sendAt - t;
      if (wait > 0) await sleep(wait);
      return wait;
    },
  };
}
