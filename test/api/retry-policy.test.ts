import { describe, expect, it } from 'vitest';
import { backoffDelay, judgeAttempt, parseRetryAfter, retryDelay } from '../../src/api/retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it.each([
    ['1', 1000],
    [' 30 ', 30_000],
    ['1.5', 1500],
    ['Tue, 01 Jan 2030 00:00:10 GMT', 10_000],
    ['Mon, 31 Dec 2029 23:00:00 GMT', 0],
    ['soon', undefined],
    [undefined, undefined],
  ])('%j → %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('backoff', () => {
  it('doubles from 200 ms up to a 10 s cap, scaled by the jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, () => 0.999999))).toEqual([
      199, 399, 799, 1599, 3199, 6399, 9999, 9999,
    ]);
    expect(backoffDelay(3, () => 0)).toBe(0);
  });

  it('waits at least Retry-After, and refuses one over a minute', () => {
    expect(retryDelay({ failedAttempt: 1, retryAfter: '2', now: 0, random: () => 1 })).toBe(2000);
    expect(retryDelay({ failedAttempt: 8, retryAfter: '1', now: 0, random: () => 0.9 })).toBe(9000);
    expect(retryDelay({ failedAttempt: 1, retryAfter: '61', now: 0, random: () => 0 })).toBeUndefined();
  });
});

describe('judgeAttempt', () => {
  it.each([
    [{ kind: 'network', code: 'ECONNREFUSED' }, false, { retryable: true, mayHaveApplied: false }],
    [{ kind: 'network', code: 'ECONNRESET' }, false, { retryable: false, mayHaveApplied: true }],
    [{ kind: 'network', code: 'ECONNRESET' }, true, { retryable: true, mayHaveApplied: true }],
    [{ kind: 'network', code: 'ATTEMPT_TIMEOUT' }, true, { retryable: true, mayHaveApplied: true }],
    [{ kind: 'network', code: 'ENOTFOUND' }, true, { retryable: false, mayHaveApplied: true }],
    [{ kind: 'response', status: 429 }, false, { retryable: true, mayHaveApplied: false }],
    [{ kind: 'response', status: 503 }, false, { retryable: true, mayHaveApplied: false }],
    [{ kind: 'response', status: 500 }, false, { retryable: false, mayHaveApplied: true }],
    [{ kind: 'response', status: 500 }, true, { retryable: true, mayHaveApplied: true }],
    [{ kind: 'response', status: 502 }, true, { retryable: true, mayHaveApplied: true }],
    [{ kind: 'response', status: 504 }, false, { retryable: false, mayHaveApplied: true }],
    [{ kind: 'response', status: 404 }, true, { retryable: false, mayHaveApplied: false }],
    [{ kind: 'response', status: 409 }, true, { retryable: false, mayHaveApplied: false }],
  ] as const)('%j idempotent=%s → %j', (outcome, idempotent, expected) => {
    expect(judgeAttempt(outcome, idempotent)).toEqual(expected);
  });
});
