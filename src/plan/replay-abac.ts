/**
 * Replay's attribute-based part (docs/plan.md "Replaying recent decisions"): a logged check decided with
 * the user attributes, resource attributes and context it carried, as `/allowed` decided it and as
 * `explain --with` decides such a check (abac/explain.ts `explainAbac`, one judge of conditions), and the
 * reason a set rule gives for a changed answer, in the access section's words. Pure.
 *
 * Only what some set rule granting the check's permission reads (before or after the plan) can change
 * its answer: a check carrying nothing else (`context.channel` that no condition reads) is the same
 * question as one carrying nothing, and is decided as such (the graph's `can`).
 */
import type { AccessGraph, Via } from '../access/index.js';
import { asJsonObject, attributesNamed, setChain, type Bag, type JsonObject } from '../access/conditions/index.js';
import { abacFromState, instanceBags, type AbacCheck, type AbacSource, type AbacView } from '../access/abac/model.js';
import { checkOn, explainAbac, formatSide, type AbacExplanation, type AbacRuleTrace } from '../access/abac/explain.js';

/** What a logged check passed that a set rule reads: `{user: {level: 1}, context: {urgent: true}}`. */
export type Passed = NonNullable<AbacCheck['passed']>;

/** The attributes the rules granting one permission read, by entity (top-level names). */
export interface Reads {
  user: Set<string>;
  resource: Set<string>;
  context: Set<string>;
  /** `role.*`: stored attributes of the user's roles, which the states Roster reads do not hold. */
  role: Set<string>;
}

/** One side of the plan (the live state, or the state after the plan) ready to decide logged checks. */
export class ReplaySide {
  readonly view: AbacView;
  private bags: Map<string, Bag | null> | undefined;
  private reads = new Map<string, Reads>();

  constructor(
    readonly graph: AccessGraph,
    readonly state: AbacSource,
  ) {
    this.view = abacFromState(state);
  }

  /** The set rules' traces for one check, decided exactly on what it passes (`{}`: nothing, as `/allowed` decides). */
  explain(check: AbacCheck): AbacExplanation | undefined {
    if (!this.view.granted.has(`${check.type}:${check.action}`)) return undefined;
    return explainAbac(this.state, this.view, check, (this.bags ??= instanceBags(this.state, this.view)));
  }

  /** What the rules granting `type:action` read, every set of their chains included. */
  readsOf(permission: string): Reads {
    let r = this.reads.get(permission);
    if (r) return r;
    r = { user: new Set(), resource: new Set(), context: new Set(), role: new Set() };
    const [type, action] = [
      permission.slice(0, permission.indexOf(':')),
      permission.slice(permission.indexOf(':') + 1),
    ];
    for (const rule of this.view.model.rules) {
      if (rule.resource !== type || rule.action !== action) continue;
      for (const key of [rule.userSet, rule.resourceSet]) {
        for (const set of setChain(this.view.model.sets, key)) {
          for (const { attribute } of attributesNamed(set.conditions))
            if (attribute.entity !== 'tenant') r[attribute.entity].add(attribute.path[0]);
        }
      }
    }
    this.reads.set(permission, r);
    return r;
  }
}

/** Both sides' reads of a permission. */
export function readsOn(sides: readonly ReplaySide[], permission: string): Reads {
  const all = sides.map((s) => s.readsOf(permission));
  const union = (k: keyof Reads) => new Set(all.flatMap((r) => [...r[k]]));
  return { user: union('user'), resource: union('resource'), context: union('context'), role: union('role') };
}

/**
 * What a logged check's input (`{user: {key, attributes}, resource: {type, key, tenant, attributes},
 * context}`) passed that the rules read, or undefined when it passed nothing they read. Anything but a
 * JSON object counts as no attributes, as at `/allowed` (conditions `asJsonObject`).
 */
export function passedRead(input: unknown, reads: Reads): Passed | undefined {
  const i = asJsonObject(input) ?? {};
  const pick = (v: unknown, keys: Set<string>): JsonObject | undefined => {
    const o = asJsonObject(v);
    const kept = o ? Object.entries(o).filter(([k]) => keys.has(k)) : [];
    return kept.length > 0 ? Object.fromEntries(kept) : undefined;
  };
  const user = pick(asJsonObject(i.user)?.attributes, reads.user);
  const resource = pick(asJsonObject(i.resource)?.attributes, reads.resource);
  const context = pick(i.context, reads.context);
  if (!user && !resource && !context) return undefined;
  return { ...(user ? { user } : {}), ...(resource ? { resource } : {}), ...(context ? { context } : {}) };
}

/** One distinct question as replay decides it. */
export interface Question {
  user: string;
  action: string;
  type: string;
  key?: string;
  /** As the check sent it (`resource.tenant`); absent: `default`, as `/allowed` decides. */
  tenant?: string;
  /** What it passed that the rules read: decided exactly on it. Absent: decided as a check passing nothing. */
  passed?: Passed;
}

export interface Decided {
  allowed: boolean;
  /** The roles that allow it. */
  via: Via[];
  /** Whether a set rule allows it. */
  byRule: boolean;
  /** The set rules' traces, when decided on them (absent: computed for a reason only, `tracesOf`). */
  abac?: AbacExplanation;
}

/**
 * The model's answer, as `/allowed` decides: on an instance, the roles held there (`can`), or'ed with the
 * set rules; on a type alone, the user's tenant-wide roles in the tenant named (else `default`) whose
 * permissions include `type:action`, or'ed with the set rules on what the check passed. An instance check
 * passing nothing the rules read keeps the graph's answer (set rules decided as on a check passing nothing).
 */
export function decideOn(side: ReplaySide, q: Question): Decided {
  if (q.key !== undefined && q.passed === undefined) {
    const d = side.graph.can(q.user, q.action, `${q.type}:${q.key}`);
    return { allowed: d.allowed, via: d.via, byRule: (d.rules?.length ?? 0) > 0 };
  }
  const tenant = q.tenant ?? 'default';
  const via =
    q.key !== undefined
      ? side.graph.can(q.user, q.action, `${q.type}:${q.key}`).via
      : tenantVia(side.graph, q.user, `${q.type}:${q.action}`, tenant);
  const abac = side.explain({
    user: q.user,
    action: q.action,
    type: q.type,
    ...(q.key !== undefined ? { key: q.key } : {}),
    tenant,
    passed: q.passed ?? {},
  });
  const byRule = abac?.outcome === 'allowed';
  return { allowed: via.length > 0 || byRule, via, byRule, ...(abac ? { abac } : {}) };
}

function tenantVia(graph: AccessGraph, user: string, permission: string, tenant: string): Via[] {
  return graph.facts.tenantRoles
    .filter((r) => r.user === user && r.tenant === tenant && graph.permissionsOf(r.role).includes(permission))
    .map((r): Via => ({ role: r.role, path: { kind: 'tenant', tenant } }));
}

/** The rules' traces behind a decision: those it was decided on, or (the graph's answer) the instance's in its tenant, passing nothing. */
export function tracesOf(side: ReplaySide, q: Question, d: Decided): AbacExplanation | undefined {
  if (d.abac || q.key === undefined || q.passed !== undefined) return d.abac;
  return side.explain(checkOn(side.state, q.user, `${q.type}:${q.action}`, `${q.type}:${q.key}`, {}));
}

/** Rules given a reason each, at most. */
const RULES = 3;

/**
 * Why a set rule changes the answer, in the access section's words (diff.ts `formatAbacLine`, explain.ts
 * `formatSide`): "frank loses expense:approve: user set senior × every expense no longer holds
 * (user.level greater-than-equals 3 (user.level = 1, stored))"; "… now holds (the rule was added)".
 */
export function ruleReasons(
  user: string,
  permission: string,
  lost: boolean,
  was: AbacExplanation | undefined,
  now: AbacExplanation | undefined,
): string[] {
  const [from, to] = lost ? [was, now] : [now, was];
  const out: string[] = [];
  for (const t of (from?.rules ?? []).filter((r) => r.outcome === 'holds').slice(0, RULES)) {
    const other = to?.rules.find((r) => r.rule.userSet === t.rule.userSet && r.rule.resourceSet === t.rule.resourceSet);
    const head = `${user} ${lost ? 'loses' : 'gains'} ${permission}: ${t.user.label} × ${t.resource.label} ${lost ? 'no longer holds' : 'now holds'}`;
    if (!other) out.push(`${head} (the rule was ${lost ? 'removed' : 'added'})`);
    // A loss: the sides that fail now. A gain: the sides that failed before, as they hold now.
    else out.push(`${head} (${deciding(lost ? other : t, other).join('; ')})`);
  }
  return out;
}

/** The conditions of `shown`'s sides that do not hold in `failing` (the same rule, before or after). */
function deciding(shown: AbacRuleTrace, failing: AbacRuleTrace): string[] {
  const sides = (['user', 'resource'] as const).filter((k) => failing[k].outcome !== 'holds');
  return (sides.length > 0 ? sides : (['user', 'resource'] as const)).map((k) => formatSide(shown[k], false));
}

/** Why the model allows, through set rules (a disagreement's reason): "user set senior × every expense holds (…)". */
export function holdingRules(x: AbacExplanation | undefined, max: number): string[] {
  return (x?.rules ?? [])
    .filter((r) => r.outcome === 'holds')
    .slice(0, max)
    .map((r) => {
      // A side without conditions (`every expense`) says nothing: only the conditions that held.
      const met = [r.user, r.resource]
        .filter((s) => s.chain.some((c) => c.leaves.length > 0))
        .map((s) => formatSide(s, false));
      return `${r.user.label} × ${r.resource.label} holds${met.length > 0 ? ` (${met.join('; ')})` : ''}`;
    });
}
