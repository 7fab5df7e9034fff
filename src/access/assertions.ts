/**
 * Evaluating assertions (docs/check.md) on an access graph. Pure: the live check asks the service
 * first (`checksNeeded`, then POST /allowed/bulk) and passes its answers in as `decisions`; paths always
 * come from the graph, which is what explains a failure.
 */
import type { DesiredAssertion } from '../types/desired.js';
import type { AccessGraph } from './graph.js';
import type { AccessPath } from './facts.js';
import { formatPath } from './paths.js';
import { typeOf } from '../types/refs.js';
import { checkKey, type AccessCheck } from '../types/checks.js';
import type { AbacSource, AbacView } from './abac/model.js';
import { abacLines, checkOn, explainAbac, setLabel, type AbacExplanation } from './abac/explain.js';
import { agree, count } from '../words.js';
import { describeExact, evaluateExact, exactKey, type ExactSpec } from './exact.js';

/** An assertion's fields without its place: what evaluation needs. */
export type AssertionSpec = Omit<DesiredAssertion, 'source'> & { source?: DesiredAssertion['source'] };

export interface AssertionFailure {
  user: string;
  /** Why it breaks, one sentence. */
  message: string;
  /** The granting paths that break a `cannot` (or that a `has_role`/`can` lacks: empty). */
  paths: string[];
  /** The approved access requests whose grants some of those paths start from (`cannot` only), each once. */
  heldThrough?: HeldThrough[];
}

/**
 * An approved access request whose grant (a role assignment, or a group membership) the configuration
 * does not declare, as the plan reads it (src/plan/request-grants.ts `GrantRequest`). A `cannot` that
 * fails through it fails on every plan, whatever the pull request changes: the failure names it.
 */
export interface HeldThrough {
  id: string;
  /** The element configuration it was approved through. */
  config: string;
  /** Null: approved with an API key (no user recorded). */
  reviewer: string | null;
  approvedAt: string;
  /** Set when its `grant_for` is over and it is not revoked yet. */
  expiredAt?: string;
}

/** The request that holds the grant `role` of `user` on `on` (an instance, a group, or a tenant for a tenant-wide role), if any. */
export type HeldLookup = (user: string, role: string, on: string) => HeldThrough | undefined;

/**
 * A user for whom the assertion cannot be decided offline: no role path decides it, and a set rule waits
 * for attributes only the decision-time check has (`context.*`, or a user or resource attribute the state
 * does not store). The assertion's `with:` gives them.
 */
export interface AssertionUndecided {
  user: string;
  message: string;
  /** The rules not decided, each with the attributes it waits for. */
  paths: string[];
  dependsOn: string[];
}

export interface AssertionResult {
  assertion: AssertionSpec;
  /** "alice can write on document:readme". */
  name: string;
  /** Holds for every user: no failure and nothing undecided. */
  passed: boolean;
  /** `failed` when some user fails; else `undecided` when some user's outcome waits for decision-time attributes; else `passed`. */
  status: 'passed' | 'failed' | 'undecided';
  /** The users checked: the user, or the group's members (direct and nested), sorted. */
  users: string[];
  failures: AssertionFailure[];
  /** Present when some user's outcome is not decided offline. */
  undecided?: AssertionUndecided[];
  /** Exact-set assertions: the set found (user keys, or instance keys) and the listed names not decided offline, sorted: what `check --update` writes. */
  actual?: string[];
}

export interface AssertionReport {
  /** No assertion fails (undecided ones do not fail: docs/check.md "Not decided offline"). */
  passed: boolean;
  total: number;
  failed: number;
  /** Assertions neither passed nor failed: not decided offline. */
  undecided: number;
  results: AssertionResult[];
}

export function describeAssertion(a: AssertionSpec): string {
  if (isExactSpec(a)) return describeExact(a);
  const who = a.user ?? `users in ${a.usersIn}`;
  const what =
    a.check === 'has_role' ? `${a.user === undefined ? 'have' : 'has'} role ${a.subject}` : `${a.check} ${a.subject}`;
  return `${who} ${what} on ${a.on}`;
}

/** An assertion of an exact set (`who_can`, `what_can`): exact.ts evaluates it. */
export const isExactSpec = (a: AssertionSpec): a is AssertionSpec & ExactSpec =>
  a.check === 'who_can' || a.check === 'what_can';

/** The users an assertion is about. */
export function usersOf(a: AssertionSpec, graph: AccessGraph): string[] {
  return a.user !== undefined ? [a.user] : graph.membersOf(a.usersIn ?? '');
}

/** `document:write` on `document:x` → `write`: the service takes the action alone and the instance's type. */
export function bareAction(subject: string): string {
  const i = subject.indexOf(':');
  return i < 0 ? subject : subject.slice(i + 1);
}

/**
 * The check one permission assertion asks for one user: in the instance's tenant (as an application
 * sends it, and as ABAC reads `user.roles`), with the assertion's `with:` attributes.
 */
export function checkFor(a: AssertionSpec, user: string, graph: Pick<AccessGraph, 'tenantOf'>): AccessCheck {
  const tenant = graph.tenantOf(a.on);
  return {
    user,
    action: bareAction(a.subject),
    instance: a.on,
    ...(tenant ? { tenant } : {}),
    ...(a.passed !== undefined ? { passed: a.passed } : {}),
  };
}

/** The (user, action, instance) questions the permission assertions ask, deduplicated, in order. */
export function checksNeeded(assertions: readonly AssertionSpec[], graph: AccessGraph): AccessCheck[] {
  const out = new Map<string, AccessCheck>();
  for (const a of assertions) {
    if (a.check === 'has_role' || isExactSpec(a)) continue;
    for (const user of usersOf(a, graph)) {
      const c = checkFor(a, user, graph);
      out.set(checkKey(c), c);
    }
  }
  return [...out.values()];
}

export interface EvaluateOptions {
  /**
   * Answers from the service, by `checkKey`. When given, they decide `can`/`cannot` (the graph then
   * only supplies paths); without them the graph decides.
   */
  decisions?: ReadonlyMap<string, boolean>;
  /** Grants of approved access requests the configuration does not declare: failing paths that start from one name it. */
  held?: HeldLookup;
  /**
   * The state the graph was built from, for attribute-based access: set rules are decided on it (with the
   * assertion's `with:`), and name the rule and condition in a failure. Without it only roles count.
   */
  abac?: { state: AbacSource; view: AbacView };
  /**
   * The sets the decision point answers for exact-set assertions, by `exactKey` (`check --live`: the
   * users of POST /authorized_users, the instance keys of POST /user-permissions). Without, the graph's.
   */
  liveSets?: ReadonlyMap<string, readonly string[]>;
}

export function evaluateAssertions(
  assertions: readonly AssertionSpec[],
  graph: AccessGraph,
  options: EvaluateOptions = {},
): AssertionReport {
  const results = assertions.map((a) => evaluateOne(a, graph, options));
  const failed = results.filter((r) => r.status === 'failed').length;
  const undecided = results.filter((r) => r.status === 'undecided').length;
  return { passed: failed === 0, total: results.length, failed, undecided, results };
}

function evaluateOne(a: AssertionSpec, graph: AccessGraph, options: EvaluateOptions): AssertionResult {
  if (isExactSpec(a)) return evaluateExactOne(a, graph, options);
  const users = usersOf(a, graph);
  const failures: AssertionFailure[] = [];
  const undecided: AssertionUndecided[] = [];
  for (const user of users) {
    const outcome = a.check === 'has_role' ? checkRole(user, a, graph) : checkPermission(user, a, graph, options);
    if (outcome && 'dependsOn' in outcome) undecided.push(outcome);
    else if (outcome) failures.push(outcome);
  }
  const status = failures.length > 0 ? 'failed' : undecided.length > 0 ? 'undecided' : 'passed';
  return {
    assertion: a,
    name: describeAssertion(a),
    passed: status === 'passed',
    status,
    users,
    failures,
    ...(undecided.length > 0 ? { undecided } : {}),
  };
}

function evaluateExactOne(a: AssertionSpec & ExactSpec, graph: AccessGraph, options: EvaluateOptions): AssertionResult {
  const live = options.liveSets?.get(exactKey(a));
  const { failures, undecided, actual, waiting } = evaluateExact(a, graph, options.abac, live);
  const status = failures.length > 0 ? 'failed' : undecided.length > 0 ? 'undecided' : 'passed';
  return {
    assertion: a,
    name: describeAssertion(a),
    passed: status === 'passed',
    status,
    users: a.check === 'who_can' ? actual : [a.user ?? ''],
    failures,
    ...(undecided.length > 0 ? { undecided } : {}),
    actual: [...actual, ...waiting].sort(),
  };
}

function checkRole(user: string, a: AssertionSpec, graph: AccessGraph): AssertionFailure | undefined {
  const e = graph.explain(user, a.subject, a.on);
  if (e.allowed) return undefined;
  return { user, message: e.missing?.message ?? `${user} lacks role ${a.subject} on ${a.on}.`, paths: [] };
}

function checkPermission(
  user: string,
  a: AssertionSpec,
  graph: AccessGraph,
  { decisions, held, abac }: EvaluateOptions,
): AssertionFailure | AssertionUndecided | undefined {
  const permission = `${typeOf(a.on)}:${bareAction(a.subject)}`;
  const decision = graph.can(user, permission, a.on);
  const live = decisions?.get(checkKey(checkFor(a, user, graph)));
  // The set rules, when some grants the permission. Asked of the live service, the check was exactly
  // what was sent (no attributes beyond `with:`): explained exactly too.
  const rules: AbacExplanation | undefined =
    abac && abac.view.granted.has(permission)
      ? explainAbac(
          abac.state,
          abac.view,
          checkOn(abac.state, user, permission, a.on, a.passed ?? (live !== undefined ? {} : undefined)),
        )
      : undefined;
  // With the state, set rules are decided here (on `with:`, or three-valued offline); without it, as the
  // graph decides them (a check passing nothing).
  const offline = rules ? decision.via.length > 0 || rules.outcome === 'allowed' : decision.allowed;
  if (live === undefined && !offline && rules?.outcome === 'undecided') return undecidedFor(user, a, permission, rules);
  const allowed = live ?? offline;
  if (a.check === 'can') {
    if (allowed) return undefined;
    const e = graph.explain(user, permission, a.on);
    const ruleLines = rules ? abacLines(rules) : [];
    const message = offline
      ? `the service denies ${user} ${permission} on ${a.on}, though the live state reads as granting it.`
      : e.missing && !(rules && e.missing.roles.length === 0)
        ? `${e.missing.message}${rules ? ` No set rule allows it either${a.passed ? ' with the attributes given' : ''}:` : ''}`
        : `${user} lacks ${permission} on ${a.on}: no role grants it, and no set rule allows it${a.passed ? ' with the attributes given' : ''}:`;
    return { user, message, paths: ruleLines };
  }
  if (!allowed) return undefined;
  const through: HeldThrough[] = [];
  const paths = decision.via.map((v) => {
    const line = `${formatPath(user, v.path, v.role, a.on)} (${v.role} grants ${permission})`;
    const [role, on] = rootGrant(v.path, v.role, a.on);
    const request = held?.(user, role, on);
    if (!request) return line;
    if (!through.some((t) => t.id === request.id)) through.push(request);
    return `${line}; ${heldNote(request)}`;
  });
  // Set rules that allow: each with the conditions that matched (or, without the state, as the graph names them).
  if (rules) paths.push(...abacLines({ ...rules, rules: rules.rules.filter((r) => r.outcome === 'holds') }));
  else
    for (const r of decision.rules ?? [])
      paths.push(
        `${setLabel(r.userSet, 'user')} × ${setLabel(r.resourceSet, 'resource')} (rule: ${r.userSet} can ${r.permission} on ${r.resourceSet})`,
      );
  const n =
    decision.via.length +
    (rules ? rules.rules.filter((r) => r.outcome === 'holds').length : (decision.rules?.length ?? 0));
  const message =
    n > 0
      ? `${user} can ${bareAction(a.subject)} on ${a.on}: ${n === 1 ? 'one path grants' : `${count(n)} paths grant`} it${through.length > 0 ? `, held through access request ${through.map((t) => short(t.id)).join(', ')} (not in the configuration)` : ''}.`
      : `the service allows ${user} ${permission} on ${a.on}, though the live state shows no path granting it.`;
  return { user, message, paths, ...(through.length > 0 ? { heldThrough: through } : {}) };
}

/** No role path decides, and set rules wait for what only the decision-time check has. */
function undecidedFor(user: string, a: AssertionSpec, permission: string, rules: AbacExplanation): AssertionUndecided {
  const waiting = rules.rules.filter((r) => r.outcome === 'unknown');
  const dependsOn = [...new Set(waiting.flatMap((r) => r.dependsOn))].sort();
  const message = `not decided offline: whether ${user} may ${permission} on ${a.on} depends on ${dependsOn.join(', ')} (give ${agree(dependsOn.length, 'it', 'them')} in the assertion's with:)`;
  return { user, message, paths: abacLines({ ...rules, rules: waiting }), dependsOn };
}

const short = (id: string) => `${id.slice(0, 8)}…`;

/** "held through access request 4b76c2e1…, approved by bob at …; roster requests revoke 4b76c2e1 removes it". */
export function heldNote(t: HeldThrough): string {
  const by = t.reviewer ?? 'an administrator (API key)';
  const expired = t.expiredAt
    ? `, expired ${t.expiredAt} (grant_for of ${t.config}; roster requests expire revokes it)`
    : '';
  return `held through access request ${short(t.id)}, approved by ${by} at ${t.approvedAt} (${t.config})${expired}; roster requests revoke ${t.id.slice(0, 8)} removes it`;
}

/**
 * The grant a path starts from: a role held directly on an instance or tenant-wide, or the membership of
 * the user's first group (the `member` role on it, as approving a request for a group makes it).
 */
function rootGrant(path: AccessPath, role: string, instance: string): [role: string, on: string] {
  switch (path.kind) {
    case 'direct':
      return [role, instance];
    case 'tenant':
      return [role, path.tenant];
    case 'group':
      return ['member', path.chain[0]];
    case 'derived':
      return rootGrant(path.path, path.role, path.subject);
  }
}
