/**
 * When to retry an attempt, and how long to wait first. Pure: the client feeds it outcomes, a random
 * source and a clock.
 */

/** What one attempt ended with, as far as retrying cares. */
export type AttemptOutcome =
  { kind: 'response'; status: number; retryAfter?: string } | { kind: 'network'; code: string };

export interface AttemptJudgement {
  /** Another attempt may help. */
  retryable: boolean;
  /**
   * The server may have carried the attempt out even though we saw no success (a reset after the request
   * was sent, a timeout, a 5xx from behind a gateway). A create retried after such an attempt that meets
   * 409 is our own earlier attempt: it counts as done.
   */
  mayHaveApplied: boolean;
}

/** The request never left: the connection was not established. Safe to retry any method. */
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
]);
/** The attempt never reached the service (refused, no route): any method may be tried again. */
export function isConnectError(code: string): boolean {
  return CONNECT_ERRORS.has(code);
}

/** Our own per-attempt deadline expired (see client.ts). */
export const ATTEMPT_TIMEOUT = 'ATTEMPT_TIMEOUT';
/** The client gave up on the service after attempts in a row without an answer (breaker.ts). */
export const UNREACHABLE = 'UNREACHABLE';

/** The request may have reached the server: retry only what is safe to repeat. */
const IN_FLIGHT_ERRORS = new Set([
  ATTEMPT_TIMEOUT,
  // A 2xx read answer that was truncated or of the wrong shape (client.ts); only reads are judged so.
  'MALFORMED_ANSWER',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
/** The server says it did not do the work (rate limited, unavailable): safe to retry any method. */
const NOT_APPLIED_STATUSES = new Set([429, 503]);
/**
 * The work may or may not have happened. 500 is here on purpose: it is often a deterministic bug, but
 * retrying a GET/PUT/DELETE costs little, while repeating a plain POST could create twice.
 */
const MAYBE_APPLIED_STATUSES = new Set([500, 502, 504]);

export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']);

/**
 * Judges one failed attempt. `idempotent` is true for GET/PUT/PATCH/DELETE, and for a POST the caller
 * marked as an idempotent create (or as idempotent outright).
 */
export function judgeAttempt(outcome: AttemptOutcome, idempotent: boolean): AttemptJudgement {
  if (outcome.kind === 'network') {
    if (CONNECT_ERRORS.has(outcome.code)) return { retryable: true, mayHaveApplied: false };
    if (IN_FLIGHT_ERRORS.has(outcome.code)) return { retryable: idempotent, mayHaveApplied: true };
    return { retryable: false, mayHaveApplied: true };
  }
  if (NOT_APPLIED_STATUSES.has(outcome.status)) return { retryable: true, mayHaveApplied: false };
  if (MAYBE_APPLIED_STATUSES.has(outcome.status)) return { retryable: idempotent, mayHaveApplied: true };
  return { retryable: false, mayHaveApplied: false };
}

export const BACKOFF_BASE_MS = 200;
export const BACKOFF_CAP_MS = 10_000;
/** A Retry-After longer than this is not waited out: the error goes to the user instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * "Full jitter" exponential backoff: a uniform delay in [0, min(cap, base·2^(n-1))) after the n-th
 * failed attempt. Spreads clients that failed together instead of retrying them in lockstep.
 */
export function backoffDelay(failedAttempt: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (failedAttempt - 1));
  return Math.floor(random() * ceiling);
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * The wait before the next attempt: at least what the server asked for in `Retry-After`, at least the
 * jittered backoff. Undefined when the server asked for longer than we are willing to wait.
 */
export function retryDelay(options: {
  failedAttempt: number;
  retryAfter?: string;
  now: number;
  random: () => number;
}): number | undefined {
  const backoff = backoffDelay(options.failedAttempt, options.random);
  const asked = parseRetryAfter(options.retryAfter, options.now);
  if (asked === undefined) return backoff;
  if (asked > MAX_RETRY_AFTER_MS) return undefined;
  return Math.max(asked, backoff);
}
