import { membersOf } from './compare.js';
import { applyOperator } from './operators.js';
import { AttrSet, type AttributeRef, type Bag, type Condition, type Operand, type Test, type Value } from './types.js';

/** The attributes one check sees, by entity (attributes.ts builds them). `roles`: the attributes of each role the user holds in the check's tenant. */
export interface Bags {
  user: Bag;
  resource: Bag;
  tenant: Bag;
  context: Bag;
  roles: Bag[];
}

export interface EvaluateOptions {
  /**
   * Stored attributes of instances by `type:key`, for `fk_resource_type` (null: no such instance). A key
   * the map lacks is added to `missing` and evaluates as no instance: the caller may load the missing
   * ones and evaluate again (the server does; the client passes every instance).
   */
  instances?: ReadonlyMap<string, Bag | null>;
  missing?: Set<string>;
}

/**
 * Decides a conditions tree on a check's attributes. A missing attribute (or reference target) makes its
 * comparison false, `not-equals` included, as the undefined Rego expression does; `not` negates its
 * child's outcome. `role.<attr>` holds when some role the user holds in the tenant satisfies it; a
 * reference to `role.*` is never defined (what the policy editor compiles).
 */
export function evaluate(c: Condition, bags: Bags, options: EvaluateOptions = {}): boolean {
  switch (c.kind) {
    case 'allOf':
      return c.children.every((child) => evaluate(child, bags, options));
    case 'anyOf':
      return c.children.some((child) => evaluate(child, bags, options));
    case 'not':
      return !evaluate(c.child, bags, options);
    case 'leaf': {
      const ctx = { bags, options };
      if (c.attribute.entity === 'role')
        return bags.roles.some((r) => holds(c.test, valueAt(r, c.attribute.path), ctx));
      return holds(c.test, resolve(c.attribute, bags), ctx);
    }
  }
}

interface Ctx {
  bags: Bags;
  options: EvaluateOptions;
}

/** An attribute's value, or undefined; `role.*` references are never defined. */
export function resolve(ref: AttributeRef, bags: Bags): Value | undefined {
  if (ref.entity === 'role') return undefined;
  return valueAt(bags[ref.entity], ref.path);
}

function isPlainObject(v: Value | undefined): v is { [key: string]: Value } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof AttrSet);
}

function valueAt(bag: Value, path: string[]): Value | undefined {
  let v: Value | undefined = bag;
  for (const p of path) {
    if (!isPlainObject(v) || !Object.hasOwn(v, p)) return undefined;
    v = v[p];
  }
  return v;
}

function operandValue(o: Operand, ctx: Ctx): Value | undefined {
  return 'literal' in o ? o.literal : resolve(o.ref, ctx.bags);
}

function holds(t: Test, a: Value | undefined, ctx: Ctx): boolean {
  if (a === undefined) return false;
  if ('operand' in t) {
    const v = operandValue(t.operand, ctx);
    return v !== undefined && applyOperator(t.operator, a, v);
  }
  const target = (item: Value): Value | undefined => (t.fkResourceType ? instance(t.fkResourceType, item, ctx) : item);
  const matches = (item: Value): boolean => {
    const obj = target(item);
    return isPlainObject(obj) && t.match.every((m) => holds(m.test, valueAt(obj, m.field.split('.')), ctx));
  };
  if (t.operator === 'object_match') return matches(a);
  // any_match / all_match take an array (or set) of objects or, with fk_resource_type, of instance keys.
  if (isPlainObject(a)) return false;
  const items = membersOf(a);
  if (!items) return false;
  return t.operator === 'any_match' ? items.some(matches) : items.every(matches);
}

function instance(type: string, key: Value, ctx: Ctx): Value | undefined {
  if (typeof key !== 'string') return undefined;
  const ref = `${type}:${key}`;
  const known = ctx.options.instances?.get(ref);
  if (known === undefined) {
    ctx.options.missing?.add(ref);
    return undefined;
  }
  return known ?? undefined;
}
