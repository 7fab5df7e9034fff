/**
 * After apply's writes: does the policy decision point decide what the plan announced? For each change
 * of access the plan makes (per permission: alice gains `document:write` on `document:readme`), ask
 * `POST /allowed/bulk` and compare. Catches a decision point answering from stale data (a PDP that has
 * not received the writes, or kept derived data from before them: permitio/PDP issue 341), and a model
 * that does not match the decision point's. docs/plan.md, "Decisions after apply".
 */
import type { AccessGraph } from '../access/index.js';
import { eachAccessChange } from '../access/index.js';
import { bareAction } from '../access/assertions.js';
import { diffAbac, type AbacDiff } from '../access/abac/diff.js';
import { checkKey, type AccessCheck } from '../types/checks.js';
import { agree, count, plural } from '../words.js';

/** Checks asked at most: one bulk request. Beyond, an even sample of this many. */
export const VERIFY_BOUND = 1000;
/** Waits between rounds for the disagreeing checks, while the decision point catches up (then 8 s, 8 s ...). */
const WAITS_MS = [1000, 2000, 4000, 8000];
/** Default total wait (`--decision-wait`). */
export const DEFAULT_DECISION_WAIT_MS = 15_000;

export interface DecisionExpectation extends AccessCheck {
  /** `document:write`. */
  permission: string;
  sign: '+' | '-';
  /** What the plan says the decision is now. */
  expected: boolean;
}

/**
 * The checks for a plan: every permission gained or lost (the permission view of the access diff
 * between the state before and after it, and every (user, instance) a set rule grants or takes away:
 * `abac`, the plan's set-rule diff, computed here when not given), or, beyond `bound`, an even sample
 * of them in their order (roles' changes by users, then instances, then permissions; then set rules'),
 * so that the sample spreads over users and instances; a user's permissions held only through a
 * tenant-wide role come first, once per role and tenant, their instances sampled without being walked
 * (a tenant-wide role reaches every instance of its tenant). The changes are sampled as the diffs yield
 * them, never held: an apply from empty changes millions of permissions at 100,000 users
 * (bench/scale.bench.ts). A set rule whose decisions depend on what a check passes (`context.*`) is
 * named in `undecided`, not asked: a check passing nothing would not test what the plan says.
 */
export function planDecisionChecks(
  before: AccessGraph,
  after: AccessGraph,
  bound = VERIFY_BOUND,
  abac?: AbacDiff,
): DecisionChecks {
  const kept = evenSample<DecisionExpectation>(bound);
  const check = (c: { user: string; subject: string; sign: '+' | '-' }, instance: string) => ({
    user: c.user,
    action: bareAction(c.subject),
    instance,
    permission: c.subject,
    sign: c.sign,
    expected: c.sign === '+',
  });
  // A permission held only through a tenant-wide role comes once for every instance it covers: its
  // instances are sampled where they fall in the sequence, without walking them.
  eachAccessChange(
    before,
    after,
    {
      permissions: true,
      via: false,
      tenantWide: (w) => kept.addRun(w.instances.size, (j) => check(w, w.instances.at(j))),
    },
    (c) => kept.add(() => check(c, c.instance)),
  );
  const rules = abac ?? (before.abac || after.abac ? diffAbac(before, after) : undefined);
  for (const line of rules?.lines ?? []) {
    const action = bareAction(line.permission);
    // In the instance's tenant, as the graph decides it: a check without one is decided in `default`,
    // where `user.roles` and the tenant's attributes are other than the instance's.
    const graph = line.sign === '+' ? after : before;
    for (const user of line.users) {
      for (const instance of line.instances) {
        kept.add(() => ({
          user,
          action,
          instance,
          tenant: graph.abac?.tenantOf(instance),
          permission: line.permission,
          sign: line.sign,
          expected: line.sign === '+',
        }));
      }
    }
  }
  const undecided = (rules?.undecided ?? [])
    .filter((u) => u.users > 0 && u.instances > 0)
    .map((u) => `${u.via.rule} (${u.via.permission}; depends on ${u.attributes.join(', ')})`);
  return { ...kept.result(), ...(undecided.length > 0 ? { undecided } : {}) };
}

/** What apply asks the decision point: a sample of the changed decisions, and the set rules it cannot ask about. */
export interface DecisionChecks {
  checks: DecisionExpectation[];
  total: number;
  /** Set rules whose changed decisions depend on what a check passes: named, not asked. */
  undecided?: string[];
}

export function sample<T>(items: readonly T[], bound: number): T[] {
  if (items.length <= bound) return [...items];
  const step = items.length / bound;
  return Array.from({ length: bound }, (_, i) => items[Math.floor(i * step)]);
}

/**
 * An even sample of at most `bound` items of a sequence whose length is known only at its end, in
 * memory bounded by twice `bound`: every `stride`-th item is kept, and the stride doubles (every other
 * kept item dropped) each time `2 × bound` are kept. At the end `sample` spreads `bound` over those.
 * Up to `bound` items, all are kept; the first is always kept. `make` runs only for an item kept.
 */
export function evenSample<T>(bound: number): {
  add: (make: () => T) => void;
  /** `n` items at once, the `j`-th made by `make(j)` only when kept: the same sample as `n` calls of `add`. */
  addRun: (n: number, make: (j: number) => T) => void;
  result: () => { checks: T[]; total: number };
} {
  let kept: T[] = [];
  let stride = 1;
  let total = 0;
  const keep = (item: T) => {
    kept.push(item);
    if (kept.length >= 2 * bound) {
      kept = kept.filter((_, i) => i % 2 === 0);
      stride *= 2;
    }
  };
  return {
    add(make) {
      if (total++ % stride === 0) keep(make());
    },
    addRun(n, make) {
      // Kept: the items whose place in the whole sequence is a multiple of the stride (which may grow).
      for (let j = (stride - (total % stride)) % stride; j < n;) {
        keep(make(j));
        j++;
        j += (stride - ((total + j) % stride)) % stride;
      }
      total += n;
    },
    result: () => ({ checks: sample(kept, bound), total }),
  };
}

export interface DecisionVerification {
  total: number;
  /** Set rules not asked about (`DecisionChecks.undecided`). */
  undecided?: string[];
  checked: number;
  /** Rounds asked (1 when everything agreed at once). */
  rounds: number;
  waitedMs: number;
  requests: number;
  disagreements: (DecisionExpectation & { decided: boolean })[];
}

/**
 * Asks, then asks again only the checks that disagree, after each wait, until they agree or `waitMs`
 * is spent. `ask` is POST /allowed/bulk (src/api/read-decisions.ts).
 */
export async function verifyDecisions(options: {
  checks: DecisionExpectation[];
  total: number;
  undecided?: string[];
  ask: (checks: AccessCheck[]) => Promise<Map<string, boolean>>;
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}): Promise<DecisionVerification> {
  const { checks, ask } = options;
  const budget = options.waitMs ?? DEFAULT_DECISION_WAIT_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let pending = checks;
  let rounds = 0;
  let waitedMs = 0;
  let requests = 0;
  let decided = new Map<string, boolean>();
  while (pending.length > 0) {
    decided = await ask(pending);
    requests += Math.ceil(pending.length / VERIFY_BOUND);
    rounds++;
    pending = pending.filter((c) => decided.get(checkKey(c)) !== c.expected);
    const wait = Math.min(WAITS_MS[Math.min(rounds - 1, WAITS_MS.length - 1)], budget - waitedMs);
    if (pending.length === 0 || wait <= 0) break;
    await sleep(wait);
    waitedMs += wait;
  }
  return {
    total: options.total,
    ...(options.undecided ? { undecided: options.undecided } : {}),
    checked: checks.length,
    rounds,
    waitedMs,
    requests,
    disagreements: pending.map((c) => ({ ...c, decided: decided.get(checkKey(c)) === true })),
  };
}

/** "the plan says alice gains document:write on document:readme; the decision point still denies it". */
export function disagreementLine(d: DecisionExpectation & { decided: boolean }): string {
  return `the plan says ${d.user} ${d.sign === '+' ? 'gains' : 'loses'} ${d.permission} on ${d.instance}; the decision point still ${d.decided ? 'allows' : 'denies'} it`;
}

/** The report apply prints after its summary. */
export function decisionReportLines(v: DecisionVerification, where: string): string[] {
  const notAsked =
    (v.undecided ?? []).length > 0
      ? [
          `Decisions not asked: ${plural(v.undecided!.length, 'set rule')} ${agree(v.undecided!.length, 'decides', 'decide')} with attributes the check passes: ${v.undecided!.join('; ')}.`,
        ]
      : [];
  if (v.total === 0) return notAsked;
  const scope = v.checked < v.total ? `${count(v.checked)} (an even sample) of ${count(v.total)}` : count(v.checked);
  const asked = `${plural(v.requests, 'request')} to ${where}`;
  if (v.disagreements.length === 0) {
    const waited = v.waitedMs > 0 ? ` after ${(v.waitedMs / 1000).toFixed(0)}s` : '';
    return [
      `Decisions: the decision point agrees with the plan on ${scope} changed ${agree(v.checked, 'decision', 'decisions')}${waited} (${asked}).`,
      ...notAsked,
    ];
  }
  const shown = v.disagreements.slice(0, 20);
  return [
    `Decisions: the decision point disagrees with the plan on ${count(v.disagreements.length)} of ${scope} changed decisions after waiting ${(v.waitedMs / 1000).toFixed(0)}s (${asked}):`,
    ...shown.map((d) => `  ${disagreementLine(d)}`),
    ...(v.disagreements.length > shown.length
      ? [`  … and ${v.disagreements.length - shown.length} more (--format json lists them all)`]
      : []),
    ...notAsked,
    'The writes are done. The decision point may answer from stale data (restart or resync it), or decide otherwise than Roster models; check again with roster check --live.',
  ];
}
