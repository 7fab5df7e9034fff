/** What apply progress says, in words (src/apply/progress.ts), and the plan's cost line (pure). */
import { describe, expect, it } from 'vitest';
import type { ApplyEvent } from '../../src/apply/apply.js';
import {
  advance,
  createLogProgress,
  FAILURE_LINES,
  interruptedLine,
  newProgress,
  PER_CHANGE_LINES,
  progressLine,
} from '../../src/apply/progress.js';
import { costLine, duration, plural } from '../../src/plan/render-common.js';
import type { Change } from '../../src/plan/change.js';
import type { Plan, PlanCost } from '../../src/plan/types.js';

const change = (i: number): Change => ({
  id: `tenant:t${i}`,
  kind: 'tenant',
  action: 'create',
  after: { key: `t${i}`, name: `t${i}` },
  dependsOn: [],
});
const ev = (type: 'start' | 'done' | 'failed', i: number): ApplyEvent =>
  type === 'failed' ? { type, change: change(i), error: 'boom' } : { type, change: change(i) };

describe('progress in words', () => {
  it('the ETA uses the plan estimate wording: 6 of 9,117 in 6 s leave about 2 h 32 min', () => {
    const s = newProgress(9117, 0);
    for (let i = 0; i < 6; i++) advance(s, ev('done', i));
    expect(progressLine(s, 6_000)).toBe(`6/9,117 done · ${duration(9111)} left`);
    expect(duration(9111)).toBe('about 2 h 32 min');
    const small = newProgress(2, 0);
    advance(small, ev('done', 0));
    expect(progressLine(small, 900_000)).toBe('1/2 done · about 15 min left');
  });

  it('a log gets one line per change up to PER_CHANGE_LINES changes', () => {
    const lines: string[] = [];
    const log = createLogProgress(
      3,
      (l) => lines.push(l),
      () => 0,
    );
    for (const i of [0, 1, 2]) log.onEvent(ev('start', i));
    log.onEvent(ev('done', 0));
    log.onEvent(ev('failed', 1));
    log.onEvent(ev('done', 2));
    expect(lines).toEqual(['created tenant:t0', 'FAILED create tenant:t1: boom', 'created tenant:t2']);
  });

  it('a big apply logs no line per change: the first failures, and a count line at most every 10 s', () => {
    const total = PER_CHANGE_LINES * 10;
    const lines: string[] = [];
    let t = 0;
    const log = createLogProgress(
      total,
      (l) => lines.push(l),
      () => t,
    );
    for (let i = 0; i < total; i++) {
      t += 10; // 10 ms a change: 20 s in all
      log.onEvent(ev('start', i));
      log.onEvent(ev(i % 50 === 0 ? 'failed' : 'done', i));
    }
    const failures = lines.filter((l) => l.startsWith('FAILED'));
    expect(failures).toHaveLength(FAILURE_LINES);
    expect(failures.at(-1)).toContain('(further failures: in the summary)');
    const counts = lines.filter((l) => / done/.test(l));
    expect(counts.length).toBeGreaterThanOrEqual(1);
    expect(counts.length).toBeLessThanOrEqual(2);
    expect(lines.length).toBeLessThan(30);
  });

  it('an interrupted apply says how far it got and that apply converges', () => {
    const s = newProgress(9117, 0);
    for (let i = 0; i < 6; i++) advance(s, ev('done', i));
    expect(interruptedLine(s)).toBe(
      'Interrupted: 6 of 9,117 changes applied; changes in flight may or may not have landed. Run apply again to converge: it plans from the live state.',
    );
  });
});

describe('the cost line', () => {
  const plan = (cost: PlanCost) => ({ changes: [change(0)], cost }) as unknown as Plan;
  it.each([
    [
      {
        requests: 11,
        byClass: { request: 11, write: 11, schemaWrite: 5, bulk: 3 },
        kinds: { 'schema write': 5, write: 3, 'bulk write': 3 },
        seconds: 240,
        limits: 'public',
        verify: 4,
      },
      "Applying it: 11 requests: 5 schema writes, 3 writes, 3 bulk writes; then 4 reads to verify; about 4 min, paced to the public service's rate limits.",
    ],
    [
      {
        requests: 12,
        byClass: { request: 12, write: 10, delete: 1 },
        kinds: { write: 9, delete: 1, read: 2 },
        seconds: 30,
        limits: 'public',
      },
      "Applying it: 12 requests: 9 writes, 1 delete, 2 reads; about 30 s, paced to the public service's rate limits.",
    ],
    // Issue #31: "2 requests, all writes (2 deletes and 2 bulk calls among them)" read as four requests;
    // issue #41: "(each also a delete and a bulk call)" was hard to read. Each request is named once.
    [
      {
        requests: 2,
        byClass: { request: 2, write: 2, delete: 2, bulk: 2 },
        kinds: { 'bulk delete': 2 },
        seconds: 2,
        limits: 'public',
      },
      "Applying it: 2 requests: 2 bulk deletes; about 2 s, paced to the public service's rate limits.",
    ],
    [
      {
        requests: 2,
        byClass: { request: 2, write: 2, delete: 1, bulk: 1 },
        kinds: { 'bulk write': 1, delete: 1 },
        seconds: 2,
        limits: 'public',
        verify: 14,
      },
      "Applying it: 2 requests: 1 bulk write, 1 delete; then 14 reads to verify; about 2 s, paced to the public service's rate limits.",
    ],
    [
      {
        requests: 9904,
        byClass: { request: 9904, write: 9904, bulk: 8704, schemaWrite: 1200 },
        kinds: { 'schema write': 1200, 'bulk write': 8704 },
        seconds: 2400,
        limits: 'public',
      },
      "Applying it: 9,904 requests: 1,200 schema writes, 8,704 bulk writes; about 40 min, paced to the public service's rate limits.",
    ],
    [
      {
        requests: 1,
        byClass: { request: 1, write: 1 },
        kinds: { write: 1 },
        seconds: 0,
        limits: 'public',
        paced: false,
        verify: 1,
      },
      "Applying it: 1 request: 1 write; then 1 read to verify; not paced against this service (under a second at the public service's rate limits).",
    ],
    // A plan saved before requests were counted by kind.
    [
      { requests: 3, byClass: { request: 3, write: 3 }, seconds: 3, limits: 'public' },
      "Applying it: 3 requests; about 3 s, paced to the public service's rate limits.",
    ],
  ] as [PlanCost, string][])('%j', (cost, expected) => {
    expect(costLine(plan(cost))).toBe(expected);
  });

  it('plural', () => {
    expect([plural(1, 'object'), plural(2, 'object'), plural(9117, 'change')]).toEqual([
      '1 object',
      '2 objects',
      '9,117 changes',
    ]);
  });
});
