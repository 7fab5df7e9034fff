/**
 * `plan --replay`: the recent decisions of the decision point (read from the public audit logs,
 * src/api/read-audit-logs.ts) decided again with the access model on the state after the plan, and the
 * ones whose answer the plan changes. Pure: the plan's "before" and "after" graphs are the ones of its
 * access section (access.ts `accessGraphs`), so the replay and the access section never disagree.
 * Each logged decision's own answer is checked against the model of the live state too: where they
 * differ, the model does not match what the decision point decided, and the replay says so.
 */
import type { AccessGraph, AccessPath, Via } from '../access/index.js';
import { formatPath } from '../access/index.js';

export type { LoggedDecision, ReplayRead } from '../api/read-audit-logs.js';
import type { LoggedDecision, ReplayRead } from '../api/read-audit-logs.js';

/** One distinct question (user, action, instance, tenant) and what happened to it. */
export interface ReplayedDecision {
  user: string;
  action: string;
  /** `document:q3`, or the type alone for a check on the type. */
  resource: string;
  tenant?: string;
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
  /** Resource types and their actions, before or after the plan: a decision about anything else cannot be replayed. */
  actions: ReadonlyMap<string, readonly string[]>;
}

export function replayDecisions({ read, before, after, actions }: ReplayInput): PlanReplay {
  const groups = new Map<string, { d: LoggedDecision & { user: string; action: string; type: string }; times: number; allowedTimes: number; last: LoggedDecision }>();
  const skipped = new Map<string, { decisions: number; examples: string[] }>();
  const skip = (reason: string, example: string) => {
    const s = skipped.get(reason) ?? skipped.set(reason, { decisions: 0, examples: [] }).get(reason)!;
    s.decisions++;
    if (s.examples.length < EXAMPLES && !s.examples.includes(example)) s.examples.push(example);
  };
  for (const d of read.decisions) {
    const reason = unreplayable(d, actions);
    if (reason) {
      skip(reason.why, reason.example);
      continue;
    }
    const key = [d.user, d.action, d.type, d.key ?? '', d.key ? '' : (d.tenant ?? 'default')].join('\u0000');
    const g = groups.get(key) ?? groups.set(key, { d: d as LoggedDecision & { user: string; action: string; type: string }, times: 0, allowedTimes: 0, last: d }).get(key)!;
    g.times++;
    if (d.decision === true) g.allowedTimes++;
    if (d.timestamp > g.last.timestamp) g.last = d;
  }
  const changes: ReplayedDecision[] = [];
  const disagreements: ReplayedDecision[] = [];
  for (const { d, times, allowedTimes, last } of groups.values()) {
    const was = decide(before, d);
    const now = decide(after, d);
    const base = {
      user: d.user,
      action: d.action,
      resource: d.key ? `${d.type}:${d.key}` : d.type,
      ...(d.key ? {} : { tenant: d.tenant ?? 'default' }),
      times,
      allowedTimes,
      last: last.timestamp,
      logged: last.decision === true,
      before: was.allowed,
      after: now.allowed,
    };
    if (was.allowed !== now.allowed) changes.push({ ...base, why: reasons(d.user, `${d.type}:${d.action}`, d.key ? base.resource : undefined, was, now, before, after) });
    if (last.decision !== undefined && last.decision !== was.allowed) disagreements.push({ ...base, why: was.allowed ? was.via.slice(0, 2).map((v) => formatPath(d.user, v.path, v.role, base.resource)) : [] });
  }
  const order = (a: ReplayedDecision, b: ReplayedDecision) => b.times - a.times || (a.last < b.last ? 1 : a.last > b.last ? -1 : 0) || (a.user < b.user ? -1 : a.user > b.user ? 1 : 0);
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
    unreplayable: [...skipped].map(([reason, s]) => ({ reason, ...s })).sort((a, b) => b.decisions - a.decisions || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)),
  };
}

/** Why a logged decision cannot be decided again by the model, or undefined when it can. */
function unreplayable(d: LoggedDecision, actions: ReadonlyMap<string, readonly string[]>): { why: string; example: string } | undefined {
  if (!d.user || !d.action || !d.type) return { why: 'incomplete log entries (no user, action or resource type)', example: d.id };
  const what = `${d.user} ${d.action} ${d.key ? `${d.type}:${d.key}` : d.type}`;
  const known = actions.get(d.type);
  if (!known) return { why: `resource type '${d.type}' unknown to the configuration and the live environment`, example: what };
  if (!known.includes(d.action)) return { why: `action '${d.action}' unknown on ${d.type}`, example: what };
  const attributes = attributesIn(d.input);
  if (attributes.length > 0) return { why: `attributes the access model does not evaluate (${attributes.join(', ')})`, example: what };
  return undefined;
}

/** Attribute and context keys a check carried: the model decides by roles and relationships only. */
export function attributesIn(input: unknown): string[] {
  const i = (input ?? {}) as { user?: { attributes?: unknown }; resource?: { attributes?: unknown }; context?: unknown };
  const keys = (prefix: string, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((k) => `${prefix}.${k}`) : []);
  return [...keys('user.attributes', i.user?.attributes), ...keys('resource.attributes', i.resource?.attributes), ...keys('context', i.context)].sort();
}

interface Decided {
  allowed: boolean;
  via: Via[];
}

/**
 * The model's answer, as `/allowed` decides: on an instance, `can`; on a type alone, the user's
 * tenant-wide roles in the tenant named (else `default`) whose permissions include `type:action`.
 */
function decide(graph: AccessGraph, d: { user: string; action: string; type: string; key?: string; tenant?: string }): Decided {
  if (d.key) return graph.can(d.user, d.action, `${d.type}:${d.key}`);
  const tenant = d.tenant ?? 'default';
  const permission = `${d.type}:${d.action}`;
  const via = graph.facts.tenantRoles
    .filter((r) => r.user === d.user && r.tenant === tenant && graph.permissionsOf(r.role).includes(permission))
    .map((r): Via => ({ role: r.role, path: { kind: 'tenant', tenant } }));
  return { allowed: via.length > 0, via };
}

/** "bob loses editor via team:eng", "editor no longer grants document:read", "carol gains viewer (direct)". */
function reasons(user: string, permission: string, instance: string | undefined, was: Decided, now: Decided, before: AccessGraph, after: AccessGraph): string[] {
  const [from, to, verb] = was.allowed ? [was.via, after, 'loses'] : [now.via, before, 'gains'];
  const out = new Set<string>();
  for (const v of from.slice(0, 3)) {
    const stillHeld = holds(to, user, instance, v);
    out.add(stillHeld ? `${v.role} ${was.allowed ? 'no longer grants' : 'now grants'} ${permission}` : `${user} ${verb} ${v.role} ${origin(v.path)}`);
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
