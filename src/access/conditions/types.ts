/**
 * The ABAC conditions language as plain data (api-notes "Attribute-based access"). A condition set's
 * `conditions` JSON is parsed once (parse.ts) into a `Condition` tree; evaluate.ts decides it against the
 * attributes a check sees (attributes.ts). Shared by the server's `/allowed` and the client's access graph:
 * nothing here does I/O or knows about storage rows.
 */

export type { Json, JsonObject } from '../../types/conditions.js';
import type { Json } from '../../types/conditions.js';

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

// The grammar lives in src/types/conditions.ts, so the configuration's rules read conditions as this layer does.
export {
  ENTITIES,
  SCALAR_OPERATORS,
  MATCH_OPERATORS,
  OPERATORS,
  type Entity,
  type ScalarOperator,
  type MatchOperator,
  type Operator,
  type AttributeRef,
  type Operand,
  type Test,
  type Condition,
  type ConditionProblem,
  type TreeSegment,
  type NamedAttribute,
} from '../../types/conditions.js';
