import {
  ENTITIES, MATCH_OPERATORS, OPERATORS, SCALAR_OPERATORS,
  type AttributeRef, type Condition, type ConditionProblem, type Entity, type Json, type MatchOperator, type Operand, type Operator, type Test,
} from './types.js';

/** What the error messages list as the supported forms. */
export const SUPPORTED_FORMS =
  `{"allOf": [...]}, {"anyOf": [...]}, {"not": {...}} or {"<entity>.<attribute>": {"<operator>": <value or {"ref": "<entity>.<attribute>"}>}} ` +
  `with entity one of ${ENTITIES.join(', ')} and operator one of ${OPERATORS.join(', ')}`;

const ATTRIBUTE_SEGMENT = /^[A-Za-z0-9\-_]+$/;

export type ParseResult = { ok: true; condition: Condition } | { ok: false; problems: ConditionProblem[] };

/**
 * Parses a condition set's `conditions` exactly as api-notes decide: `allOf`, `anyOf`, `not` (one child
 * object; an array child means `allOf`), leaves with one attribute and one operator, the fifteen
 * operators, the prefixes `user subject resource tenant role context`, `{ref}` values, and
 * `{match, fk_resource_type?}` for the match operators. `{}` is an empty `allOf` (matches everything).
 * Every problem is reported with its path from `root` (`conditions.allOf[0]["user.age"]`).
 */
export function parseConditions(json: unknown, root = 'conditions'): ParseResult {
  const problems: ConditionProblem[] = [];
  const condition = node(json, root, problems);
  return problems.length === 0 && condition ? { ok: true, condition } : { ok: false, problems };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const keyPath = (path: string, key: string) => `${path}[${JSON.stringify(key)}]`;

function node(json: unknown, path: string, problems: ConditionProblem[]): Condition | undefined {
  if (!isObject(json)) {
    problems.push({ path, message: `expected an object, one of ${SUPPORTED_FORMS}` });
    return undefined;
  }
  const keys = Object.keys(json);
  if (keys.length === 0) return { kind: 'allOf', children: [] };
  if (keys.length > 1) {
    problems.push({ path, message: `a condition has exactly one key, found ${keys.map((k) => JSON.stringify(k)).join(', ')}: wrap several in {"allOf": [...]}` });
    return undefined;
  }
  const [key] = keys;
  const value = json[key];
  if (key === 'allOf' || key === 'anyOf') {
    if (!Array.isArray(value)) {
      problems.push({ path: `${path}.${key}`, message: `${key} takes an array of conditions` });
      return undefined;
    }
    const children = value.map((c, i) => node(c, `${path}.${key}[${i}]`, problems));
    return children.every((c): c is Condition => c !== undefined) ? { kind: key, children } : undefined;
  }
  if (key === 'not') {
    if (Array.isArray(value)) {
      const children = value.map((c, i) => node(c, `${path}.not[${i}]`, problems));
      return children.every((c): c is Condition => c !== undefined) ? { kind: 'not', child: { kind: 'allOf', children } } : undefined;
    }
    const child = node(value, `${path}.not`, problems);
    return child ? { kind: 'not', child } : undefined;
  }
  const attribute = attributeRef(key);
  if (!attribute) {
    problems.push({ path: keyPath(path, key), message: `unknown condition ${JSON.stringify(key)}; supported: ${SUPPORTED_FORMS}` });
    return undefined;
  }
  const test = testOf(value, keyPath(path, key), problems);
  return test ? { kind: 'leaf', attribute, test } : undefined;
}

/** `user.age` → `{entity: 'user', path: ['age']}`; `subject.` is read as `user.`. Undefined when not of that form. */
export function attributeRef(text: string): AttributeRef | undefined {
  const parts = text.split('.');
  if (parts.length < 2) return undefined;
  const [entity, ...path] = parts;
  if (!(ENTITIES as readonly string[]).includes(entity)) return undefined;
  if (!path.every((p) => ATTRIBUTE_SEGMENT.test(p))) return undefined;
  return { entity: entity === 'subject' ? 'user' : (entity as Exclude<Entity, 'subject'>), path };
}

function testOf(json: unknown, path: string, problems: ConditionProblem[]): Test | undefined {
  if (!isObject(json) || Object.keys(json).length !== 1) {
    problems.push({ path, message: `a comparison is {"<operator>": <value>} with exactly one operator, one of ${OPERATORS.join(', ')}` });
    return undefined;
  }
  const [operator] = Object.keys(json);
  const value = json[operator];
  const at = keyPath(path, operator);
  if ((MATCH_OPERATORS as readonly string[]).includes(operator)) return matchTest(operator as MatchOperator, value, at, problems);
  if (!(SCALAR_OPERATORS as readonly string[]).includes(operator)) {
    problems.push({ path: at, message: `unknown operator ${JSON.stringify(operator)}; supported: ${OPERATORS.join(', ')}` });
    return undefined;
  }
  const operand = operandOf(value, at, problems);
  return operand ? { operator: operator as Exclude<Operator, MatchOperator>, operand } : undefined;
}

function operandOf(value: unknown, path: string, problems: ConditionProblem[]): Operand | undefined {
  if (isObject(value) && Object.hasOwn(value, 'ref')) {
    const ref = typeof value.ref === 'string' && Object.keys(value).length === 1 ? attributeRef(value.ref) : undefined;
    if (!ref) {
      problems.push({ path, message: `a reference is {"ref": "<entity>.<attribute>"} with entity one of ${ENTITIES.join(', ')}` });
      return undefined;
    }
    return { ref };
  }
  if (value === undefined) {
    problems.push({ path, message: 'the operator needs a value' });
    return undefined;
  }
  return { literal: value as Json };
}

function matchTest(operator: MatchOperator, value: unknown, path: string, problems: ConditionProblem[]): Test | undefined {
  const extra = isObject(value) ? Object.keys(value).filter((k) => k !== 'match' && k !== 'fk_resource_type') : [];
  if (!isObject(value) || !isObject(value.match) || extra.length > 0 || (value.fk_resource_type !== undefined && (typeof value.fk_resource_type !== 'string' || !ATTRIBUTE_SEGMENT.test(value.fk_resource_type)))) {
    problems.push({ path, message: `${operator} takes {"match": {"<field>": {"<operator>": <value>}, ...}, "fk_resource_type"?: "<resource>"}` });
    return undefined;
  }
  const match: { field: string; test: Test }[] = [];
  let failed = false;
  for (const [field, sub] of Object.entries(value.match)) {
    const fieldPath = `${path}.match[${JSON.stringify(field)}]`;
    if (!field.split('.').every((p) => ATTRIBUTE_SEGMENT.test(p))) {
      problems.push({ path: fieldPath, message: 'a field name is letters, digits, - and _ (dots for a path)' });
      failed = true;
      continue;
    }
    const test = testOf(sub, fieldPath, problems);
    if (test) match.push({ field, test });
    else failed = true;
  }
  if (failed) return undefined;
  return { operator, match, ...(typeof value.fk_resource_type === 'string' ? { fkResourceType: value.fk_resource_type } : {}) };
}

/** Every attribute a tree names (leaves and references, match sub-conditions' references included), with its path in the tree. */
export function attributesNamed(c: Condition, path = 'conditions'): { attribute: AttributeRef; path: string }[] {
  switch (c.kind) {
    case 'allOf':
    case 'anyOf':
      return c.children.flatMap((child, i) => attributesNamed(child, `${path}.${c.kind}[${i}]`));
    case 'not':
      return attributesNamed(c.child, `${path}.not`);
    case 'leaf': {
      const at = keyPath(path, `${c.attribute.entity}.${c.attribute.path.join('.')}`);
      return [{ attribute: c.attribute, path: at }, ...refsOf(c.test, at)];
    }
  }
}

function refsOf(t: Test, path: string): { attribute: AttributeRef; path: string }[] {
  if ('operand' in t) return 'ref' in t.operand ? [{ attribute: t.operand.ref, path: keyPath(path, t.operator) }] : [];
  return t.match.flatMap((m) => refsOf(m.test, `${keyPath(path, t.operator)}.match[${JSON.stringify(m.field)}]`));
}
