/**
 * Every edge, every source (issue 39; style guide "Every edge, every source"): a table with one row per
 * source of access (top-level role on an instance, tenant-wide role, resource role, derivation, group,
 * set rule on stored attributes, set rule on passed attributes) and one check per reader of the model
 * (the plan's permission view, By user, explain, check, apply's decision check, replay, and the review's
 * "If approved" for the sources an access request can grant). Each row edits
 * one configuration so that alice gains `document:read` on `document:d1` through that source only; an
 * edge that does not show it fails the row. Pure: the configuration pipeline, the planner and the
 * readers, without a server (the agreement of the model with `/allowed` is test/access/*-agreement).
 */
import { describe, expect, it } from 'vitest';
import { validateSources } from '../../../src/config/index.js';
import { planChanges } from '../../../src/plan/plan.js';
import { planAccess, accessGraphs } from '../../../src/plan/access.js';
import { evaluateAssertions } from '../../../src/access/assertions.js';
import { abacFromState } from '../../../src/access/abac/model.js';
import { joinAbac } from '../../../src/access/abac/explain.js';
import { planDecisionChecks } from '../../../src/apply/verify-decisions.js';
import { replayDecisions } from '../../../src/plan/replay.js';
import { renderExplanation } from '../../../src/cli/render-explain.js';
import { buildLiveImpact } from '../../../src/review/impact-live.js';
import type { AccessRequest } from '../../../src/review/request.js';
import { emptyLiveState, type LiveState } from '../../../src/types/live.js';
import type { DesiredState } from '../../../src/types/desired.js';

const BASE = `project: p
environment: e
user_attributes: { level: number }
resources:
  folder:
    actions: [read]
    roles:
      reader: { permissions: [read] }
  document:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      reader: { permissions: [read], granted_to: [{ role: reader, on: folder, via: parent }] }
roles: { viewer: [document:read], clerk: [folder:read] }
tenants: { acme: {} }
users:
  alice: { roles: [{ role: clerk, tenant: acme }], attributes: { level: 1 } }
resource_instances:
  folder:f1: acme
  document:d1: { tenant: acme, relations: { parent: folder:f1 } }
groups:
  team:readers: { tenant: acme, members: [], roles: [{ role: viewer, on: document:d1 }] }
user_sets:
  senior: { conditions: { user.level: { greater-than-equals: 3 } } }
  on-call: { conditions: { context.channel: { equals: pager } } }
`;

interface Row {
  source: string;
  /** The edit of BASE that gives alice document:read on document:d1 through this source only. */
  edit: (base: string) => string;
  /** Words the explanation's path names (the source, as the reader sees it). */
  path: RegExp;
  /** The access request whose approval is this edit (the review's "If approved"), when a request can make it. */
  request?: { role: string; resource?: string; instance?: string };
  /** Decided only with attributes the check passes: `with` is what it passes. */
  passed?: { context: Record<string, unknown> };
}

const ROWS: Row[] = [
  {
    source: 'top-level role on the instance',
    edit: (b) =>
      b.replace('{ role: clerk, tenant: acme }', '{ role: clerk, tenant: acme }, { role: viewer, on: document:d1 }'),
    path: /alice → viewer on document:d1/,
    request: { role: 'viewer', resource: 'document', instance: 'd1' },
  },
  {
    source: 'tenant-wide role',
    edit: (b) =>
      b.replace('{ role: clerk, tenant: acme }', '{ role: clerk, tenant: acme }, { role: viewer, tenant: acme }'),
    path: /viewer \(tenant-wide in acme\)|tenant-wide/,
    request: { role: 'viewer' },
  },
  {
    source: 'resource role',
    edit: (b) =>
      b.replace('{ role: clerk, tenant: acme }', '{ role: clerk, tenant: acme }, { role: reader, on: document:d1 }'),
    path: /document#reader on document:d1/,
    request: { role: 'reader', resource: 'document', instance: 'd1' },
  },
  {
    source: 'derivation',
    edit: (b) =>
      b.replace('{ role: clerk, tenant: acme }', '{ role: clerk, tenant: acme }, { role: reader, on: folder:f1 }'),
    path: /from folder#reader via parent/,
    request: { role: 'reader', resource: 'folder', instance: 'f1' },
  },
  { source: 'group', edit: (b) => b.replace('members: []', 'members: [alice]'), path: /team:readers/ },
  {
    source: 'set rule on stored attributes',
    edit: (b) =>
      b.replace('level: 1 }', 'level: 5 }') + 'set_rules:\n  - { user_set: senior, can: read, resource: document }\n',
    path: /user set senior/,
  },
  {
    source: 'set rule on passed attributes',
    edit: (b) => b + 'set_rules:\n  - { user_set: on-call, can: read, resource: document }\n',
    path: /user set on-call/,
    passed: { context: { channel: 'pager' } },
  },
];

function desiredOf(text: string): DesiredState {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  if (!r.desired) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.desired;
}

/** The desired state as the service would hold it after a complete apply: every shared section copied. */
function asLive(d: DesiredState): LiveState {
  const l = emptyLiveState() as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(d)) if (v instanceof Map && l[k] instanceof Map) l[k] = new Map(v);
  const live = l as unknown as LiveState;
  for (const u of live.users.values()) {
    const via = [
      ...u.roles.map((r) => r.tenant),
      ...[...live.groups.values()].filter((g) => g.members.includes(u.key)).map((g) => g.tenant),
    ];
    u.tenants = [...new Set([...(u.tenants ?? []), ...via])].sort();
  }
  return live;
}

const OPTIONS = { project: 'p', environment: 'e' };
const ASSERT = { user: 'alice', check: 'can' as const, subject: 'read', on: 'document:d1' };

function scenario(row: Row) {
  const live = asLive(desiredOf(BASE));
  const desired = desiredOf(row.edit(BASE));
  const plan = planChanges(desired, live, OPTIONS);
  const { before, after, afterState } = accessGraphs(live, plan.changes);
  return { live, plan, before, after, afterState };
}

describe('the model before any edit', () => {
  it('alice cannot read document:d1, and the base plans to no changes against itself', () => {
    const live = asLive(desiredOf(BASE));
    expect(planChanges(desiredOf(BASE), live, OPTIONS).changes).toEqual([]);
    const { after } = accessGraphs(live, []);
    expect(after.can('alice', 'read', 'document:d1').allowed).toBe(false);
  });
});

describe.each(ROWS)('$source: every edge shows alice gaining document:read on document:d1', (row) => {
  it("the plan's permission view", () => {
    const { live, plan } = scenario(row);
    const access = planAccess({ live, changes: plan.changes, permissions: true });
    const lines = [
      ...access.summary.map((s) => `${s.line} ${s.users.join(',')}`),
      ...(access.abac?.lines ?? []).map((l) => `${l.line} ${l.users.join(',')}`),
      ...(access.abac?.undecided ?? []).map((u) => u.line),
    ];
    // Decided at decision time only: the rule is named as not decided offline, never guessed.
    if (row.passed)
      expect(lines.join('\n')).toMatch(
        /document:read: user set on-call × every document \(a new rule\) depends on context.channel: not decided offline/,
      );
    else expect(lines.join('\n')).toMatch(/document:read[\s\S]*alice/);
  });

  it('By user', () => {
    const { live, plan } = scenario(row);
    const access = planAccess({ live, changes: plan.changes, permissions: true });
    const alice = access.byUser.find((u) => u.user === 'alice');
    if (row.passed) {
      // Decided only by what the check passes: not a decided change of alice's (the rule is listed as undecided).
      expect(alice).toBeUndefined();
      expect(access.abac?.undecided.map((u) => u.userSet)).toEqual(['on-call']);
      return;
    }
    expect(
      alice?.changes.some(
        (c) =>
          c.sign === '+' &&
          c.subject === 'document:read' &&
          (c.instance === 'document:d1' || c.instances?.includes('document:d1')),
      ),
    ).toBe(true);
  });

  it('explain (on the state after the plan, with what the check passes)', () => {
    const { after, afterState } = scenario(row);
    const e = joinAbac(
      after.explain('alice', 'read', 'document:d1'),
      afterState,
      abacFromState(afterState),
      row.passed,
    );
    expect(e.allowed).toBe(true);
    expect(renderExplanation(e)).toMatch(row.path);
  });

  it('check (an assertion on the state after the plan)', () => {
    const { after, afterState } = scenario(row);
    const report = evaluateAssertions([{ ...ASSERT, ...(row.passed ? { passed: row.passed } : {}) }], after, {
      abac: { state: afterState, view: abacFromState(afterState) },
    });
    expect(report.results.map((r) => r.status)).toEqual(['passed']);
  });

  it("apply's decision check", () => {
    const { before, after } = scenario(row);
    const sampled = planDecisionChecks(before, after);
    if (row.passed) {
      // A check passing nothing cannot test a decision that needs attributes: nothing to ask, nothing guessed.
      expect(sampled.checks.filter((c) => c.user === 'alice' && c.instance === 'document:d1')).toEqual([]);
      return;
    }
    expect(sampled.checks).toContainEqual(
      expect.objectContaining({ user: 'alice', action: 'read', instance: 'document:d1', expected: true }),
    );
  });

  it('replay (a logged denial of the same check, with the attributes it carried)', () => {
    const { live, before, after, afterState } = scenario(row);
    const input = { user: { key: 'alice' }, ...(row.passed ?? {}) };
    const read = {
      since: '2026-12-01T00:00:00Z',
      until: '2026-12-02T00:00:00Z',
      total: 1,
      truncated: false,
      requests: 1,
      decisions: [
        {
          id: 'l1',
          timestamp: '2026-12-01T10:00:00Z',
          user: 'alice',
          action: 'read',
          type: 'document',
          key: 'd1',
          tenant: 'acme',
          decision: false,
          input,
        },
      ],
    };
    const actions = new Map([
      ['document', ['read', 'write']],
      ['folder', ['read']],
    ]);
    const replay = replayDecisions({
      read,
      before,
      after,
      actions,
      states: { before: live, after: afterState },
    } as Parameters<typeof replayDecisions>[0]);
    expect(replay.unreplayable).toEqual([]);
    expect(replay.changes.map((c) => `${c.user} ${c.action} ${c.resource} ${c.before}→${c.after}`)).toEqual([
      'alice read document:d1 false→true',
    ]);
    if (row.passed) expect(replay.changes[0].why.join('\n')).toMatch(row.path);
    expect(replay.changes[0].why.length).toBeGreaterThan(0);
  });

  it.runIf(row.request !== undefined)('the review\'s "If approved" (the request whose approval is this edit)', () => {
    const live = asLive(desiredOf(BASE));
    const r = row.request!;
    const request: AccessRequest = {
      id: 'r1',
      requester: 'alice',
      tenant: 'acme',
      role: r.role,
      resource: r.resource ?? null,
      instance: r.instance ?? null,
      reason: null,
      status: 'pending',
      createdAt: '2026-12-01T00:00:00Z',
      updatedAt: '2026-12-01T00:00:00Z',
      reviewer: null,
      reviewedAt: null,
      reviewerComment: null,
      canReview: true,
      own: false,
      raw: {},
    };
    const impact = buildLiveImpact(request, live);
    expect(impact.lines.join('\n')).toMatch(/^\+ .*document:read.*document:d1|^\+ .*document:read[\s\S]*document:d1/m);
  });
});
