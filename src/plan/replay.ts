/**
 * `plan --replay`: the recent decisions of the decision point (read from the public audit logs,
 * src/api/read-audit-logs.ts) decided again with the access model on the state after the plan, and the
 * ones whose answer the plan changes. Pure: the plan's "before" and "after" graphs are the ones of its
 * access section (access.ts `accessGraphs`), so the replay and the access section never disagree; the
 * attributes and context a check carried are decided with the states they were built from, as
 * `explain --with` decides them (replay-abac.ts). Each logged decision's own answer is checked against
 * the model of the live state too: where they differ, the model does not match what the decision point
 * decided, and the replay says so.
 */
import type { AccessGraph, AccessPath, Via } from '../access/index.js';
import { formatPath } from '../access/index.js';
import type { AbacSource } from '../access/abac/model.js';
import {
  ReplaySide,
  decideOn,
  holdingRules,
  passedRead,
  readsOn,
  ruleReasons,
  tracesOf,
  type Decided,
  type Passed,
  type Question,
  type Reads,
} from './replay-abac.js';

export type { LoggedDecision, ReplayRead } from '../api/read-audit-logs.js';
import type { LoggedDecision, ReplayRead } from '../api/read-audit-logs.js';
export type { Passed } from './replay-abac.js';

/** One distinct question (user, action, instance, tenant) and what happened to it. */
export interface ReplayedDecision {
  user: string;
  action: string;
  /** `document:q3`, or the type alone for a check on the type. */
  resource: string;
  tenant?: string;
  /** The attributes and context the check carried that a set rule reads: decided on them (absent: none). */
  passed?: Passed;
  times: number;
  allowedTimes: number;
  /** The newest logged decision: its time and answer. */
  last: string;
  logged: boolean;
  before: boolean;
  after: boolean;
  /** Why the answer changes (or, for a disagreement, why the model answers as it does). */
  why: string[];
}

export interface PlanReplay {
  since: string;
  until: string;
  /** Logged decisions read, and in the window. */
  read: number;
  total: number;
  truncated: boolean;
  requests: number;
  /** Distinct questions replayed. */
  distinct: number;
  /** Those whose answer the plan changes (model before ≠ model after), most used first. */
  changes: ReplayedDecision[];
  /** Those whose newest logged answer differs from the model of the live state. */
  disagreements: ReplayedDecision[];
  /** Not replayed, by reason, with a few examples each: counted, never dropped. */
  unreplayable: { reason: string; decisions: number; examples: string[] }[];
}

/** Examples kept per reason of the unreplayable. */
const EXAMPLES = 5;

export interface ReplayInput {
  read: ReplayRead;
  before: AccessGraph;
  after: AccessGraph;
  /** The states the graphs were built from (the live state, and the state after the plan): set rules decide on them. */
  states: { before: AbacSource; after: AbacSource };
  /** Resource types and their actions, before or after the plan: a decision about anything else cannot be replayed. */
  actions: ReadonlyMap<string, readonly string[]>;
}

export function replayDecisions({ read, before, after, states, actions }: ReplayInput): PlanReplay {
  const sides = [new ReplaySide(before, states.before), new ReplaySide(after, states.after)] as const;
  const reads = new Map<string, Reads>();
  const readsOf = (permission: string) =>
    reads.get(permission) ?? reads.set(permission, readsOn(sides, permission)).get(permission)!;
  const groups = new Map<
    string,
    { q: Question & { user: string }; times: number; allowedTimes: number; last: LoggedDecision }
  >();
  const skipped = new Map<string, { decisions: number; examples: string[] }>();
  const skip = (reason: string, example: string) => {
    const s = skipped.get(reason) ?? skipped.set(reason, { decisions: 0, examples: [] }).get(reason)!;
    s.decisions++;
    if (s.examples.length < EXAMPLES && !s.examples.includes(example)) s.examples.push(example);
  };
  for (const d of read.decisions) {
    const q = questionOf(d, readsOf, actions);
    if ('why' in q) {
      skip(q.why, q.example);
      continue;
    }
    // Checks passing different attributes are different questions; an instance check passing none is
    // decided in the instance's tenant (the graph's), any other in the tenant it named.
    const tenant = q.key === undefined || q.passed ? (q.tenant ?? 'default') : '';
    const key = [q.user, q.action, q.type, q.key ?? '', tenant, q.passed ? stableJson(q.passed) : ''].join('\u0000');
    const g = groups.get(key) ?? groups.set(key, { q, times: 0, allowedTimes: 0, last: d }).get(key)!;
    g.times++;
    if (d.decision === true) g.allowedTimes++;
    if (d.timestamp > g.last.timestamp) g.last = d;
  }
  const changes: ReplayedDecision[] = [];
  const disagreements: ReplayedDecision[] = [];
  for (const { q, times, allowedTimes, last } of groups.values()) {
    const was = decideOn(sides[0], q);
    const now = decideOn(sides[1], q);
    const permission = `${q.type}:${q.action}`;
    const base = {
      user: q.user,
      action: q.action,
      resource: q.key !== undefined ? `${q.type}:${q.key}` : q.type,
      ...(q.key !== undefined ? {} : { tenant: q.tenant ?? 'default' }),
      ...(q.passed ? { passed: q.passed } : {}),
      times,
      allowedTimes,
      last: last.timestamp,
      logged: last.decision === true,
      before: was.allowed,
      after: now.allowed,
    };
    if (was.allowed !== now.allowed) {
      const byRules = (was.allowed ? was.byRule : now.byRule)
        ? ruleReasons(q.user, permission, was.allowed, tracesOf(sides[0], q, was), tracesOf(sides[1], q, now))
        : [];
      changes.push({
        ...base,
        why: [
          ...reasons(q.user, permission, q.key !== undefined ? base.resource : undefined, was, now, before, after),
          ...byRules,
        ],
      });
    }
    if (last.decision !== undefined && last.decision !== was.allowed) {
      const why = was.allowed
        ? [
            ...was.via.slice(0, 2).map((v) => formatPath(q.user, v.path, v.role, base.resource)),
            ...(was.byRule ? holdingRules(tracesOf(sides[0], q, was), 2) : []),
          ]
        : [];
      disagreements.push({ ...base, why });
    }
  }
  const order = (a: ReplayedDecision, b: ReplayedDecision) =>
    b.times - a.times ||
    (a.last < b.last ? 1 : a.last > b.last ? -1 : 0) ||
    (a.user < b.user ? -1 : a.user > b.user ? 1 : 0);
  return {
    since: read.since,
    until: read.until,
    read: read.decisions.length,
    total: read.total,
    truncated: read.truncated,
    requests: read.requests,
    distinct: groups.size,
    changes: changes.sort(order),
    disagreements: disagreements.sort(order),
    unreplayable: [...skipped]
      .map(([reason, s]) => ({ reason, ...s }))
      .sort((a, b) => b.decisions - a.decisions || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)),
  };
}

/** The question a logged decision asks, or why the model cannot decide it again. */
function questionOf(
  d: LoggedDecision,
  readsOf: (permission: string) => Reads,
  actions: ReadonlyMap<string, readonly string[]>,
): (Question & { user: string }) | { why: string; example: string } {
  if (!d.user || !d.action || !d.type)
    return { why: 'incomplete log entries (no user, action or resource type)', example: d.id };
  const what = `${d.user} ${d.action} ${d.key ? `${d.type}:${d.key}` : d.type}`;
  const known = actions.get(d.type);
  if (!known)
    return { why: `resource type '${d.type}' unknown to the configuration and the live environment`, example: what };
  if (!known.includes(d.action)) return { why: `action '${d.action}' unknown on ${d.type}`, example: what };
  const reads = readsOf(`${d.type}:${d.action}`);
  // The stored attributes of the user's roles (`role.*`) are not in the states Roster reads.
  if (reads.role.size > 0)
    return {
      why: `set rules granting ${d.type}:${d.action} read role attributes (${[...reads.role]
        .sort()
        .map((k) => `role.${k}`)
        .join(', ')}), which Roster does not read`,
      example: what,
    };
  const passed = passedRead(d.input, reads);
  return {
    user: d.user,
    action: d.action,
    type: d.type,
    ...(d.key ? { key: d.key } : {}),
    ...(d.tenant !== undefined ? { tenant: d.tenant } : {}),
    ...(passed ? { passed } : {}),
  };
}

/** JSON with every object's keys sorted: equal attributes, one key. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** "bob loses editor via team:eng", "editor no longer grants document:read", "carol gains viewer (direct)". */
function reasons(
  user: string,
  permission: string,
  instance: string | undefined,
  was: Decided,
  now: Decided,
  before: AccessGraph,
  after: AccessGraph,
): string[] {
  const [from, to, verb] = was.allowed ? [was.via, after, 'loses'] : [now.via, before, 'gains'];
  const out = new Set<string>();
  for (const v of from.slice(0, 3)) {
    const stillHeld = holds(to, user, instance, v);
    out.add(
      stillHeld
        ? `${v.role} ${was.allowed ? 'no longer grants' : 'now grants'} ${permission}`
        : `${user} ${verb} ${v.role} ${origin(v.path)}`,
    );
  }
  return [...out];
}

/** Whether the other side holds the role too: then the role's definition is what changed. */
function holds(graph: AccessGraph, user: string, instance: string | undefined, v: Via): boolean {
  if (instance !== undefined) return graph.rolesOn(user, instance).some((h) => h.role === v.role);
  const tenant = v.path.kind === 'tenant' ? v.path.tenant : undefined;
  return graph.facts.tenantRoles.some((r) => r.user === user && r.tenant === tenant && r.role === v.role);
}

function origin(p: AccessPath): string {
  switch (p.kind) {
    case 'direct':
      return '(direct)';
    case 'tenant':
      return `(tenant-wide in ${p.tenant})`;
    case 'group':
      return `via ${p.chain.join(' → ')}`;
    case 'derived':
      return `via ${p.relation} from ${p.subject}`;
  }
}
