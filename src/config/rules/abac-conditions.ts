/**
 * Rules about the conditions of user sets and resource sets (api-notes "Attribute-based access",
 * "Conditions"): they parse, name defined attributes, and compare them in ways that can hold.
 */
import type { AttributeType, DesiredConditionSet } from '../../types/abac.js';
import {
  attributesNamed,
  ENTITIES,
  OPERATORS,
  type Json,
  type NamedAttribute,
  type Test,
} from '../../types/conditions.js';
import type { Problem } from '../source.js';
import { closest, didYouMean } from '../suggest.js';
import { declared, report, unknown, type RuleContext } from './context.js';
import { parsedConditions, resourceScope, scopeOf, typeOf, type Scope } from './abac-scope.js';
import { variableWrittenAt } from '../variables.js';

const GRAMMAR_WORDS = ['allOf', 'anyOf', 'not'];
/** Names listed in full in a hint when none is close enough for "did you mean". */
const LISTED = 8;

/** A set's conditions parse: the supported forms only, each problem at its place in the tree. */
export function conditionsParse(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const set of ctx.desired.conditionSets.values()) {
    const parsed = parsedConditions(ctx, set);
    if (parsed.ok) continue;
    for (const p of parsed.problems) {
      const hint = parseHint(p.message);
      out.push(
        report(
          ctx.index.conditionSets.get(set.key),
          ['conditions', ...p.at],
          p.message,
          hint ? { on: 'key', hint } : { on: 'key' },
        ),
      );
    }
  }
  return out;
}

/** "Did you mean" for a misspelt operator, entity or grammar word. */
function parseHint(message: string): string | undefined {
  const operator = /^unknown operator "([^"]*)"/.exec(message);
  if (operator) return didYouMean(operator[1], OPERATORS);
  const condition = /^unknown condition "([^"]*)"/.exec(message);
  if (!condition) return undefined;
  const written = condition[1];
  const dot = written.indexOf('.');
  if (dot < 0)
    return didYouMean(written, GRAMMAR_WORDS) ?? 'an attribute is written `<entity>.<attribute>`, e.g. `user.level`';
  const entity = closest(written.slice(0, dot), ENTITIES);
  return entity ? `did you mean "${entity}${written.slice(dot)}"?` : `the entity is one of ${ENTITIES.join(', ')}`;
}

/**
 * Every attribute a condition names (leaf or `{ref}`) is defined where the configuration manages its
 * definitions; `fk_resource_type` names a resource, and `match` fields through it are its attributes.
 */
export function conditionAttributesResolve(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const set of ctx.desired.conditionSets.values()) {
    const parsed = parsedConditions(ctx, set);
    if (!parsed.ok) continue;
    const where = ctx.index.conditionSets.get(set.key);
    for (const named of attributesNamed(parsed.condition)) {
      const scope = scopeOf(ctx, set, named.attribute.entity);
      const name = named.attribute.path[0];
      if (scope && !scope.defined.has(name)) {
        out.push(
          report(where, ['conditions', ...named.at], scope.unknownMessage(name), { on: 'key', ...hintOf(scope, name) }),
        );
      }
      if (named.test) out.push(...foreignKeys(ctx, named, where));
    }
  }
  return out;
}

function hintOf(scope: Scope, name: string): { hint?: string } {
  const names = [...scope.defined.keys()];
  const declaredNames = names.filter((n) => !scope.builtIn.includes(n));
  const listed =
    declaredNames.length === 0
      ? `no ${scope.listed} are declared`
      : declaredNames.length <= LISTED
        ? `declared ${scope.listed}: ${declaredNames.join(', ')}`
        : undefined;
  const hint = didYouMean(name, names) ?? listed;
  return hint ? { hint } : {};
}

/** `fk_resource_type` of match operators, at any depth: a declared resource, and its attributes as the fields. */
function foreignKeys(
  ctx: RuleContext,
  named: NamedAttribute,
  where: ReturnType<RuleContext['index']['conditionSets']['get']>,
): Problem[] {
  const out: Problem[] = [];
  const walk = (test: Test, at: (string | number)[]) => {
    if ('operand' in test) return;
    const here = [...at, test.operator];
    const fk = test.fkResourceType;
    if (fk !== undefined && !declared(ctx, 'resources', fk)) {
      const u = unknown(ctx, 'resource', fk);
      out.push(
        report(where, ['conditions', ...here, 'fk_resource_type'], `${u.message} in fk_resource_type`, u.options),
      );
    }
    const scope = fk !== undefined ? resourceScope(ctx, fk) : undefined;
    for (const m of test.match) {
      const field = m.field.split('.')[0];
      if (scope && !scope.defined.has(field)) {
        out.push(
          report(where, ['conditions', ...here, 'match', m.field], scope.unknownMessage(field), {
            on: 'key',
            ...hintOf(scope, field),
          }),
        );
      }
      walk(m.test, [...here, 'match', m.field]);
    }
  };
  if (named.test) walk(named.test, named.at);
  return out;
}

/** Attribute types each operator can apply to (a `json` attribute may hold anything: every operator). */
export const APPLIES_TO: Record<(typeof OPERATORS)[number], readonly AttributeType[] | 'any'> = {
  equals: 'any',
  'not-equals': 'any',
  in: 'any',
  'greater-than': ['number', 'string', 'time'],
  'less-than': ['number', 'string', 'time'],
  'greater-than-equals': ['number', 'string', 'time'],
  'less-than-equals': ['number', 'string', 'time'],
  contains: ['string', 'time'],
  array_contains: ['array', 'object_array'],
  array_intersect: ['array', 'object_array'],
  array_subset: ['array', 'object_array'],
  array_superset: ['array', 'object_array'],
  object_match: ['object'],
  any_match: ['array', 'object_array'],
  all_match: ['array', 'object_array'],
};

/**
 * With `fk_resource_type` a match operator reads instance keys (strings), not objects: `object_match` one
 * key (a string attribute), `any_match` and `all_match` a list of them (permit-cli's `fga-tradeoffs`).
 */
export const APPLIES_WITH_FK: Record<'object_match' | 'any_match' | 'all_match', readonly AttributeType[]> = {
  object_match: ['string'],
  any_match: ['array'],
  all_match: ['array'],
};

/** What each operator is for, in the hint of a misapplied one. */
const PURPOSE: Partial<Record<(typeof OPERATORS)[number], string>> = {
  'greater-than': 'orders numbers, strings and times',
  'less-than': 'orders numbers, strings and times',
  'greater-than-equals': 'orders numbers, strings and times',
  'less-than-equals': 'orders numbers, strings and times',
  contains: 'finds a substring in a string (for a list, use array_contains)',
  array_contains: 'finds an element in a list (for a substring, use contains)',
  array_intersect: 'compares lists',
  array_subset: 'compares lists',
  array_superset: 'compares lists',
  object_match: 'tests the fields of an object',
  any_match: 'tests the items of a list',
  all_match: 'tests the items of a list',
};

/**
 * An operator applies to the declared type of its attribute: `greater-than` on a bool, `array_contains`
 * on a string or `contains` on a number never hold as meant (the service does not refuse them).
 */
export function conditionOperatorsApply(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  forEachLeaf(ctx, (set, named, declaredType) => {
    const test = named.test!;
    const operator = test.operator;
    const byKey = 'match' in test && test.fkResourceType !== undefined ? APPLIES_WITH_FK[test.operator] : undefined;
    const applies = byKey ?? APPLIES_TO[operator];
    if (applies === 'any' || declaredType.type === 'json' || applies.includes(declaredType.type)) return;
    const hint = byKey
      ? `with fk_resource_type, ${operator} reads ${operator === 'object_match' ? 'one instance key: a string attribute' : 'a list of instance keys: an array attribute'}`
      : `${operator} ${PURPOSE[operator]}`;
    out.push(
      report(
        ctx.index.conditionSets.get(set.key),
        ['conditions', ...named.at, operator],
        `operator "${operator}" cannot apply to ${declaredType.describe}, ${/^[aeio]/.test(declaredType.type) ? 'an' : 'a'} ${declaredType.type}${byKey ? ' (with fk_resource_type)' : ''}`,
        {
          on: 'key',
          hint,
        },
      ),
    );
  });
  return out;
}

/** The JSON kind of a value of each declared type (`json`: any). */
const KIND: Record<AttributeType, string | undefined> = {
  bool: 'boolean',
  number: 'number',
  string: 'string',
  time: 'string',
  array: 'array',
  object_array: 'array',
  object: 'object',
  json: undefined,
};

const kindOfValue = (v: Json): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const A: Record<string, string> = {
  boolean: 'a bool',
  number: 'a number',
  string: 'a string',
  array: 'a list',
  object: 'a mapping',
  null: 'null',
};

/**
 * A literal compared with an attribute is of the attribute's declared type (warning: the service
 * compares JSON values as they are, so `"true"` never equals the bool `true` and `"10"` orders as text).
 */
export function conditionLiteralTypes(ctx: RuleContext): Problem[] {
  const out: Problem[] = [];
  forEachLeaf(ctx, (set, named, declaredType) => {
    const test = named.test!;
    if (!('operand' in test) || !('literal' in test.operand)) return;
    const expected = KIND[declaredType.type];
    if (expected === undefined) return;
    const value = test.operand.literal;
    const at = ['conditions', ...named.at, test.operator];
    const where = ctx.index.conditionSets.get(set.key);
    const warn = (found: Json, what: string, sub: (string | number)[] = []) => {
      const hint = converted(found, expected, where && variableWrittenAt(where, [...at, ...sub]));
      out.push(report(where, [...at, ...sub], what, { severity: 'warning', ...(hint ? { hint } : {}) }));
    };
    const describe = `${declaredType.describe} is ${A[expected] === 'a list' ? 'a list' : `a ${declaredType.type}`}`;
    switch (test.operator) {
      case 'in':
        if (!Array.isArray(value))
          warn(value, `"in" takes a list of values, found ${A[kindOfValue(value)]}: the comparison never holds`);
        else
          value.forEach(
            (v, i) =>
              kindOfValue(v) !== expected &&
              warn(v, `${JSON.stringify(v)} is ${A[kindOfValue(v)]}, but ${describe}`, [i]),
          );
        return;
      case 'contains':
        if (typeof value !== 'string')
          warn(value, `"contains" takes a string, found ${A[kindOfValue(value)]}: the comparison never holds`);
        return;
      case 'array_contains':
        if (declaredType.type === 'object_array' && kindOfValue(value) !== 'object')
          warn(
            value,
            `${JSON.stringify(value)} is ${A[kindOfValue(value)]}, but the items of ${declaredType.describe} are mappings`,
          );
        return;
      case 'array_intersect':
      case 'array_subset':
      case 'array_superset':
        if (!Array.isArray(value))
          warn(value, `"${test.operator}" takes a list, found ${A[kindOfValue(value)]}: the comparison never holds`);
        return;
      default:
        if (kindOfValue(value) !== expected)
          warn(
            value,
            `${JSON.stringify(value)} is ${A[kindOfValue(value)]}, but ${describe}: the service compares them as they are`,
          );
    }
  });
  return out;
}

/**
 * The literal written as the expected kind, when it reads as one (`"true"` → `true`). A value that came
 * from a variable is fixed where the variable is declared: a string variable is given a value of the
 * kind (`max_size: 50`, which `"${max_size}"` then takes), and a reference inside longer text is text.
 */
function converted(v: Json, expected: string, variable?: { name: string; whole: boolean }): string | undefined {
  if (typeof v !== 'string') return undefined;
  const reads =
    expected === 'boolean' && (v === 'true' || v === 'false')
      ? v
      : expected === 'number' && v.trim() !== '' && Number.isFinite(Number(v))
        ? String(Number(v))
        : undefined;
  if (reads === undefined) return undefined;
  if (!variable) return `write ${reads} without quotes`;
  const kind = expected === 'boolean' ? 'a bool' : 'a number';
  if (variable.whole)
    return `give the variable "${variable.name}" ${kind} value: \`${variable.name}: ${reads}\` under \`variables:\`, without quotes`;
  return `text around \`\${${variable.name}}\` makes the value text: write the whole value as one variable, "\${${variable.name}}", holding ${kind}`;
}

/** Each leaf of each parsed set whose attribute has a declared type. */
function forEachLeaf(
  ctx: RuleContext,
  f: (set: DesiredConditionSet, named: NamedAttribute, declaredType: { type: AttributeType; describe: string }) => void,
): void {
  for (const set of ctx.desired.conditionSets.values()) {
    const parsed = parsedConditions(ctx, set);
    if (!parsed.ok) continue;
    for (const named of attributesNamed(parsed.condition)) {
      if (!named.test) continue;
      const declaredType = typeOf(ctx, set, named.attribute);
      if (declaredType) f(set, named, declaredType);
    }
  }
}
