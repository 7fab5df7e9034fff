import { randomFillSync } from 'node:crypto';

/**
 * Ids for new rows: UUIDs of version 7 (RFC 9562), the millisecond first, so that ids made later sort
 * later. Every table's primary key (and the indexes that end with an id) then grows at its end instead
 * of at a random place: a write touches the last pages of those indexes rather than one page anywhere
 * in each, which at 100,000 users was most of the pages an apply from empty wrote (docs/performance.md).
 * Within one millisecond a 12-bit counter (`rand_a`, RFC 9562 method 1) keeps them in order; past 4,096
 * in a millisecond the clock part moves on by one. The last 62 bits are random. Still a UUID to every
 * reader (the public API types ids as `uuid`, any version).
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
let lastMs = 0;
let counter = 0;

function randomBytes8(): Buffer {
  if (poolAt + 8 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  poolAt += 8;
  return pool.subarray(poolAt - 8, poolAt);
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

export function newId(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    // Starts low in the millisecond (leaving room to count) but not at zero.
    counter = randomBytes8()[0] & 0x3ff;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const r = randomBytes8();
  const ms = hex(lastMs, 12);
  const tail = hex((r[0] & 0x3f) | 0x80, 2) + hex(r[1], 2);
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${hex(counter, 3)}-${tail}-${r.toString('hex', 2, 8)}`;
}
