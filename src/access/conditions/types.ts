/**
 * The ABAC conditions language as plain data (api-notes "Attribute-based access"). A condition set's
 * `conditions` JSON is parsed once (parse.ts) into a `Condition` tree; evaluate.ts decides it against the
 * attributes a check sees (attributes.ts). Shared by the server's `/allowed` and the client's access graph:
 * nothing here does I/O or knows about storage rows.
 */

/** JSON as stored and passed in checks. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * A Rego set: the generated `user.roles` and `user.tenants` are sets in Permit's policy, so they never
 * equal an array literal and order after arrays. Array operators treat it as a collection.
 */
export class AttrSet {
  readonly items: Json[];
  constructor(items: Iterable<Json>) {
    this.items = [...new Set(items)].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  }
  toJSON(): Json[] {
    return this.items;
  }
}

/** A value an attribute may hold at decision time. */
export type Value = Json | AttrSet | Value[] | { [key: string]: Value };
export type Bag = { [key: string]: Value };

/** Entity prefixes a condition may use; `subject` is another name for `user`. */
export const ENTITIES = ['user', 'subject', 'resource', 'tenant', 'role', 'context'] as const;
export type Entity = (typeof ENTITIES)[number];

export const SCALAR_OPERATORS = [
  'equals', 'not-equals', 'greater-than', 'less-than', 'greater-than-equals', 'less-than-equals', 'contains',
  'array_contains', 'array_intersect', 'array_subset', 'array_superset', 'in',
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

/** A problem in a conditions tree: where (a JSONPath-like location from the tree's root) and what. */
export interface ConditionProblem {
  path: string;
  message: string;
}
