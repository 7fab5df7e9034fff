/**
 * Why attribute-based access allows or denies one check (docs/check.md "Attribute-based access"): for
 * every set rule granting the action on the type, the user set and the resource set with their
 * ancestors (`parent`), judged on the attributes the check sees (model.ts `bagsFor`, as `/allowed` sees
 * them), and the conditions that decided each, with the values seen and where they came from.
 *
 * Offline, a check that passes no attributes cannot know the `context` the caller will pass at decision
 * time: a condition on `context.*` is then *unknown* (the judge's three values, conditions/judge.ts
 * `CONTEXT_UNKNOWN`); stored attributes decide, a missing one false. A rule that is unknown is "not
 * decided offline: depends on …", never guessed. A check that passes attributes (`--with`, an
 * assertion's `with:`) is decided exactly as `/allowed` decides that check: what it does not pass is
 * missing. Pure.
 */
import {
  CONTEXT_UNKNOWN,
  NOTHING_UNKNOWN,
  andVerdict,
  decidingLeaves,
  judgeChainTrees,
  resolve,
  setChain,
  type Bag,
  type Bags,
  type EvaluateOptions,
  type JudgedLeaf,
  type RuleDef,
  type UnknownAttributes,
  type Value,
  type Verdict,
} from '../conditions/index.js';
import { AUTOGEN_SET_PREFIX } from '../../types/abac.js';
import { typeOf } from '../../types/refs.js';
import type { Explanation } from '../facts.js';
import { bagsFor, instanceBags, type AbacCheck, type AbacSource, type AbacView } from './model.js';

/** A three-valued outcome, the judge's verdict (conditions/judge.ts): `unknown` when it depends on attributes only the decision-time check has. */
export type Outcome = Verdict;

/** Where the value a condition saw came from (api-notes "Decision point"). */
export type AttributeSource = 'stored' | 'passed' | 'generated' | 'missing';

/** One condition that decided a set, with what the check had. */
export interface AbacLeaf {
  /** `user.level` */
  attribute: string;
  operator: string;
  /** The literal compared with, or the referenced attribute and what it resolved to. */
  value: { literal: Value } | { ref: string; resolved: Value | undefined; source: AttributeSource };
  /** What the check had for the attribute (absent: missing). */
  actual?: Value;
  source: AttributeSource;
  outcome: Outcome;
  /** Where in the set's conditions (`conditions.allOf[1]["user.level"]`). */
  path: string;
  /** For an unknown leaf: the attributes it waits for. */
  missing?: string[];
  /** Why the check's tenant attributes are not seen (the user has no role in the tenant). */
  unseen?: string;
}

/** One set of the chain (the set itself first, then its ancestors) and the conditions that decided it. */
export interface AbacSetStep {
  set: string;
  outcome: Outcome;
  leaves: AbacLeaf[];
}

/** One side of a rule: the user set or the resource set. */
export interface AbacSide {
  set: string;
  /** How the text names it: `user set senior`, `role admin`, `every expense`. */
  label: string;
  outcome: Outcome;
  /** The set and its ancestors, nearest first; for a failure, up to the first that fails. */
  chain: AbacSetStep[];
  /** A resource set of another type than the check's (it never matches). */
  otherType?: string;
}

export interface AbacRuleTrace {
  rule: RuleDef;
  /** `senior can expense:approve on small-expenses` */
  name: string;
  outcome: Outcome;
  user: AbacSide;
  resource: AbacSide;
  /** Attributes the outcome waits for, when unknown (`context.region`, `resource.amount`). */
  dependsOn: string[];
}

export interface AbacExplanation {
  /** `expense:approve` */
  permission: string;
  /** `allowed` when some rule holds, `denied` when every rule fails (or none grants it), else `undecided`. */
  outcome: 'allowed' | 'denied' | 'undecided';
  /** Whether the check passed attributes (then every missing attribute is missing, as at `/allowed`). */
  exact: boolean;
  /** The check's tenant (the instance's), which `user.roles` and tenant attributes are read in. */
  tenant: string;
  /** Every rule granting the permission, in the model's order. */
  rules: AbacRuleTrace[];
}

/**
 * The ABAC explanation of one check on `state`. `check.passed` present (even `{}`) decides exactly;
 * absent, only `context.*` is unknown (stored attributes decide, a missing one false).
 */
export function explainAbac(
  state: AbacSource,
  view: AbacView,
  check: AbacCheck,
  instances?: ReadonlyMap<string, Bag | null>,
): AbacExplanation {
  const permission = `${check.type}:${check.action}`;
  const exact = check.passed !== undefined;
  const tenant = check.tenant || 'default';
  const rules = view.model.rules.filter((r) => r.resource === check.type && r.action === check.action);
  if (rules.length === 0) return { permission, outcome: 'denied', exact, tenant, rules: [] };
  const bags = bagsFor(state, view, check);
  // A caller explaining many checks on one state (replay) gives the instances' bags once.
  const options = { instances: instances ?? instanceBags(state, view) };
  const memo = new Map<string, AbacSide>();
  const side = (key: string, kind: 'user' | 'resource'): AbacSide => {
    let s = memo.get(key);
    if (!s) memo.set(key, (s = traceSide(view, key, kind, bags, check, exact, options)));
    return s;
  };
  const traces = rules.map((rule): AbacRuleTrace => {
    const user = side(rule.userSet, 'user');
    const resource = side(rule.resourceSet, 'resource');
    const outcome = and([user.outcome, resource.outcome]);
    const dependsOn = outcome === 'unknown' ? unknownAttributes([user, resource]) : [];
    return { rule, name: ruleName(rule), outcome, user, resource, dependsOn };
  });
  const outcome = traces.some((t) => t.outcome === 'holds')
    ? 'allowed'
    : traces.some((t) => t.outcome === 'unknown')
      ? 'undecided'
      : 'denied';
  return { permission, outcome, exact, tenant, rules: traces };
}

export const ruleName = (r: RuleDef): string => `${r.userSet} can ${r.resource}:${r.action} on ${r.resourceSet}`;

/** `user set senior`, `role admin` (its autogenerated set), `resource set small`, `every expense`. */
export function setLabel(key: string, kind: 'user' | 'resource'): string {
  if (key.startsWith(AUTOGEN_SET_PREFIX)) {
    const of = key.slice(AUTOGEN_SET_PREFIX.length);
    return kind === 'user' ? `role ${of}` : `every ${of}`;
  }
  return `${kind} set ${key}`;
}

/**
 * Offline (nothing passed), only what the decision-time check has is unknown: its `context`. Stored user
 * and resource attributes decide as `/allowed` decides a check that passes nothing (missing: false), as
 * the plan's access section does (graph.ts): one judge for every surface (conditions/judge.ts).
 */
function traceSide(
  view: AbacView,
  key: string,
  kind: 'user' | 'resource',
  bags: Bags,
  check: AbacCheck,
  exact: boolean,
  options: EvaluateOptions,
): AbacSide {
  return traceSideWith(view, key, kind, bags, check, exact ? NOTHING_UNKNOWN : CONTEXT_UNKNOWN, options);
}

/**
 * One side of a rule judged on `bags`, `unknown` naming the attributes only the decision-time check has
 * (the review's impact, which reads no stored attributes, says every attribute it did not read is).
 */
export function traceSideWith(
  view: AbacView,
  key: string,
  kind: 'user' | 'resource',
  bags: Bags,
  check: AbacCheck,
  unknown: UnknownAttributes,
  options: EvaluateOptions = {},
): AbacSide {
  const label = setLabel(key, kind);
  const own = view.model.sets.get(key);
  if (!own) return { set: key, label, outcome: 'fails', chain: [] };
  if (own.type === 'resourceset' && own.resource !== check.type)
    return { set: key, label, outcome: 'fails', chain: [], otherType: own.resource };
  const chain: AbacSetStep[] = [];
  for (const { set, tree } of judgeChainTrees(setChain(view.model.sets, key), bags, { ...options, unknown })) {
    chain.push({ set, outcome: tree.verdict, leaves: decidingLeaves(tree).map((leaf) => leafOf(leaf, bags, check)) });
    if (tree.verdict === 'fails') break;
  }
  return { set: key, label, outcome: and(chain.map((c) => c.outcome)), chain };
}

const and = (outcomes: Outcome[]): Outcome => outcomes.reduce<Outcome>(andVerdict, 'holds');

function leafOf(t: JudgedLeaf, bags: Bags, check: AbacCheck): AbacLeaf {
  const outcome = t.verdict;
  const value: AbacLeaf['value'] =
    'ref' in t.value
      ? { ref: t.value.ref, resolved: t.value.resolved, source: sourceOf(t.value.ref, bags, check) }
      : { literal: t.value.literal };
  const source = t.attribute.startsWith('role.')
    ? t.actual === undefined || (Array.isArray(t.actual) && t.actual.length === 0)
      ? 'missing'
      : 'stored'
    : sourceOf(t.attribute, bags, check);
  // The decision point shows a tenant's attributes only to users with a role in it: say so, or "missing" misleads.
  const unseen =
    bags.tenant.key === undefined &&
    [t.attribute, 'ref' in t.value ? t.value.ref : ''].some((a) => a.startsWith('tenant.') && a !== 'tenant.key')
      ? `${check.user} has no role in tenant ${check.tenant || 'default'}, and tenant attributes count only for users with a role there`
      : undefined;
  return {
    attribute: t.attribute,
    operator: t.operator,
    value,
    ...(t.actual !== undefined ? { actual: t.actual } : {}),
    source,
    outcome,
    path: t.path,
    ...(t.missing.length > 0 ? { missing: t.missing } : {}),
    ...(unseen ? { unseen } : {}),
  };
}

/** Where an attribute's value comes from: passed in the check, generated by the decision, or stored. */
export function sourceOf(attribute: string, bags: Bags, check: AbacCheck): AttributeSource {
  const dot = attribute.indexOf('.');
  const entity = attribute.slice(0, dot) as 'user' | 'resource' | 'tenant' | 'context' | 'role';
  const path = attribute.slice(dot + 1).split('.');
  if (entity === 'role' || resolve({ entity, path }, bags) === undefined) return 'missing';
  const first = path[0];
  switch (entity) {
    case 'user':
      return check.passed?.user && Object.hasOwn(check.passed.user, first)
        ? 'passed'
        : first === 'roles' || first === 'tenants'
          ? 'generated'
          : 'stored';
    case 'resource':
      return check.passed?.resource && Object.hasOwn(check.passed.resource, first)
        ? 'passed'
        : first === 'type'
          ? 'generated'
          : 'stored';
    case 'tenant':
      return first === 'key' ? 'generated' : 'stored';
    case 'context':
      return 'passed';
  }
}

/** The attributes unknown leaves wait for, sorted, each once. */
export function unknownAttributes(sides: AbacSide[]): string[] {
  const out = new Set<string>();
  for (const s of sides) {
    for (const step of s.chain) {
      for (const l of step.leaves) {
        if (l.outcome === 'unknown') for (const m of l.missing ?? []) out.add(m);
      }
    }
  }
  return [...out].sort();
}

/**
 * `user.level greater-than-equals 3 (user.level = 4, stored)`, `context.region equals "eu" (context.region
 * missing)`, `resource.amount less-than-equals user.limit (resource.amount = 500, stored; user.limit = 1000, passed)`.
 */
export function formatLeaf(l: AbacLeaf): string {
  const operand = 'literal' in l.value ? JSON.stringify(l.value.literal) : l.value.ref;
  const missing = (a: string) => (l.unseen && a.startsWith('tenant.') ? `${a} not seen: ${l.unseen}` : `${a} missing`);
  const seen = [l.actual === undefined ? missing(l.attribute) : `${l.attribute} = ${show(l.actual)}, ${l.source}`];
  if ('ref' in l.value)
    seen.push(
      l.value.resolved === undefined
        ? missing(l.value.ref)
        : `${l.value.ref} = ${show(l.value.resolved)}, ${l.value.source}`,
    );
  return `${l.attribute} ${l.operator} ${operand} (${seen.join('; ')})`;
}

const show = (v: Value): string => JSON.stringify(v) ?? String(v);

/**
 * One side's deciding conditions as text: the set (or the ancestor that decided) and its conditions.
 * `named: false` leaves out the set's own label, for a line that names it already (replay's reasons):
 * `user.level greater-than-equals 3 (user.level = 1, stored)`, an ancestor still named.
 */
export function formatSide(s: AbacSide, named = true): string {
  if (s.otherType !== undefined) return `${s.label} is about ${s.otherType}`;
  if (s.chain.length === 0) return `${s.label} does not exist`;
  const steps = s.outcome === 'holds' ? s.chain : s.chain.filter((c) => c.outcome === s.outcome);
  return steps
    .map((c) => {
      const where =
        c.set === s.set
          ? named
            ? `${s.label}: `
            : ''
          : named
            ? `${s.label}'s ancestor ${c.set}: `
            : `ancestor ${c.set}: `;
      return c.leaves.length === 0
        ? `${where}no conditions (matches everything)`
        : `${where}${c.leaves.map(formatLeaf).join(c.outcome === 'holds' ? ' and ' : '; ')}`;
    })
    .join('; ');
}

/** Text lines for an explanation (indented by the caller): the allowing paths, or per rule why not. */
export function abacLines(x: AbacExplanation): string[] {
  const lines: string[] = [];
  for (const t of x.rules) {
    const head = `${t.user.label} × ${t.resource.label} (rule: ${t.name})`;
    switch (t.outcome) {
      case 'holds':
        lines.push(head, `  ${formatSide(t.user)}`, `  ${formatSide(t.resource)}`);
        break;
      case 'fails': {
        const failed = [t.user, t.resource].filter((s) => s.outcome === 'fails');
        lines.push(`${head}: fails`, ...failed.map((s) => `  ${formatSide(s)}`));
        break;
      }
      case 'unknown':
        lines.push(`${head}: not decided offline: depends on ${t.dependsOn.join(', ')}`);
        break;
    }
  }
  return lines;
}

/** An explanation with attribute-based access joined in: allowed when the roles or a set rule allow. */
export interface JoinedExplanation extends Explanation {
  /** The set rules granting the permission and how each was decided (permissions only, when some rule grants it). */
  abac?: AbacExplanation;
  /** True when no role path allows and some rule is not decided offline (then `allowed` is false, but not a denial). */
  undecided?: boolean;
}

/** The check `/allowed` receives for a user, a permission and an instance of `state`: the instance's tenant. */
export function checkOn(
  state: Pick<AbacSource, 'resourceInstances'>,
  user: string,
  permission: string,
  instance: string,
  passed?: LoosePassed,
): AbacCheck {
  const type = typeOf(instance);
  const tenant = state.resourceInstances.get(instance)?.tenant;
  return {
    user,
    action: permission.slice(permission.indexOf(':') + 1),
    type,
    key: instance.slice(type.length + 1),
    ...(tenant ? { tenant } : {}),
    ...(passed !== undefined ? { passed: passed as AbacCheck['passed'] } : {}),
  };
}

/** Attributes as the configuration holds them (`DesiredAssertion.passed`): JSON read from YAML. */
export type LoosePassed = {
  user?: Record<string, unknown>;
  resource?: Record<string, unknown>;
  context?: Record<string, unknown>;
};

/**
 * Joins ABAC into the access graph's explanation of a permission: the set rules that grant it, each
 * decided on the check's attributes (`passed`: what the check passes; absent, unknown attributes are not
 * guessed). A role explanation is returned as it is: roles are not granted by attributes.
 */
export function joinAbac(e: Explanation, state: AbacSource, view: AbacView, passed?: LoosePassed): JoinedExplanation {
  if (e.kind !== 'permission' || e.permission === undefined || !view.granted.has(e.permission)) return e;
  const abac = explainAbac(state, view, checkOn(state, e.user, e.permission, e.instance, passed));
  // The graph's own answer counts set rules as a check passing nothing; here they are decided on what the
  // check passes (or left undecided offline): only role paths are kept from it.
  if (e.via.length > 0) return { ...e, allowed: true, abac };
  if (abac.outcome === 'allowed') {
    const { missing: _missing, ...rest } = e;
    return { ...rest, allowed: true, abac };
  }
  if (e.allowed) {
    // Allowed by a rule when the check passes nothing, not with what it passes (or not decided offline).
    return { ...e, allowed: false, abac, ...(abac.outcome === 'undecided' ? { undecided: true } : {}) };
  }
  // "No role has it: no assignment can grant it" would read as final: set rules may.
  const missing =
    e.missing && e.missing.roles.length === 0
      ? { ...e.missing, message: `No role has ${e.permission}: only set rules grant it (below).` }
      : e.missing;
  return { ...e, ...(missing ? { missing } : {}), abac, ...(abac.outcome === 'undecided' ? { undecided: true } : {}) };
}
