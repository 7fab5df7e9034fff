/**
 * The access section counted as the diff yields its changes (src/plan/access-stream.ts) is the section
 * summarising the whole diff gives: checked against that computation (the one planAccess made before
 * issue 32, kept here as the reference) on random pairs of states, with small limits so that every cap
 * is reached. And the decision check's sample, taken as the changes stream by, is an even sample.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import {
  accessGraphs,
  DEFAULT_ACCESS_LIMITS,
  planAccess,
  type PlanAccess,
  type PlanAccessLimits,
  type PlanAccessSummary,
} from '../../src/plan/access.js';
import { streamAccessSection } from '../../src/plan/access-stream.js';
import { INSTANCES_LISTED } from '../../src/plan/access-shapes.js';
import {
  buildAccessGraph,
  diffAccess,
  formatPath,
  formatSummaryEntry,
  type AccessChange,
  type AccessGraph,
} from '../../src/access/index.js';
import { arbFactsEdit, arbRebacFactsEdit } from '../access/arbitraries.js';
import { derivationCache } from '../../src/access/derive.js';
import { diffRoleDefinitions } from '../../src/access/definition-diff.js';
import { summarise, tenantWide } from '../../src/access/summary.js';
import { evenSample, sample } from '../../src/apply/verify-decisions.js';
import { OPTIONS } from './builders.js';
import { buildWorld, desiredOf, sectionsArb, worldArb } from './arbitraries.js';
import { readWorld } from './simulate.js';

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** planAccess before issue 32: the whole diff, then summarised and capped. */
function reference(
  before: AccessGraph,
  after: AccessGraph,
  permissions: boolean,
  limits: PlanAccessLimits,
): Omit<PlanAccess, 'assertions'> {
  let diff = diffAccess(before, after, { permissions });
  if (!permissions) {
    const extra = diffRoleDefinitions(before, after);
    if (extra.length > 0) {
      const changes = [...diff.changes, ...extra].sort(
        (a: AccessChange, b: AccessChange) =>
          cmp(a.user, b.user) ||
          cmp(a.instance, b.instance) ||
          cmp(a.subject, b.subject) ||
          (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1),
      );
      diff = { ...diff, changes, summary: summarise(changes), users: [...new Set(changes.map((c) => c.user))] };
    }
  }
  const summary = diff.summary.slice(0, limits.summaryLines).map((e): PlanAccessSummary => ({
    line: formatSummaryEntry(e),
    sign: e.sign,
    subject: e.subject,
    ...(e.instance !== undefined ? { instance: e.instance } : {}),
    ...(e.instances !== undefined ? listed(e.instances) : {}),
    viaKind: e.viaKind,
    via: e.via,
    ...(e.role !== undefined ? { role: e.role } : {}),
    userCount: e.users.length,
    users: e.users.slice(0, limits.usersPerLine),
  }));
  const byUser: PlanAccess['byUser'] = [];
  const { wide } = tenantWide(diff.changes);
  const firstOf = new Map(wide.map((w) => [w.changes[0], w]));
  const merged = new Set(wide.flatMap((w) => w.changes.slice(1)));
  let shown = 0;
  for (const c of diff.changes) {
    if (merged.has(c)) continue;
    const w = firstOf.get(c);
    const size = w ? w.changes.length : 1;
    if (shown + size > limits.changes) break;
    shown += size;
    if (byUser.length === 0 || byUser[byUser.length - 1].user !== c.user) byUser.push({ user: c.user, changes: [] });
    const paths = c.via
      .slice(0, limits.pathsPerChange)
      .map((v) =>
        w ? `${c.user} → ${v.role} (tenant-wide in ${w.tenant})` : formatPath(c.user, v.path, v.role, c.instance),
      );
    byUser[byUser.length - 1].changes.push(
      w
        ? {
            sign: c.sign,
            subject: c.subject,
            ...listed(w.instances),
            tenant: w.tenant,
            ...(w.role !== undefined ? { role: w.role } : {}),
            paths,
          }
        : { sign: c.sign, subject: c.subject, instance: c.instance, paths },
    );
  }
  return {
    level: diff.level,
    users: diff.users.length,
    gains: diff.changes.filter((c) => c.sign === '+').length,
    losses: diff.changes.filter((c) => c.sign === '-').length,
    summary,
    omittedSummary: diff.summary.length - summary.length,
    byUser,
    omittedChanges: diff.changes.length - shown,
  };
}

/**
 * A tenant-wide line's instances as the section gives them since issue 42: the first 10 and their
 * counts (per type in type order), never every instance.
 */
function listed(instances: readonly string[]) {
  const byType: Record<string, number> = {};
  for (const i of [...instances].sort(cmp)) byType[i.split(':')[0]] = (byType[i.split(':')[0]] ?? 0) + 1;
  const types = Object.keys(byType).sort(cmp);
  return {
    instances: instances.slice(0, INSTANCES_LISTED),
    instanceCount: instances.length,
    instancesByType: Object.fromEntries(types.map((t) => [t, byType[t]])),
  };
}

const limitsArb = fc.record({
  summaryLines: fc.integer({ min: 0, max: 4 }),
  usersPerLine: fc.integer({ min: 0, max: 3 }),
  changes: fc.integer({ min: 0, max: 6 }),
  pathsPerChange: fc.integer({ min: 1, max: 3 }),
});

describe('the access section, counted as the diff streams', () => {
  it('is the section summarising the whole diff gives, in both views, at any limits', () => {
    let changed = 0;
    fc.assert(
      fc.property(
        fc.oneof(arbFactsEdit(), arbRebacFactsEdit()),
        fc.boolean(),
        limitsArb,
        ([was, now], permissions, limits) => {
          const derivations = derivationCache();
          const [before, after] = [buildAccessGraph(was, { derivations }), buildAccessGraph(now, { derivations })];
          const streamed = streamAccessSection(before, after, permissions, limits);
          const expected = reference(before, after, permissions, limits);
          expect(streamed).toEqual(expected);
          if (expected.users > 0) changed++;
        },
      ),
      { numRuns: 400 },
    );
    // Most pairs of random states differ in someone's access: the comparison is not of empty sections.
    expect(changed).toBeGreaterThan(200);
  });

  it('is what planAccess gives for a plan', () => {
    fc.assert(
      fc.property(worldArb, worldArb, sectionsArb, fc.boolean(), (want, have, sections, permissions) => {
        const live = readWorld(buildWorld(have));
        const plan = planChanges(desiredOf(buildWorld(want), sections), live, OPTIONS);
        const { before, after } = accessGraphs(live, plan.changes);
        const { assertions: _, ...section } = planAccess({ live, changes: plan.changes, permissions });
        expect(section).toEqual(reference(before, after, permissions, DEFAULT_ACCESS_LIMITS));
      }),
      { numRuns: 100 },
    );
  });
});

describe("the decision check's sample, taken as the changes stream by", () => {
  it('keeps everything up to the bound, then an even sample of exactly the bound, the first included', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 50 }), (n, bound) => {
        const s = evenSample<number>(bound);
        for (let i = 0; i < n; i++) s.add(() => i);
        const { checks, total } = s.result();
        expect(total).toBe(n);
        if (n <= bound) {
          expect(checks).toEqual(Array.from({ length: n }, (_, i) => i));
          return;
        }
        expect(checks).toHaveLength(bound);
        expect(checks[0]).toBe(0);
        // Sorted, distinct, and spread: no gap is more than twice the even step (plus one for rounding).
        const gaps = checks.slice(1).map((x, i) => x - checks[i]);
        expect(gaps.every((g) => g > 0)).toBe(true);
        expect(Math.max(...gaps, n - 1 - checks[checks.length - 1])).toBeLessThanOrEqual(2 * Math.ceil(n / bound) + 1);
      }),
      { numRuns: 300 },
    );
  });

  it('takes a run of items at once as it takes them one by one, making only those it keeps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 30 }),
        (runs, bound) => {
          const one = evenSample<number>(bound);
          const many = evenSample<number>(bound);
          let made = 0;
          let madeOne = 0;
          let start = 0;
          for (const n of runs) {
            for (let j = 0; j < n; j++) one.add(() => (madeOne++, start + j));
            const from = start;
            many.addRun(n, (j) => (made++, from + j));
            start += n;
          }
          expect(many.result()).toEqual(one.result());
          expect(made).toBe(madeOne);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is the plain even sample while the stride has not grown', () => {
    const s = evenSample<number>(10);
    for (let i = 0; i < 19; i++) s.add(() => i);
    expect(s.result().checks).toEqual(
      sample(
        Array.from({ length: 19 }, (_, i) => i),
        10,
      ),
    );
  });
});
