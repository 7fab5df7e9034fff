import { describe, expect, it } from 'vitest';
import { newId } from '../../src/server/new-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId (UUID version 7)', () => {
  it('is a version-7, RFC-variant UUID whose first 48 bits are the millisecond', () => {
    const at = Date.UTC(2026, 10, 26, 8, 0, 0, 123);
    const id = newId(at + 10_000_000);
    expect(id).toMatch(V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(at + 10_000_000);
  });

  it('sorts in the order made: within a millisecond, across milliseconds, and past 4,096 in one millisecond', () => {
    const base = Date.now() + 20_000_000;
    const ms = [
      ...Array(5000).fill(base),
      ...Array(3).fill(base + 1),
      base + 5,
      base + 5,
      base + 2 /* the clock going back */,
    ];
    const ids = ms.map((t) => newId(t));
    for (const id of ids) expect(id).toMatch(V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
