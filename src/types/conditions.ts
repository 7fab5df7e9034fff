/**
 * The grammar of ABAC conditions (api-notes "Attribute-based access"): the tree's shapes, the entities and
 * the fifteen operators, and the parser. Here, below every phase, because the configuration's rules
 * (src/config) and the access layer (src/access/conditions, which re-exports all of it) must read
 * conditions the same way. Pure: no I/O, no evaluation (src/access/conditions decides them).
 */

/** JSON as stored and passed in checks. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Entity prefixes a condition may use; `subject` is another name for `user`. */
export const ENTITIES = ['user', 'subject', 'resource', 'tenant', 'role', 'context'] as const;
export type Entity = (typeof ENTITIES)[number];

export const SCALAR_OPERATORS = [
  'equals',
  'not-equals',
  'greater-than',
  'less-than',
  'greater-than-equals',
  'less-than-equals',
  'contains',
  'array_contains',
  'array_intersect',
  'array_subset',
  'array_superset',
  'in',
] as const;
export const MATCH_OPERATORS = ['object_match', 'any_match', 'all_match'] as const;
/** The fifteen operators, in the order the docs list them. */
export const OPERATORS = [...SCALAR_OPERATORS, ...MATCH_OPERATORS] as const;
export type ScalarOperator = (typeof SCALAR_OPERATORS)[number];
export type MatchOperator = (typeof MATCH_OPERATORS)[number];
export type Operator = ScalarOperator | MatchOperator;

/** An attribute named in a condition: the entity (with `subject` read as `user`) and a dotted path into it. */
export interface AttributeRef {
  entity: Exclude<Entity, 'subject'>;
  /** `['approval_limit']`, or deeper for a path into a `json`/`object` attribute. */
  path: string[];
}

/** The right-hand side of a comparison: a literal, or another attribute (`{"ref": "user.limit"}`). */
export type Operand = { literal: Json } | { ref: AttributeRef };

/** What a leaf tests on one value. */
export type Test =
  | { operator: ScalarOperator; operand: Operand }
  | {
      operator: MatchOperator;
      /** Sub-conditions on the object's (or each item's) fields, all of which must hold. */
      match: { field: string; test: Test }[];
      /** The value holds instance key(s) of this resource type; `match` applies to their stored attributes. */
      fkResourceType?: string;
    };

export type Condition =
  | { kind: 'allOf'; children: Condition[] }
  | { kind: 'anyOf'; children: Condition[] }
  | { kind: 'not'; child: Condition }
  | { kind: 'leaf'; attribute: AttributeRef; test: Test };

/** A segment of a place in the tree: a key or an index (for locating it in a document). */
export type TreeSegment = string | number;

/** A problem in a conditions tree: where (a JSONPath-like location from the tree's root) and what. */
export interface ConditionProblem {
  path: string;
  /** The same place as segments below the tree's root (`['allOf', 0, 'user.age']`). */
  at: TreeSegment[];
  message: string;
}

/** What the error messages list as the supported forms. */
export const SUPPORTED_FORMS =
  `{"allOf": [...]}, {"anyOf": [...]}, {"not": {...}} or {"<entity>.<attribute>": {"<operator>": <value or {"ref": "<entity>.<attribute>"}>}} ` +
  `with entity one of ${ENTITIES.join(', ')} and operator one of ${OPERATORS.join(', ')}`;

const ATTRIBUTE_SEGMENT = /^[A-Za-z0-9\-_]+$/;

export type ParseResult = { ok: true; condition: Condition } | { ok: false; problems: ConditionProblem[] };

/** A place in the tree, both as the string messages print and as segments. */
interface Place {
  path: string;
  at: TreeSegment[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** `.allOf`, `.not`, `.match`: a grammar word. */
const word = (p: Place, key: string): Place => ({ path: `${p.path}.${key}`, at: [...p.at, key] });
/** `["user.age"]`: a key written by the user. */
const quoted = (p: Place, key: string): Place => ({ path: `${p.path}[${JSON.stringify(key)}]`, at: [...p.at, key] });
const item = (p: Place, i: number): Place => ({ path: `${p.path}[${i}]`, at: [...p.at, i] });

/**
 * Parses a condition set's `conditions` exactly as api-notes decide: `allOf`, `anyOf`, `not` (one child
 * object; an array child means `allOf`), leaves with one attribute and one operator, the fifteen
 * operators, the prefixes `user subject resource tenant role context`, `{ref}` values, and
 * `{match, fk_resource_type?}` for the match operators. `{}` is an empty `allOf` (matches everything).
 * Every problem is reported with its path from `root` (`conditions.allOf[0]["user.age"]`).
 */
export function parseConditions(json: unknown, root = 'conditions'): ParseResult {
  const problems: ConditionProblem[] = [];
  const condition = node(json, { path: root, at: [] }, problems);
  return problems.length === 0 && condition ? { ok: true, condition } : { ok: false, problems };
}

const problem = (p: Place, message: string): ConditionProblem => ({ path: p.path, at: p.at, message });

function node(json: unknown, place: Place, problems: ConditionProblem[]): Condition | undefined {
  if (!isObject(json)) {
    problems.push(problem(place, `expected an object, one of ${SUPPORTED_FORMS}`));
    return undefined;
  }
  const keys = Object.keys(json);
  if (keys.length === 0) return { kind: 'allOf', children: [] };
  if (keys.length > 1) {
    problems.push(
      problem(
        place,
        `a condition has exactly one key, found ${keys.map((k) => JSON.stringify(k)).join(', ')}: wrap several in {"allOf": [...]}`,
      ),
    );
    return undefined;
  }
  const [key] = keys;
  const value = json[key];
  if (key === 'allOf' || key === 'anyOf') {
    const at = word(place, key);
    if (!Array.isArray(value)) {
      problems.push(problem(at, `${key} takes an array of conditions`));
      return undefined;
    }
    const children = value.map((c, i) => node(c, item(at, i), problems));
    return children.every((c): c is Condition => c !== undefined) ? { kind: key, children } : undefined;
  }
  if (key === 'not') {
    const at = word(place, 'not');
    if (Array.isArray(value)) {
      const children = value.map((c, i) => node(c, item(at, i), problems));
      return children.every((c): c is Condition => c !== undefined)
        ? { kind: 'not', child: { kind: 'allOf', children } }
        : undefined;
    }
    const child = node(value, at, problems);
    return child ? { kind: 'not', child } : undefined;
  }
  const attribute = attributeRef(key);
  if (!attribute) {
    problems.push(
      problem(quoted(place, key), `unknown condition ${JSON.stringify(key)}; supported: ${SUPPORTED_FORMS}`),
    );
    return undefined;
  }
  const test = testOf(value, quoted(place, key), problems);
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

function testOf(json: unknown, place: Place, problems: ConditionProblem[]): Test | undefined {
  if (!isObject(json) || Object.keys(json).length !== 1) {
    problems.push(
      problem(
        place,
        `a comparison is {"<operator>": <value>} with exactly one operator, one of ${OPERATORS.join(', ')}`,
      ),
    );
    return undefined;
  }
  const [operator] = Object.keys(json);
  const value = json[operator];
  const at = quoted(place, operator);
  if ((MATCH_OPERATORS as readonly string[]).includes(operator))
    return matchTest(operator as MatchOperator, value, at, problems);
  if (!(SCALAR_OPERATORS as readonly string[]).includes(operator)) {
    problems.push(problem(at, `unknown operator ${JSON.stringify(operator)}; supported: ${OPERATORS.join(', ')}`));
    return undefined;
  }
  const operand = operandOf(value, at, problems);
  return operand ? { operator: operator as ScalarOperator, operand } : undefined;
}

function operandOf(value: unknown, place: Place, problems: ConditionProblem[]): Operand | undefined {
  if (isObject(value) && Object.hasOwn(value, 'ref')) {
    const ref = typeof value.ref === 'string' && Object.keys(value).length === 1 ? attributeRef(value.ref) : undefined;
    if (!ref) {
      problems.push(
        problem(place, `a reference is {"ref": "<entity>.<attribute>"} with entity one of ${ENTITIES.join(', ')}`),
      );
      return undefined;
    }
    return { ref };
  }
  if (value === undefined) {
    problems.push(problem(place, 'the operator needs a value'));
    return undefined;
  }
  return { literal: value as Json };
}

function matchTest(
  operator: MatchOperator,
  value: unknown,
  place: Place,
  problems: ConditionProblem[],
): Test | undefined {
  const extra = isObject(value) ? Object.keys(value).filter((k) => k !== 'match' && k !== 'fk_resource_type') : [];
  if (
    !isObject(value) ||
    !isObject(value.match) ||
    extra.length > 0 ||
    (value.fk_resource_type !== undefined &&
      (typeof value.fk_resource_type !== 'string' || !ATTRIBUTE_SEGMENT.test(value.fk_resource_type)))
  ) {
    problems.push(
      problem(
        place,
        `${operator} takes {"match": {"<field>": {"<operator>": <value>}, ...}, "fk_resource_type"?: "<resource>"}`,
      ),
    );
    return undefined;
  }
  const match: { field: string; test: Test }[] = [];
  let failed = false;
  for (const [field, sub] of Object.entries(value.match)) {
    const fieldPlace = quoted(word(place, 'match'), field);
    if (!field.split('.').every((p) => ATTRIBUTE_SEGMENT.test(p))) {
      problems.push(problem(fieldPlace, 'a field name is letters, digits, - and _ (dots for a path)'));
      failed = true;
      continue;
    }
    const test = testOf(sub, fieldPlace, problems);
    if (test) match.push({ field, test });
    else failed = true;
  }
  if (failed) return undefined;
  return {
    operator,
    match,
    ...(typeof value.fk_resource_type === 'string' ? { fkResourceType: value.fk_resource_type } : {}),
  };
}

/** An attribute a tree names, where: `path` as messages print it, `at` as segments below the root. */
export interface NamedAttribute {
  attribute: AttributeRef;
  path: string;
  at: TreeSegment[];
  /** For a leaf's own attribute: its test. Absent for an attribute named by a reference. */
  test?: Test;
}

/** Every attribute a tree names (leaves and references, match sub-conditions' references included), with its path in the tree. */
export function attributesNamed(c: Condition, path = 'conditions'): NamedAttribute[] {
  return named(c, { path, at: [] });
}

function named(c: Condition, place: Place): NamedAttribute[] {
  switch (c.kind) {
    case 'allOf':
    case 'anyOf':
      return c.children.flatMap((child, i) => named(child, item(word(place, c.kind), i)));
    case 'not':
      return named(c.child, word(place, 'not'));
    case 'leaf': {
      const at = quoted(place, `${c.attribute.entity}.${c.attribute.path.join('.')}`);
      return [{ attribute: c.attribute, path: at.path, at: at.at, test: c.test }, ...refsOf(c.test, at)];
    }
  }
}

function refsOf(t: Test, place: Place): NamedAttribute[] {
  const at = quoted(place, t.operator);
  if ('operand' in t) return 'ref' in t.operand ? [{ attribute: t.operand.ref, path: at.path, at: at.at }] : [];
  return t.match.flatMap((m) => refsOf(m.test, quoted(word(at, 'match'), m.field)));
}
