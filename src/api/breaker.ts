/**
 * Noticing that the service is gone. Each request retries on its own; without a shared view, an apply
 * with 2,000 changes left against a dead service would try each one six times (about 13 minutes). The
 * breaker counts attempts that got no HTTP answer at all, in a row, across every request of the client;
 * past the threshold (or after a stretch with no answer) every request fails at once with UNREACHABLE,
 * and the apply stops and says what it applied. It counts time as well as attempts: eight requests in
 * flight make ten failed attempts within a second, and a service restarting for a second or two must
 * not stop an apply that a plan (a few requests, each retrying for several seconds) would wait out.
 */

export interface BreakerOptions {
  /** Attempts in a row without an HTTP answer after which the service counts as gone; default 10. */
  maxConsecutiveFailures?: number;
  /** ...reached only once this long has passed since the first of them; default 8 s (what a plan's retries wait). */
  minSilenceMs?: number;
  /** Time without any HTTP answer, with at least 3 failed attempts, after which it counts as gone; default 45 s. */
  maxSilenceMs?: number;
  now: () => number;
}

export interface Breaker {
  /** An HTTP answer came (any status): the service is there. */
  answered(): void;
  /** An attempt got no answer; `detail` says how (ECONNREFUSED, a timeout). */
  failed(detail: string): void;
  /** Why the service counts as gone, or undefined while it does not. */
  tripped(): string | undefined;
}

export function createBreaker(options: BreakerOptions): Breaker {
  const max = options.maxConsecutiveFailures ?? 10;
  const silence = options.maxSilenceMs ?? 45_000;
  const minSilence = options.minSilenceMs ?? 8_000;
  let consecutive = 0;
  let firstFailureAt = 0;
  let last = '';
  let reason: string | undefined;
  return {
    answered() {
      if (reason === undefined) consecutive = 0;
    },
    failed(detail) {
      if (reason !== undefined) return;
      if (consecutive === 0) firstFailureAt = options.now();
      consecutive++;
      last = detail;
      const quiet = options.now() - firstFailureAt;
      if ((consecutive >= max && quiet >= minSilence) || (consecutive >= 3 && quiet >= silence)) {
        reason = `the service stopped answering: ${consecutive} attempts in a row over ${Math.round(quiet / 1000)} s got no answer (last: ${last})`;
      }
    },
    tripped: () => reason,
  };
}
