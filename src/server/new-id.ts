import { randomFillSync } from 'node:crypto';

/**
 * Ids for new rows: UUIDs of version 7 (RFC 9562), the millisecond first, so that ids made later sort
 * later. Every table's primary key (and the indexes that end with an id) then grows at its end instead
 * of at a random place: a write touches the last pages of those indexes rather than one page anywhere
 * in each, which at 100,000 users was most of the pages an apply from empty wrote (docs/performance.md).
 * Still a UUID to every reader (the public API types ids as `uuid`, any version). Not for access
 * requests: reviewers name one by the start of its id, and ids made in the same minute share theirs.
 */
export const newId = (now: number = Date.now()): string => rows.next(now);

/**
 * A generator of UUIDv7 ids: 48 bits of milliseconds, then a 12-bit counter within the millisecond
 * (`rand_a`, RFC 9562 method 1), then 62 random bits. The ids of one generator increase: past 4,096 in
 * one millisecond, or when the clock goes back, the clock part moves on from the last one. The decision
 * log has its own (its `ts` comes from its clock); rows share `newId`'s.
 */
export function monotonicIds(): { next(ms: number): string } {
  let lastMs = -1;
  let counter = 0;
  return {
    next(ms: number) {
      if (ms > lastMs) {
        lastMs = ms;
        counter = 0;
      } else if (++counter > 0xfff) {
        lastMs += 1;
        counter = 0;
      }
      const r = random8();
      const time = hex(lastMs, 12);
      const variant = hex(0x8000 | ((r[0] & 0x3f) << 8) | r[1], 4);
      return `${time.slice(0, 8)}-${time.slice(8)}-7${hex(counter, 3)}-${variant}-${r.toString('hex', 2, 8)}`;
    },
  };
}

const rows = monotonicIds();

/** Random bytes drawn 4 KB at a time: one call into the system's generator per 512 ids. */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function random8(): Buffer {
  if (poolAt + 8 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 8;
  return pool.subarray(poolAt - 8, poolAt);
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
