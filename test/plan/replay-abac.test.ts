/**
 * Replay through set rules (src/plan/replay-abac.ts): logged checks decided with the attributes and
 * context they carried, as `explain --with` decides them, and the reason in the access section's words.
 */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { replayDecisions, type LoggedDecision } from '../../src/plan/replay.js';
import { replayedLine } from '../../src/plan/render-replay.js';
import type { DesiredState } from '../../src/types/desired.js';
import { abacState, type AbacInput } from '../access/abac-builders.js';

/** frank (level 1) and grace (level 4); senior users (level 3 and up) approve every expense; an auditor reads them. */
const ENV: AbacInput = {
  resources: { expense: { actions: ['approve', 'read'], attributes: { amount: 'number' } } },
  roles: { auditor: ['expense:read'] },
  userAttributes: { level: 'number' },
  users: {
    frank: { attributes: { level: 1 } },
    grace: { attributes: { level: 4 } },
    ivan: { roles: ['auditor@default'] },
  },
  instances: { 'expense:e1': { attributes: { amount: 500 } } },
  userSets: { senior: { conditions: { allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] } } },
  rules: ['senior expense:approve __autogen_expense'],
};
const edit = (over: Partial<AbacInput>): AbacInput => ({ ...ENV, ...over });
const ACTIONS = new Map([['expense', ['approve', 'read']]]);
let n = 0;
const log = (
  user: string,
  action: string,
  resource: string,
  decision: boolean,
  input: object = {},
  tenant?: string,
): LoggedDecision => {
  const [type, key] = resource.split(':');
  return {
    id: `l${n++}`,
    timestamp: '2026-11-24T10:00:00.000Z',
    user,
    action,
    type,
    ...(key ? { key } : {}),
    ...(tenant ? { tenant } : {}),
    decision,
    input,
  };
};
const replay = (decisions: LoggedDecision[], before: DesiredState, after: DesiredState) =>
  replayDecisions({
    read: {
      since: '2026-11-18T00:00:00.000Z',
      until: '2026-11-25T10:00:00.000Z',
      total: decisions.length,
      decisions,
      truncated: false,
      requests: 1,
    },
    before: buildAccessGraph(factsFromState(before)),
    after: buildAccessGraph(factsFromState(after)),
    states: { before, after },
    actions: ACTIONS,
  });
const lines = (r: ReturnType<typeof replay>) => r.changes.map((c) => replayedLine(c, r.until));

describe('replay through set rules', () => {
  it('replays a check carrying context no condition reads, as the same question as one carrying nothing', () => {
    const r = replay(
      [
        log('grace', 'approve', 'expense:e1', true, { context: { channel: 'web' } }),
        log('grace', 'approve', 'expense:e1', true),
        log('ivan', 'read', 'expense:e1', true, { context: { channel: 'web' } }),
      ],
      abacState(ENV),
      abacState(edit({ users: { ...ENV.users, grace: { attributes: { level: 2 } }, ivan: {} } })),
    );
    expect(r.unreplayable).toEqual([]);
    expect(r.distinct).toBe(2);
    expect(lines(r)).toEqual([
      'grace approve expense:e1 (allowed 2 times, last 1 day ago) would be denied: grace loses expense:approve: user set senior × every expense no longer holds (user.level greater-than-equals 3 (user.level = 2, stored))',
      // Role lines as they were.
      'ivan read expense:e1 (allowed once, last 1 day ago) would be denied: ivan loses auditor (tenant-wide in default)',
    ]);
  });

  it('decides a check with the user attributes it carried, and names the rule and the condition that decides it', () => {
    const stricter = edit({
      userSets: { senior: { conditions: { allOf: [{ 'user.level': { 'greater-than-equals': 6 } }] } } },
    });
    const r = replay(
      [
        log('frank', 'approve', 'expense:e1', true, { user: { key: 'frank', attributes: { level: 5 } } }),
        log('frank', 'approve', 'expense:e1', true, {
          user: { key: 'frank', attributes: { level: 5 } },
          context: { channel: 'web' },
        }),
        // Without attributes frank (level 1) is denied before and after: no change.
        log('frank', 'approve', 'expense:e1', false),
      ],
      abacState(ENV),
      abacState(stricter),
    );
    expect(r.distinct).toBe(2);
    expect(r.disagreements).toEqual([]);
    expect(r.changes.map((c) => [c.passed, c.before, c.after])).toEqual([[{ user: { level: 5 } }, true, false]]);
    expect(lines(r)).toEqual([
      'frank approve expense:e1 with user.level = 5 (allowed 2 times, last 1 day ago) would be denied: frank loses expense:approve: user set senior × every expense no longer holds (user.level greater-than-equals 6 (user.level = 5, passed))',
    ]);
  });

  it('names a rule added or removed, and decides a check on a type alone with what it passed', () => {
    const none = edit({ rules: [] });
    const r = replay(
      [
        log('grace', 'approve', 'expense:e1', false),
        log('frank', 'approve', 'expense', false, { user: { key: 'frank', attributes: { level: 3 } } }, 'default'),
      ],
      abacState(none),
      abacState(ENV),
    );
    expect(lines(r)).toEqual([
      'frank approve expense in default with user.level = 3 (denied once, last 1 day ago) would be allowed: frank gains expense:approve: user set senior × every expense now holds (the rule was added)',
      'grace approve expense:e1 (denied once, last 1 day ago) would be allowed: grace gains expense:approve: user set senior × every expense now holds (the rule was added)',
    ]);
    const back = replay([log('grace', 'approve', 'expense:e1', true)], abacState(ENV), abacState(none));
    expect(back.changes[0].why).toEqual([
      'grace loses expense:approve: user set senior × every expense no longer holds (the rule was removed)',
    ]);
  });

  it('names a gain by the condition that now holds, and a disagreement allowed by a rule', () => {
    const r = replay(
      [log('frank', 'approve', 'expense:e1', true)],
      abacState(ENV),
      abacState(edit({ users: { ...ENV.users, frank: { attributes: { level: 3 } } } })),
    );
    expect(r.changes[0].why).toEqual([
      'frank gains expense:approve: user set senior × every expense now holds (user.level greater-than-equals 3 (user.level = 3, stored))',
    ]);
    // The decision point allowed frank; the model of the live state denies him (level 1).
    expect(r.disagreements.map((d) => [d.user, d.logged, d.before])).toEqual([['frank', true, false]]);
    const g = replay([log('grace', 'approve', 'expense:e1', false)], abacState(ENV), abacState(ENV));
    expect(g.disagreements[0].why).toEqual([
      'user set senior × every expense holds (user.level greater-than-equals 3 (user.level = 4, stored))',
    ]);
  });

  it('counts, and does not guess, a check whose rules read role attributes', () => {
    const roleRead = edit({
      userSets: { senior: { conditions: { allOf: [{ 'role.weight': { 'greater-than': 1 } }] } } },
    });
    const r = replay(
      [log('grace', 'approve', 'expense:e1', true), log('ivan', 'read', 'expense:e1', true)],
      abacState(roleRead),
      abacState(roleRead),
    );
    expect(r.unreplayable.map((u) => [u.reason, u.decisions])).toEqual([
      ['set rules granting expense:approve read role attributes (role.weight), which Roster does not read', 1],
    ]);
    expect(r.distinct).toBe(1);
  });
});
