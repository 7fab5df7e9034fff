/**
 * What the ABAC rules share: each set's conditions parsed once, and the attributes a condition may name
 * (api-notes "Attribute-based access", validation of references): `user.*` the user attribute
 * definitions and the built-ins, `resource.*` the base resource's definitions (in a user set, those of
 * any resource), `tenant.*` the tenant attribute definitions and `tenant.key`; `role.*` and `context.*`
 * are free. Names are checked only where the configuration manages their definitions (docs/config.md,
 * "What `roster validate` checks"): elsewhere they may well be defined on the service.
 */
import type { AttributeType, DesiredConditionSet } from '../../types/abac.js';
import { parseConditions, type AttributeRef, type ParseResult } from '../../types/conditions.js';
import type { RuleContext } from './context.js';

const parsedCache = new WeakMap<RuleContext, Map<string, ParseResult>>();

/** The set's conditions parsed (cached per run). */
export function parsedConditions(ctx: RuleContext, set: DesiredConditionSet): ParseResult {
  let byKey = parsedCache.get(ctx);
  if (!byKey) parsedCache.set(ctx, (byKey = new Map()));
  let parsed = byKey.get(set.key);
  if (!parsed) byKey.set(set.key, (parsed = parseConditions(set.conditions)));
  return parsed;
}

/** The section a set is declared in, and its name in messages. */
export const sectionOf = (set: DesiredConditionSet) =>
  (set.type === 'userset' ? 'user_sets' : 'resource_sets') as 'user_sets' | 'resource_sets';
export const kindOf = (set: DesiredConditionSet) => (set.type === 'userset' ? 'user set' : 'resource set');

/** Built-in user attributes (always defined) and their types; `tenants` is generated per check. */
export const BUILT_IN_USER: Readonly<Record<string, AttributeType>> = {
  key: 'string',
  email: 'string',
  first_name: 'string',
  last_name: 'string',
  roles: 'array',
  tenants: 'array',
};

/**
 * The attributes one entity may name in one set: `defined` (name → type; undefined type when the
 * definitions disagree or are refused), and how messages call them. Undefined when the names are free
 * or not managed by the configuration.
 */
export interface Scope {
  defined: Map<string, AttributeType | undefined>;
  /** `unknown user attribute "x"`, `resource "expense" has no attribute "x"`. */
  unknownMessage: (name: string) => string;
  /** `user attribute "level"`, `attribute "amount" of "expense"`. */
  describe: (name: string) => string;
  /** Listed in hints: `declared user attributes`. */
  listed: string;
  /** Names always there (built in or generated): not listed in hints. */
  builtIn: readonly string[];
}

export function scopeOf(ctx: RuleContext, set: DesiredConditionSet, entity: AttributeRef['entity']): Scope | undefined {
  const { desired, index } = ctx;
  if (entity === 'user') {
    if (!desired.sections.has('user_attributes') || index.refused.covers('user_attributes', '\0')) return undefined;
    const defined = new Map<string, AttributeType | undefined>(Object.entries(BUILT_IN_USER));
    for (const a of desired.userAttributes.values()) defined.set(a.key, a.type);
    for (const name of index.refused.namesOf('user_attributes')) defined.set(name, undefined);
    return {
      defined,
      unknownMessage: (n) => `unknown user attribute "${n}"`,
      describe: (n) => `user attribute "${n}"`,
      listed: 'user attributes',
      builtIn: Object.keys(BUILT_IN_USER),
    };
  }
  if (entity === 'tenant') {
    if (!desired.sections.has('tenant_attributes') || index.refused.covers('tenant_attributes', '\0')) return undefined;
    const defined = new Map<string, AttributeType | undefined>([['key', 'string']]);
    for (const a of desired.tenantAttributes.values()) defined.set(a.key, a.type);
    for (const name of index.refused.namesOf('tenant_attributes')) defined.set(name, undefined);
    return {
      defined,
      unknownMessage: (n) => `unknown tenant attribute "${n}"`,
      describe: (n) => `tenant attribute "${n}"`,
      listed: 'tenant attributes',
      builtIn: ['key'],
    };
  }
  if (entity !== 'resource') return undefined;
  if (set.type === 'resourceset') return set.resource === undefined ? undefined : resourceScope(ctx, set.resource);
  // A user set may name the attributes of any resource: known only when every resource writes its definitions.
  if (!desired.sections.has('resources') || index.refused.covers('resources', '\0')) return undefined;
  const resources = [...desired.resources.values()];
  if (resources.some((r) => r.attributes === undefined || index.refused.isTrimmed('resources', r.key)))
    return undefined;
  if ([...index.refused.namesOf('resources')].length > 0) return undefined;
  const defined = new Map<string, AttributeType | undefined>([['type', 'string']]);
  for (const r of resources) {
    for (const a of r.attributes ?? [])
      defined.set(a.key, defined.has(a.key) && defined.get(a.key) !== a.type ? undefined : a.type);
  }
  return {
    defined,
    unknownMessage: (n) => `no resource declares the attribute "${n}"`,
    describe: (n) => `resource attribute "${n}"`,
    listed: 'resource attributes',
    builtIn: ['type'],
  };
}

/** The attributes of one resource, when the configuration writes them (`attributes:` on the resource). */
export function resourceScope(ctx: RuleContext, resource: string): Scope | undefined {
  const r = ctx.desired.resources.get(resource);
  if (!r?.attributes || ctx.index.refused.isTrimmed('resources', resource)) return undefined;
  const defined = new Map<string, AttributeType | undefined>([['type', 'string']]);
  for (const a of r.attributes) defined.set(a.key, a.type);
  return {
    defined,
    unknownMessage: (n) => `resource "${resource}" has no attribute "${n}"`,
    describe: (n) => `attribute "${n}" of "${resource}"`,
    listed: `attributes of "${resource}"`,
    builtIn: ['type'],
  };
}

/** The declared type of an attribute a condition names (its first segment; a deeper path has none). */
export function typeOf(
  ctx: RuleContext,
  set: DesiredConditionSet,
  ref: AttributeRef,
): { type: AttributeType; describe: string } | undefined {
  if (ref.path.length !== 1) return undefined;
  const scope = scopeOf(ctx, set, ref.entity);
  const type = scope?.defined.get(ref.path[0]);
  return scope && type ? { type, describe: scope.describe(ref.path[0]) } : undefined;
}
