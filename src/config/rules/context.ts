/** What every semantic rule receives, and small helpers for their messages. */
import type { DesiredState, Section } from '../../types/desired.js';
import { targetTenant } from '../../types/desired.js';
import { type SourceIndex } from '../normalise.js';
import { problemAt, type Loc, type Problem, type ProblemOptions, type Segment } from '../source.js';
import { didYouMean } from '../suggest.js';

export interface RuleContext {
  desired: DesiredState;
  index: SourceIndex;
}

/** A semantic rule: pure, named, returns its problems (errors and warnings). */
export type Rule = (ctx: RuleContext) => Problem[];

/** A problem at an object of the index (`where` is its Loc) and a path below it. */
export function report(where: Loc | undefined, sub: Segment[], message: string, options?: ProblemOptions): Problem {
  // Every object in DesiredState came from a file, so its Loc exists; a missing one is a bug upstream.
  if (!where)
    return { message, severity: options?.severity ?? 'error', ...(options?.hint ? { hint: options.hint } : {}) };
  return problemAt(where, sub, message, options);
}

const DECLARED: Record<Section, (d: DesiredState) => Map<string, unknown>> = {
  resources: (d) => d.resources,
  roles: (d) => d.roles,
  tenants: (d) => d.tenants,
  users: (d) => d.users,
  resource_instances: (d) => d.resourceInstances,
  groups: (d) => d.groups,
  access_requests: (d) => d.accessRequests,
  user_attributes: (d) => d.userAttributes,
  tenant_attributes: (d) => d.tenantAttributes,
  user_sets: (d) => d.conditionSets,
  resource_sets: (d) => d.conditionSets,
  set_rules: (d) => d.setRules,
};

/**
 * True when `key` of `section` is declared, or may be: declared in a part that did not parse or that the
 * schema refused. Only a reference that fails this is reported unknown (no follow-on problems).
 */
export function declared({ desired, index }: RuleContext, section: Section, key: string): boolean {
  return DECLARED[section](desired).has(key) || index.refused.covers(section, key);
}

/** Like `declared`, for the target of a role or assertion: a resource instance or a group. */
export function targetDeclared(ctx: RuleContext, ref: string): boolean {
  return (
    targetTenant(ctx.desired, ref) !== undefined ||
    ctx.index.refused.covers('resource_instances', ref) ||
    ctx.index.refused.covers('groups', ref)
  );
}

/** Kinds of reference, and the sections where their names are declared. */
const SECTIONS_OF = {
  resource: ['resources'],
  role: ['roles'],
  tenant: ['tenants'],
  user: ['users'],
  group: ['groups'],
  'resource instance': ['resource_instances', 'groups'],
} as const satisfies Record<string, readonly Section[]>;

/** Names of a kind listed in full in a hint when none is close enough for "did you mean". */
const LISTED = 8;

/**
 * `unknown role "admn"` with a hint: the closest declared name ("did you mean"), else the declared names
 * when they are few, so that a typo far from every name still shows what it could have been. Names of
 * parts the schema refused count as declared.
 */
export function unknown(ctx: RuleContext, kind: Kind, key: string): { message: string; options: ProblemOptions } {
  const keys = candidates(ctx, kind);
  const hint =
    didYouMean(key, keys) ??
    (keys.length === 0
      ? `no ${PLURAL[kind]} are declared`
      : keys.length <= LISTED
        ? `declared ${PLURAL[kind]}: ${keys.join(', ')}`
        : undefined);
  return { message: `unknown ${kind} "${key}"`, options: hint ? { hint } : {} };
}

type Kind = keyof typeof SECTIONS_OF;

const PLURAL: Record<Kind, string> = {
  resource: 'resources',
  role: 'roles',
  tenant: 'tenants',
  user: 'users',
  group: 'groups',
  'resource instance': 'resource instances and groups',
};

// Per context: a configuration with many unknown names among 10,000 users must not list them each time.
const namesCache = new WeakMap<RuleContext, Map<Kind, string[]>>();

function candidates(ctx: RuleContext, kind: Kind): string[] {
  let byKind = namesCache.get(ctx);
  if (!byKind) namesCache.set(ctx, (byKind = new Map()));
  let keys = byKind.get(kind);
  if (!keys) {
    const names = new Set<string>();
    for (const section of SECTIONS_OF[kind]) {
      for (const name of DECLARED[section](ctx.desired).keys()) names.add(name);
      for (const name of ctx.index.refused.namesOf(section)) names.add(name);
    }
    byKind.set(kind, (keys = [...names]));
  }
  return keys;
}
