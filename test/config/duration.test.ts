import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDuration, MAX_DURATION_MS, parseDuration } from '../../src/types/duration.js';
import { validateTexts } from './helpers.js';

/** `grant_for` durations: the grammar, its limits and hints; the round trip with formatDuration. */
describe('parseDuration', () => {
  it.each<[string, number]>([
    ['45s', 45_000],
    ['30m', 1_800_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['1s', 1000],
    ['3650d', MAX_DURATION_MS],
    ['0012h', 43_200_000],
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each<[string, string, string | undefined]>([
    ['12 hours', 'invalid duration "12 hours"', 'write 12h'],
    ['12H', 'invalid duration "12H"', 'write 12h'],
    [' 30m', 'invalid duration " 30m"', 'write 30m'],
    ['2 days', 'invalid duration "2 days"', 'write 2d'],
    ['1h30m', 'invalid duration "1h30m"', undefined],
    ['1.5h', 'invalid duration "1.5h"', undefined],
    ['-1h', 'invalid duration "-1h"', undefined],
    ['12', 'invalid duration "12"', undefined],
    ['h', 'invalid duration "h"', undefined],
    ['', 'invalid duration ""', undefined],
    ['1w', 'invalid duration "1w"', undefined],
    [
      '0s',
      'a duration of 0s would expire every grant at once',
      'give a positive duration, or leave grant_for out for grants that never expire',
    ],
    ['3651d', 'duration 3651d is longer than ten years (3650d)', 'leave grant_for out for grants that never expire'],
    ['99999999999999999999d', 'longer than ten years', 'leave grant_for out for grants that never expire'],
  ])('%j is refused: %s', (text, message, hint) => {
    const r = parseDuration(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toContain(message);
    expect(r.hint).toBe(hint);
  });

  it('formatDuration writes what parseDuration reads back, in the largest whole unit', () => {
    expect(formatDuration(129_600_000)).toBe('36h');
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(90_000)).toBe('90s');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3650 * 86_400 }), (seconds) => {
        const text = formatDuration(seconds * 1000);
        expect(parseDuration(text)).toEqual({ ok: true, ms: seconds * 1000 });
      }),
    );
  });
});

describe('grant_for in the configuration', () => {
  const config = (grantFor: string) =>
    `roles: { admin: {} }\naccess_requests:\n  default: { reviewer_roles: [admin], grant_for: ${grantFor} }\n`;

  it('a valid duration reaches the desired state as written', () => {
    expect(validateTexts(config('12h')).desired?.accessRequests.get('default')).toEqual({
      key: 'default',
      name: 'default',
      reviewerRoles: ['admin'],
      grantFor: '12h',
    });
    expect(
      validateTexts(
        'roles: { admin: {} }\naccess_requests: { default: { reviewer_roles: [admin] } }\n',
      ).desired?.accessRequests.get('default')?.grantFor,
    ).toBeUndefined();
  });

  it('a number is a schema error (a string with a unit is needed); a bad string a rule error, both at file:line:column', () => {
    const number = validateTexts(config('12'));
    expect(number.errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.message}`)).toEqual([
      'a.yaml:3:50 expected a string, found the number 12',
    ]);
    const bad = validateTexts(config('soon'));
    expect(bad.errors.map((e) => `${e.file}:${e.line}:${e.column} ${e.path}`)).toEqual([
      'a.yaml:3:50 access_requests.default.grant_for',
    ]);
    expect(bad.desired).toBeUndefined();
  });
});
