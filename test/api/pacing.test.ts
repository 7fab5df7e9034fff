import { describe, expect, it } from 'vitest';
import { categorize, createPacer, PUBLIC_LIMITS, type RateLimits } from '../../src/api/pacing.js';

/** A fake clock: sleeping advances it, nothing really waits. */
function fakeClock(start = 0) {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    slept,
  };
}

/** The most sends that fall in any window [s, s + windowMs) of the given sorted send times. */
function busiestWindow(times: number[], windowMs: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('categorize', () => {
  it.each([
    ['GET', '/v2/schema/p/e/resources', ['request']],
    ['POST', '/v2/schema/p/e/resources', ['request', 'write', 'schemaWrite']],
    ['DELETE', '/v2/schema/p/e/roles/r', ['request', 'write', 'delete', 'schemaWrite']],
    ['PUT', '/v2/facts/p/e/users/u', ['request', 'write']],
    ['DELETE', '/v2/facts/p/e/users/u', ['request', 'write', 'delete']],
    ['POST', '/v2/facts/p/e/role_assignments/bulk', ['request', 'write', 'bulk']],
    ['DELETE', '/v2/facts/p/e/role_assignments/bulk', ['request', 'write', 'delete', 'bulk']],
    ['POST', '/allowed', ['request']],
    ['POST', '/allowed/bulk', ['request', 'bulk']],
  ])('%s %s → %j', (method, path, expected) => {
    expect(categorize(method, path)).toEqual(expected);
  });
});

describe('pacer', () => {
  it('lets a burst through at once, then spaces requests out', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ limits: { request: { limit: 20, windowMs: 1000 } }, headroom: 1, ...clock });
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) waits.push(await pacer.acquire('GET', '/v2/x'));
    // burst = 2, then one every 1000 / (20 - 2) ms.
    expect(waits.map(Math.round)).toEqual([0, 0, 56, 56, 56]);
  });

  it('never exceeds a limit in any window, sequential callers', async () => {
    const clock = fakeClock(1_000_000);
    const limits: RateLimits = { schemaWrite: { limit: 40, windowMs: 60_000 } };
    const pacer = createPacer({ limits, headroom: 1, ...clock });
    const sent: number[] = [];
    for (let i = 0; i < 300; i++) {
      await pacer.acquire('POST', '/v2/schema/p/e/roles');
      sent.push(clock.now());
    }
    expect(busiestWindow(sent, 60_000)).toBeLessThanOrEqual(40);
    // …while staying close to it: 300 sends take about (300 - 4) / 36 minutes.
    expect(sent.at(-1)! - sent[0]!).toBeLessThan(((300 - 4) / 36) * 60_000 + 1);
  });

  it('never exceeds a limit in any window, concurrent callers at one instant', async () => {
    const clock = fakeClock();
    const recorded: number[] = [];
    // Concurrent callers: the clock does not move; each send time is now + its wait.
    const pacer = createPacer({ limits: PUBLIC_LIMITS, now: clock.now, sleep: async () => {} });
    const waits = await Promise.all(
      Array.from({ length: 200 }, () => pacer.acquire('DELETE', '/v2/schema/p/e/roles/r')),
    );
    recorded.push(...waits);
    recorded.sort((a, b) => a - b);
    // Deletes under /v2/schema are schema writes too: 40/min with 10% headroom → 36 in any minute.
    expect(busiestWindow(recorded, 60_000)).toBeLessThanOrEqual(36);
    expect(busiestWindow(recorded, 60_000)).toBeGreaterThanOrEqual(35);
  });

  it('keeps categories apart: schema writes do not hold back reads or other writes', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ limits: PUBLIC_LIMITS, ...clock });
    for (let i = 0; i < 50; i++) await pacer.acquire('POST', '/v2/schema/p/e/resources');
    expect(clock.slept.length).toBeGreaterThan(40);
    expect(await pacer.acquire('GET', '/v2/schema/p/e/resources')).toBe(0);
    expect(await pacer.acquire('POST', '/v2/facts/p/e/users')).toBe(0);
    expect(await pacer.acquire('POST', '/v2/schema/p/e/resources')).toBeGreaterThan(0);
  });

  it('paces bulk calls at 100 per 10 minutes', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ limits: PUBLIC_LIMITS, ...clock });
    const sent: number[] = [];
    for (let i = 0; i < 250; i++) {
      await pacer.acquire('POST', '/v2/facts/p/e/role_assignments/bulk');
      sent.push(clock.now());
    }
    expect(busiestWindow(sent, 600_000)).toBeLessThanOrEqual(90);
    expect(busiestWindow(sent, 60_000)).toBeLessThanOrEqual(300 * 0.9);
  });

  it("lets a third of the public request limit through at once (a plan's reads), and still no more than the limit in any minute", async () => {
    const clock = fakeClock();
    const pacer = createPacer({ limits: PUBLIC_LIMITS, ...clock });
    const sent: number[] = [];
    for (let i = 0; i < 2000; i++) {
      await pacer.acquire('GET', '/v2/facts/p/e/users');
      sent.push(clock.now());
    }
    expect(sent.filter((t) => t === 0)).toHaveLength(300);
    expect(busiestWindow(sent, 60_000)).toBeLessThanOrEqual(900);
    // …and 600 a minute after the burst.
    expect(sent.at(-1)!).toBeGreaterThan(((2000 - 300) / 600) * 60_000 - 200);
  });

  it('refills while idle, up to the burst only', async () => {
    const clock = fakeClock();
    const pacer = createPacer({ limits: { request: { limit: 100, windowMs: 1000 } }, headroom: 1, ...clock });
    for (let i = 0; i < 50; i++) await pacer.acquire('GET', '/v2/x');
    await clock.sleep(60_000);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) waits.push(await pacer.acquire('GET', '/v2/x'));
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
  });
});
