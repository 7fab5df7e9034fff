/**
 * The replay's headline (src/plan/render-replay.ts): decisions read and the distinct questions they ask
 * kept apart, and an empty window saying something (issue #41: "7 of 273 recent decisions change (…; 446
 * logged decisions read)", "0 of 0").
 */
import { describe, expect, it } from 'vitest';
import type { PlanReplay, ReplayedDecision } from '../../src/plan/replay.js';
import { replayMarkdownLines, replayTextLines } from '../../src/plan/render-replay.js';

const changed = (user: string): ReplayedDecision =>
  ({
    user,
    action: 'read',
    resource: 'document:q3',
    times: 2,
    allowedTimes: 2,
    last: '2026-11-25T09:00:00.000Z',
    logged: true,
    before: true,
    after: false,
    why: [],
  }) as ReplayedDecision;
const replay = (over: Partial<PlanReplay>): PlanReplay => ({
  since: '2026-11-18T09:00:00.000Z',
  until: '2026-11-25T10:00:00.000Z',
  read: 446,
  total: 446,
  truncated: false,
  requests: 5,
  distinct: 273,
  changes: [],
  disagreements: [],
  unreplayable: [],
  ...over,
});
const headline = (r: PlanReplay) => replayTextLines(r)[0];

describe('the replay headline', () => {
  it.each([
    [
      'some change',
      replay({ changes: [changed('bob'), changed('carol')] }),
      'Recent decisions: 446 logged since 2026-11-18 09:00 UTC (read in 5 requests), asking 273 distinct questions; the plan changes the answer to 2 of them:',
    ],
    [
      'none change',
      replay({}),
      'Recent decisions: 446 logged since 2026-11-18 09:00 UTC (read in 5 requests), asking 273 distinct questions; the plan changes none of their answers.',
    ],
    [
      'one question',
      replay({ read: 3, total: 3, requests: 1, distinct: 1, changes: [changed('bob')] }),
      'Recent decisions: 3 logged since 2026-11-18 09:00 UTC (read in 1 request), asking 1 distinct question; the plan changes its answer:',
    ],
    [
      'an empty window',
      replay({ read: 0, total: 0, requests: 1, distinct: 0 }),
      'Recent decisions: none logged since 2026-11-18 09:00 UTC (read in 1 request), so there is nothing to replay; a longer window (--replay=30d) reads further back.',
    ],
    [
      'some not replayable',
      replay({ unreplayable: [{ reason: 'r', decisions: 12, examples: ['x'] }] }),
      'Recent decisions: 446 logged since 2026-11-18 09:00 UTC (read in 5 requests), asking 273 distinct questions (12 decisions not replayable, below); the plan changes none of their answers.',
    ],
    [
      'none replayable',
      replay({
        read: 12,
        total: 12,
        requests: 1,
        distinct: 0,
        unreplayable: [{ reason: 'r', decisions: 12, examples: ['x'] }],
      }),
      'Recent decisions: 12 logged since 2026-11-18 09:00 UTC (read in 1 request), none of which can be replayed (below).',
    ],
    [
      'more than is read',
      replay({ read: 10000, total: 23000, truncated: true, requests: 100, distinct: 4000 }),
      'Recent decisions: the newest 10,000 of 23,000 logged since 2026-11-18 09:00 UTC (read in 100 requests; shorten --replay to read them all), asking 4,000 distinct questions; the plan changes none of their answers.',
    ],
    [
      'an empty window of 90 days',
      replay({ since: '2026-08-27T10:00:00.000Z', read: 0, total: 0, requests: 1, distinct: 0 }),
      'Recent decisions: none logged since 2026-08-27 10:00 UTC (read in 1 request), so there is nothing to replay; a longer window reads further back.',
    ],
  ])('%s', (_, r, expected) => {
    expect(headline(r)).toBe(expected);
  });

  it('the Markdown comment says the same, as a sentence', () => {
    expect(replayMarkdownLines(replay({ read: 0, total: 0, requests: 1, distinct: 0 }))[2]).toBe(
      'None logged since 2026-11-18 09:00 UTC (read in 1 request), so there is nothing to replay; a longer window (--replay=30d) reads further back.',
    );
  });
});
