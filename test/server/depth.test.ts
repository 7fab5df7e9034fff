import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depthOver, MAX_BODY_DEPTH } from '../../src/server/depth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok } from './builders.js';

/**
 * Bodies nested deeper than MAX_BODY_DEPTH answer 422 on every store (src/server/depth.ts): deeper
 * free-form values used to overflow JSON.stringify's stack when written, and answer 500.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

/** `{"a": {"a": ... 1}}`, `levels` objects deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('body nesting', () => {
  it('a user whose attributes reach the limit is written and read back', async () => {
    // The body itself is one level: attributes may nest MAX_BODY_DEPTH - 1 more.
    ok(await s.facts('POST', '/users', `{"key":"deep","attributes":${nested(MAX_BODY_DEPTH - 1)}}`));
    const read = ok(await s.facts('GET', '/users/deep'));
    expect(JSON.stringify(read.attributes)).toBe(nested(MAX_BODY_DEPTH - 1));
  });

  it.each([MAX_BODY_DEPTH, 10_000, 300_000])(
    'attributes %i levels deep answer 422 and write nothing',
    async (levels) => {
      const r = await s.facts('POST', '/users', `{"key":"deeper","attributes":${nested(levels)}}`);
      expectInvalid(r, ['body']);
      expect(r.body.detail[0].type).toBe('too_deep');
      expectError(await s.facts('GET', '/users/deeper'), 404, 'NOT_FOUND');
    },
  );

  it('arrays count as levels too, on any endpoint', async () => {
    const arrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expectInvalid(await s.facts('POST', '/tenants', `{"key":"t9","name":"t","attributes":{"x":${arrays(10_000)}}}`), [
      'body',
    ]);
    expectInvalid(await s.call('PUT', '/v2/facts/p/e/bulk/users', arrays(MAX_BODY_DEPTH + 1)), ['body']);
  });
});

describe('depthOver', () => {
  it.each([
    [1, 0, false],
    [{}, 1, false],
    [{}, 0, true],
    [{ a: [1, { b: 2 }] }, 3, false],
    [{ a: [1, { b: 2 }] }, 2, true],
    [[[], [[]]], 2, true],
  ])('%j, max %i: %s', (value, max, over) => expect(depthOver(value, max)).toBe(over));
});
