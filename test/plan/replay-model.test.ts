/**
 * The replay's pure part (src/plan/replay.ts) and the decision check's sample (src/apply/verify-decisions.ts):
 * small graphs, table-driven.
 */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph, type AccessFacts } from '../../src/access/index.js';
import { replayDecisions, type LoggedDecision } from '../../src/plan/replay.js';
import { emptyLiveState } from '../../src/types/live.js';
import { planDecisionChecks, sample, verifyDecisions } from '../../src/apply/verify-decisions.js';
import { ago, replayedLine } from '../../src/plan/render-replay.js';

const facts = (over: Partial<AccessFacts> = {}): AccessFacts => ({
  roles: [
    { key: 'viewer', permissions: ['document:read'] },
    { key: 'editor', permissions: ['document:write'], extends: ['viewer'] },
  ],
  instances: [
    { id: 'document:q3', tenant: 'acme' },
    { id: 'document:x', tenant: 'acme' },
  ],
  tenantRoles: [],
  instanceRoles: [],
  memberships: [{ user: 'bob', group: 'team:eng' }],
  links: [],
  groupGrants: [{ group: 'team:eng', role: 'editor', instance: 'document:q3' }],
  ...over,
});
const ACTIONS = new Map([['document', ['read', 'write']]]);
/** The role tests' states: no set rules. */
const states = { before: emptyLiveState(), after: emptyLiveState() };
let n = 0;
const log = (
  user: string,
  action: string,
  resource: string,
  decision: boolean,
  extra: Partial<LoggedDecision> = {},
): LoggedDecision => {
  const [type, key] = resource.split(':');
  return {
    id: `l${n++}`,
    timestamp: `2026-11-2${n % 5}T10:00:00.000Z`,
    user,
    action,
    type,
    ...(key ? { key } : {}),
    decision,
    input: {},
    ...extra,
  };
};
const read = (decisions: LoggedDecision[]) => ({
  since: '2026-11-18T00:00:00.000Z',
  until: '2026-11-25T10:00:00.000Z',
  total: decisions.length,
  decisions,
  truncated: false,
  requests: 1,
});

describe('replayDecisions', () => {
  it('groups the distinct questions, and lists those the plan changes with the reason', () => {
    const before = buildAccessGraph(facts());
    const after = buildAccessGraph(facts({ memberships: [] }));
    const r = replayDecisions({
      read: read([
        log('bob', 'read', 'document:q3', true),
        log('bob', 'read', 'document:q3', true),
        log('bob', 'write', 'document:x', false),
        log('alice', 'read', 'document:q3', false),
      ]),
      before,
      after,
      actions: ACTIONS,
      states,
    });
    expect(r.distinct).toBe(3);
    expect(
      r.changes.map((c) => [c.user, c.action, c.resource, c.times, c.allowedTimes, c.before, c.after, c.why]),
    ).toEqual([['bob', 'read', 'document:q3', 2, 2, true, false, ['bob loses editor via team:eng']]]);
    expect(replayedLine(r.changes[0], r.until)).toMatch(
      /^bob read document:q3 \(allowed 2 times, last \d+ days? ago\) would be denied: bob loses editor via team:eng$/,
    );
    expect(r.disagreements).toEqual([]);
  });

  it('says when a role keeps its holder but no longer grants the permission', () => {
    const before = buildAccessGraph(facts());
    const after = buildAccessGraph(
      facts({
        roles: [
          { key: 'viewer', permissions: [] },
          { key: 'editor', permissions: ['document:write'], extends: ['viewer'] },
        ],
      }),
    );
    const r = replayDecisions({
      read: read([log('bob', 'read', 'document:q3', true)]),
      before,
      after,
      actions: ACTIONS,
      states,
    });
    expect(r.changes[0].why).toEqual(['editor no longer grants document:read']);
  });

  it('decides a check on a type by the tenant-wide roles in the tenant named, else default', () => {
    const tenant = (t: string) =>
      buildAccessGraph(facts({ tenantRoles: [{ user: 'carol', role: 'viewer', tenant: t }] }));
    const none = buildAccessGraph(facts());
    const r = replayDecisions({
      read: read([log('carol', 'read', 'document', true, { tenant: 'acme' }), log('carol', 'read', 'document', false)]),
      before: tenant('acme'),
      after: none,
      actions: ACTIONS,
      states,
    });
    expect(r.changes.map((c) => `${c.user} ${c.action} ${c.resource} in ${c.tenant}: ${c.why.join()}`)).toEqual([
      'carol read document in acme: carol loses viewer (tenant-wide in acme)',
    ]);
    expect(r.distinct).toBe(2);
  });

  it('names the decisions the model of the live state answers otherwise', () => {
    const g = buildAccessGraph(facts());
    const r = replayDecisions({
      read: read([log('alice', 'write', 'document:q3', true), log('bob', 'write', 'document:q3', false)]),
      before: g,
      after: g,
      actions: ACTIONS,
      states,
    });
    expect(r.changes).toEqual([]);
    expect(r.disagreements.map((d) => [d.user, d.logged, d.before]).sort()).toEqual([
      ['alice', true, false],
      ['bob', false, true],
    ]);
  });

  it.each([
    [
      log('bob', 'read', 'document:q3', true, { user: undefined }),
      'incomplete log entries (no user, action or resource type)',
    ],
    [
      log('bob', 'read', 'folder:f', true),
      "resource type 'folder' unknown to the configuration and the live environment",
    ],
    [log('bob', 'share', 'document:q3', true), "action 'share' unknown on document"],
  ])('counts and names what it cannot replay: %#', (d, reason) => {
    const g = buildAccessGraph(facts());
    const r = replayDecisions({
      read: read([d, log('bob', 'read', 'document:q3', true)]),
      before: g,
      after: g,
      actions: ACTIONS,
      states,
    });
    expect(r.unreplayable.map((u) => [u.reason, u.decisions])).toEqual([[reason, 1]]);
    expect(r.read).toBe(2);
    expect(r.distinct).toBe(1);
  });

  it.each([
    ['2026-11-25T09:59:30.000Z', '30 seconds ago'],
    ['2026-11-25T09:59:00.000Z', '1 minute ago'],
    ['2026-11-25T07:00:00.000Z', '3 hours ago'],
    ['2026-11-23T10:00:00.000Z', '2 days ago'],
  ])('ago(%s) = %s', (at, text) => expect(ago(at, '2026-11-25T10:00:00.000Z')).toBe(text));
});

describe('the decision check after apply', () => {
  it("asks every changed permission, expecting the plan's answer", () => {
    const { checks, total } = planDecisionChecks(
      buildAccessGraph(facts()),
      buildAccessGraph(facts({ memberships: [{ user: 'alice', group: 'team:eng' }] })),
    );
    expect(total).toBe(4);
    expect(checks.map((c) => `${c.sign}${c.user} ${c.action} ${c.permission} ${c.instance} ${c.expected}`)).toEqual([
      '+alice read document:read document:q3 true',
      '+alice write document:write document:q3 true',
      '-bob read document:read document:q3 false',
      '-bob write document:write document:q3 false',
    ]);
  });

  it('samples evenly beyond the bound, keeping the first', () => {
    const xs = Array.from({ length: 10 }, (_, i) => i);
    expect(sample(xs, 20)).toEqual(xs);
    expect(sample(xs, 5)).toEqual([0, 2, 4, 6, 8]);
    expect(sample(xs, 3)).toEqual([0, 3, 6]);
  });

  it('asks again only what disagrees, after each wait, within the budget', async () => {
    const { checks, total } = planDecisionChecks(
      buildAccessGraph(facts()),
      buildAccessGraph(facts({ memberships: [] })),
    );
    const asked: number[] = [];
    const slept: number[] = [];
    let round = 0;
    const v = await verifyDecisions({
      checks,
      total,
      waitMs: 5000,
      sleep: async (ms) => void slept.push(ms),
      // The decision point catches up with bob's write on the second round, never with his read.
      ask: async (cs) => {
        asked.push(cs.length);
        round++;
        return new Map(
          cs.map((c) => [`${c.user}\u0000${c.action}\u0000${c.instance}`, c.action === 'read' || round === 1]),
        );
      },
    });
    // Both, both (the write catches up), the read, the read: the budget of 5 s is spent after 1 + 2 + 2.
    expect(asked).toEqual([2, 2, 1, 1]);
    expect(slept).toEqual([1000, 2000, 2000]);
    expect(v).toMatchObject({ total: 2, checked: 2, rounds: 4, waitedMs: 5000, requests: 4 });
    expect(v.disagreements.map((d) => `${d.user} ${d.permission} ${d.decided}`)).toEqual(['bob document:read true']);
  });
});
