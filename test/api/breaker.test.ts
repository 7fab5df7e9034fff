import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createBreaker } from '../../src/api/breaker.js';
import { expectListPage, expectObject, malformedRead, parseBody } from '../../src/api/answer.js';

describe('the breaker (a service that is gone)', () => {
  it('trips after the threshold of failures in a row, and stays tripped', () => {
    let t = 0;
    const b = createBreaker({ maxConsecutiveFailures: 3, minSilenceMs: 0, now: () => t });
    b.failed('ECONNREFUSED: a');
    t += 500;
    b.failed('ECONNREFUSED: b');
    expect(b.tripped()).toBeUndefined();
    t += 500;
    b.failed('ECONNREFUSED: c');
    expect(b.tripped()).toBe(
      'the service stopped answering: 3 attempts in a row over 1 s got no answer (last: ECONNREFUSED: c)',
    );
    b.answered();
    expect(b.tripped()).toBeDefined();
  });

  it('counts time as well as attempts: ten refusals within a second (a restart) do not trip it, the same over 8 s do', () => {
    let t = 0;
    const b = createBreaker({ now: () => t });
    for (let i = 0; i < 30; i++) {
      b.failed('ECONNREFUSED: x');
      t += 50;
    }
    expect(b.tripped()).toBeUndefined();
    t = 8_000;
    b.failed('ECONNREFUSED: y');
    expect(b.tripped()).toBe(
      'the service stopped answering: 31 attempts in a row over 8 s got no answer (last: ECONNREFUSED: y)',
    );
  });

  it('an answer in between resets the count', () => {
    const b = createBreaker({ maxConsecutiveFailures: 3, minSilenceMs: 0, now: () => 0 });
    b.failed('x');
    b.failed('x');
    b.answered();
    b.failed('x');
    b.failed('x');
    expect(b.tripped()).toBeUndefined();
  });

  it('slow failures (timeouts) trip it after the silence limit, with at least 3 of them', () => {
    let t = 0;
    const b = createBreaker({ maxConsecutiveFailures: 100, maxSilenceMs: 45_000, now: () => t });
    b.failed('ATTEMPT_TIMEOUT: a');
    t = 60_000;
    b.failed('ATTEMPT_TIMEOUT: b');
    expect(b.tripped()).toBeUndefined();
    b.failed('ATTEMPT_TIMEOUT: c');
    expect(b.tripped()).toMatch(/^the service stopped answering: 3 attempts in a row over 60 s/);
  });

  it('never trips while answers keep coming (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 200 }), (outcomes) => {
        const b = createBreaker({ maxConsecutiveFailures: 4, minSilenceMs: 0, now: () => 0 });
        let run = 0;
        let longest = 0;
        for (const ok of outcomes) {
          if (ok) b.answered();
          else b.failed('x');
          run = ok ? 0 : run + 1;
          longest = Math.max(longest, run);
        }
        expect(b.tripped() !== undefined).toBe(longest >= 4);
      }),
    );
  });
});

describe('judging a 2xx read answer', () => {
  it.each([
    ['', 'an empty body where JSON was expected'],
    ['{"data": [1, 2', 'a body that is not valid JSON (truncated or garbled)'],
    ['<!doctype html><p>sign in', 'HTML where JSON was expected (a proxy or login page in front of the service?)'],
    ['[1, 2]', undefined],
  ])('%j → %s', (text, expected) => {
    expect(malformedRead(parseBody(text))).toBe(expected);
  });

  it('list pages and objects by shape', () => {
    expect(expectListPage([])).toBeUndefined();
    expect(expectListPage({ data: [], total_count: 0 })).toBeUndefined();
    expect(expectListPage({ items: [] })).toBe(
      'JSON of the wrong shape (an object with keys items, where a list page, an array or {data: [...]}, was expected)',
    );
    expect(expectListPage('x')).toContain('a string');
    expect(expectObject(null)).toBe('JSON of the wrong shape (null, where an object was expected)');
    expect(expectObject([])).toContain('an array');
    expect(expectObject({ project_id: 'p' })).toBeUndefined();
  });
});
