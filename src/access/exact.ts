/**
 * Assertions of exact sets (docs/check.md "Exact sets"): `{who_can, on, exactly}` (the users who may do
 * the action on the instance) and `{user, can, on_type, exactly}` (the instances of the resource the
 * user may do it on). Pure: the set comes from the graph (`queries.ts`), or, with `check --live`, from
 * the decision point's list answers (passed in as `live`); the ways in always come from the graph.
 */
import type { AccessGraph } from './graph.js';
import type { LoosePassed } from './abac/explain.js';
import { decide, permissionOn, whatCan, whoCan, type QueryAbac } from './queries.js';
import { cmp } from './paths.js';

/** What evaluating an exact-set assertion needs of it. */
export interface ExactSpec {
  check: 'who_can' | 'what_can';
  user?: string;
  subject: string;
  /** The instance (`who_can`) or the resource (`what_can`). */
  on: string;
  exactly?: string[];
  passed?: LoosePassed;
}

export interface ExactOutcome {
  /** One per name extra or missing: `user` is the name (who_can) or the asserting user (what_can). */
  failures: { user: string; message: string; paths: string[] }[];
  undecided: { user: string; message: string; paths: string[]; dependsOn: string[] }[];
  /** The set the model (or the live service) gives: user keys, or instance keys of `on`; sorted. */
  actual: string[];
  /** Listed names not decided offline (kept by `check --update`). */
  waiting: string[];
}

/** The set an exact-set assertion is about, with what is undecided offline. */
export function exactSet(
  a: ExactSpec,
  graph: AccessGraph,
  abac?: QueryAbac,
): { actual: string[]; ways: Map<string, string[]>; undecided: { key: string; dependsOn: string[] }[] } {
  const options = { abac, passed: a.passed };
  if (a.check === 'who_can') {
    const r = whoCan(graph, a.subject, a.on, options);
    return {
      actual: r.users.map((u) => u.key),
      ways: new Map(r.users.map((u) => [u.key, u.ways])),
      undecided: r.undecided,
    };
  }
  const r = whatCan(graph, a.user ?? '', a.subject, { ...options, type: a.on });
  const key = (instance: string) => instance.slice(a.on.length + 1);
  return {
    actual: r.instances.map((i) => key(i.key)),
    ways: new Map(r.instances.map((i) => [key(i.key), i.ways])),
    undecided: r.undecided.map((u) => ({ key: key(u.key), dependsOn: u.dependsOn })),
  };
}

/** `who can approve on expense:exp-001: exactly heidi, ivan`. */
export function describeExact(a: ExactSpec): string {
  const list = (a.exactly ?? []).join(', ') || 'nobody';
  return a.check === 'who_can'
    ? `who can ${a.subject} on ${a.on}: exactly ${list}`
    : `${a.user} can ${a.subject} on ${a.on}: exactly ${(a.exactly ?? []).join(', ') || 'none'}`;
}

/**
 * Extra names (each with its ways in) and missing ones. `live`, when given, is the set the decision point
 * answers; the graph then only explains.
 */
export function evaluateExact(
  a: ExactSpec,
  graph: AccessGraph,
  abac?: QueryAbac,
  live?: readonly string[],
): ExactOutcome {
  const model = exactSet(a, graph, abac);
  const actual = live ? [...live].sort(cmp) : model.actual;
  const listed = new Set(a.exactly ?? []);
  const has = new Set(actual);
  const failures: ExactOutcome['failures'] = [];
  const undecided: ExactOutcome['undecided'] = [];
  const waiting = new Map(live ? [] : model.undecided.map((u) => [u.key, u.dependsOn]));
  const waitingKeys: string[] = [];
  const instanceOf = (key: string) => (a.check === 'who_can' ? a.on : `${a.on}:${key}`);
  const userOf = (key: string) => (a.check === 'who_can' ? key : (a.user ?? ''));
  const what = (key: string) =>
    a.check === 'who_can' ? `${key} can ${a.subject} on ${a.on}` : `${a.user} can ${a.subject} on ${a.on}:${key}`;
  for (const key of actual) {
    if (listed.has(key)) continue;
    const ways = model.ways.get(key) ?? waysOf(a, graph, key, abac);
    failures.push({ user: userOf(key), message: `extra: ${what(key)}, not listed in exactly:`, paths: ways });
  }
  for (const key of [...listed].sort(cmp)) {
    if (has.has(key)) continue;
    const dependsOn = waiting.get(key);
    if (dependsOn) {
      const message = `not decided offline: whether ${what(key)} depends on ${dependsOn.join(', ')} (give them in the assertion's with:)`;
      undecided.push({ user: userOf(key), message, paths: [], dependsOn });
      waitingKeys.push(key);
      continue;
    }
    const verb =
      a.check === 'who_can'
        ? `${key} cannot ${a.subject} on ${a.on}`
        : `${a.user} cannot ${a.subject} on ${a.on}:${key}`;
    failures.push({
      user: userOf(key),
      message: `missing: ${verb}, though listed in exactly:`,
      paths: missingWhy(a, graph, instanceOf(key), userOf(key), abac),
    });
  }
  return { failures, undecided, actual, waiting: waitingKeys };
}

function waysOf(a: ExactSpec, graph: AccessGraph, key: string, abac?: QueryAbac): string[] {
  const instance = a.check === 'who_can' ? a.on : `${a.on}:${key}`;
  const user = a.check === 'who_can' ? key : (a.user ?? '');
  const permission = permissionOn(a.subject, instance.slice(0, instance.indexOf(':'))) ?? a.subject;
  return decide(graph, user, permission, instance, { abac, passed: a.passed }).ways;
}

/** What would give the access, as `explain` says it (one line), when the graph knows. */
function missingWhy(a: ExactSpec, graph: AccessGraph, instance: string, user: string, abac?: QueryAbac): string[] {
  const permission = permissionOn(a.subject, instance.slice(0, instance.indexOf(':')));
  if (permission === null) return [];
  const e = graph.explain(user, permission, instance);
  if (!e.missing) return [];
  // "No role has it: no assignment can grant it" would read as final where set rules grant it.
  if (abac?.view.granted.has(permission) && e.missing.roles.length === 0)
    return [`No role has ${permission}, and no set rule allows it${a.passed ? ' with the attributes given' : ''}.`];
  return [e.missing.message];
}

/**
 * The list `check --update` writes: the names still in the set in their written order, then the new
 * ones sorted (so that the diff of the file shows only what changed).
 */
export function updatedList(written: readonly string[], actual: readonly string[]): string[] {
  const has = new Set(actual);
  const kept = written.filter((k, i) => has.has(k) && written.indexOf(k) === i);
  const seen = new Set(kept);
  return [...kept, ...actual.filter((k) => !seen.has(k))];
}

/** Identifies the question an exact-set assertion asks (the live answers are keyed by it). */
export const exactKey = (a: ExactSpec): string =>
  JSON.stringify([a.check, a.user ?? null, a.subject, a.on, a.passed ?? null]);
