/**
 * Attribute values already written on users, tenants and resource instances, checked against their
 * definitions where the configuration declares them (warnings: the service stores any JSON, but a value of
 * another type than its definition compares as it is, so conditions written for the type miss it; and
 * a value whose key has no definition counts in no decision).
 */
import type { AttributeType, DesiredAttribute } from '../../types/abac.js';
import type { Loc, Problem } from '../source.js';
import { describePlace } from '../source.js';
import { describeValue } from '../schema.js';
import { report, type RuleContext } from './context.js';
import { BUILT_IN_USER, resourceScope } from './abac-scope.js';

/** Whether `v` is a value of `type`; `time` is an ISO 8601 date or date-time string. */
export function valueFits(type: AttributeType, v: unknown): boolean {
  const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  switch (type) {
    case 'bool':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'time':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v));
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    case 'object_array':
      return Array.isArray(v) && v.every(isObject);
    case 'json':
      return true;
  }
}

const A_TYPE: Record<AttributeType, string> = {
  bool: 'a bool (true or false)',
  number: 'a number',
  string: 'a string',
  time: 'a time (an ISO 8601 date or date-time string)',
  array: 'a list',
  object: 'a mapping',
  object_array: 'a list of mappings',
  json: 'any JSON',
};

/** Each written attribute value whose key has a definition of another type. */
export function attributeValuesTyped(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  const check = (
    values: Record<string, unknown> | undefined,
    definitions: ReadonlyMap<string, DesiredAttribute>,
    where: Loc | undefined,
    owner: string,
    definedAt: (key: string) => Loc | undefined,
    definition: (key: string) => string,
  ) => {
    for (const [key, value] of Object.entries(values ?? {})) {
      const def = definitions.get(key);
      if (!def || valueFits(def.type, value)) continue;
      const at = definedAt(key);
      out.push(
        report(
          where,
          ['attributes', key],
          `attribute "${key}" of ${owner} is ${describeValue(value)}, but ${definition(key)} is ${A_TYPE[def.type]}${at ? ` (defined at ${describePlace(at)})` : ''}`,
          {
            severity: 'warning',
            hint: 'the service stores the value as written, and conditions compare it without converting',
          },
        ),
      );
    }
  };
  const byKey = (list: DesiredAttribute[] | undefined) => new Map((list ?? []).map((a) => [a.key, a]));
  for (const t of desired.tenants.values())
    check(
      t.attributes,
      desired.tenantAttributes,
      index.tenants.get(t.key),
      `tenant "${t.key}"`,
      (k) => index.tenantAttributes.get(k),
      (k) => `tenant attribute "${k}"`,
    );
  for (const u of desired.users.values())
    check(
      u.attributes,
      desired.userAttributes,
      index.users.get(u.key),
      `user "${u.key}"`,
      (k) => index.userAttributes.get(k),
      (k) => `user attribute "${k}"`,
    );
  const resourceDefs = new Map([...desired.resources.values()].map((r) => [r.key, byKey(r.attributes)]));
  for (const [ref, i] of desired.resourceInstances) {
    const defs = resourceDefs.get(i.resource);
    const loc = index.resources.get(i.resource);
    if (defs)
      check(
        i.attributes,
        defs,
        index.resourceInstances.get(ref),
        `"${ref}"`,
        (k) => (loc ? { src: loc.src, path: [...loc.path, 'attributes', k] } : undefined),
        (k) => `attribute "${k}" of "${i.resource}"`,
      );
  }
  return out;
}

/**
 * Each written attribute value whose key has no definition, where the configuration manages the
 * definitions (`user_attributes`, `tenant_attributes`, a resource's `attributes:`): the service stores the
 * value, but a stored value counts in decisions only while its key is defined, so it is silently ignored
 * (a definition removed while values remain, or a typo of a defined key).
 */
export function attributeValuesDefined(ctx: RuleContext): Problem[] {
  const { desired, index } = ctx;
  const out: Problem[] = [];
  const check = (
    values: Record<string, unknown> | undefined,
    defined: ReadonlySet<string>,
    where: Loc | undefined,
    owner: string,
    declareAt: string,
  ) => {
    for (const [key, value] of Object.entries(values ?? {})) {
      if (defined.has(key)) continue;
      out.push(
        report(
          where,
          ['attributes', key],
          `attribute "${key}" of ${owner} has no definition (${declareAt} does not declare it): the service keeps the value, but decisions ignore it`,
          {
            severity: 'warning',
            hint: `declare it under ${declareAt} (${key}: ${typeNamed(value)}), or remove the value`,
          },
        ),
      );
    }
  };
  const managed = (section: 'user_attributes' | 'tenant_attributes', keys: Iterable<string>, builtIn: string[]) =>
    desired.sections.has(section) && !index.refused.covers(section, '\0')
      ? new Set([...keys, ...builtIn, ...index.refused.namesOf(section)])
      : undefined;
  const tenants = managed('tenant_attributes', desired.tenantAttributes.keys(), ['key']);
  if (tenants)
    for (const t of desired.tenants.values())
      check(t.attributes, tenants, index.tenants.get(t.key), `tenant "${t.key}"`, 'tenant_attributes');
  const users = managed('user_attributes', desired.userAttributes.keys(), Object.keys(BUILT_IN_USER));
  if (users)
    for (const u of desired.users.values())
      check(u.attributes, users, index.users.get(u.key), `user "${u.key}"`, 'user_attributes');
  const byResource = new Map<string, ReadonlySet<string> | undefined>();
  for (const [ref, i] of desired.resourceInstances) {
    if (!byResource.has(i.resource)) {
      const scope = resourceScope(ctx, i.resource);
      byResource.set(i.resource, scope && new Set(scope.defined.keys()));
    }
    const defined = byResource.get(i.resource);
    if (defined)
      check(i.attributes, defined, index.resourceInstances.get(ref), `"${ref}"`, `resources.${i.resource}.attributes`);
  }
  return out;
}

/** The attribute type a value suggests, for the hint. */
function typeNamed(v: unknown): AttributeType {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v))
    return v.length > 0 && v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x))
      ? 'object_array'
      : 'array';
  return v !== null && typeof v === 'object' ? 'object' : 'json';
}
