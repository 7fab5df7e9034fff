import { compareValues, membersOf, valuesEqual } from './compare.js';
import type { ScalarOperator, Value } from './types.js';

/**
 * One comparison as the policy editor's Rego computes it (`A` the condition's attribute, `v` the value),
 * both defined. Ordering follows Rego's cross-type order; `contains` and the array operators are false
 * where their Rego form is undefined (a non-string, a non-collection).
 */
export function applyOperator(operator: ScalarOperator, a: Value, v: Value): boolean {
  switch (operator) {
    case 'equals':
      return valuesEqual(a, v);
    case 'not-equals':
      return !valuesEqual(a, v);
    case 'greater-than':
      return compareValues(a, v) > 0;
    case 'less-than':
      return compareValues(a, v) < 0;
    case 'greater-than-equals':
      return compareValues(a, v) >= 0;
    case 'less-than-equals':
      return compareValues(a, v) <= 0;
    case 'contains':
      return typeof a === 'string' && typeof v === 'string' && a.includes(v);
    case 'array_contains':
      return membersOf(a)?.some((x) => valuesEqual(x, v)) ?? false;
    case 'in':
      return membersOf(v)?.some((x) => valuesEqual(x, a)) ?? false;
    case 'array_intersect': {
      const [xs, ys] = [membersOf(a), membersOf(v)];
      return !!xs && !!ys && xs.some((x) => ys.some((y) => valuesEqual(x, y)));
    }
    case 'array_subset': {
      const [xs, ys] = [membersOf(a), membersOf(v)];
      return !!xs && !!ys && xs.every((x) => ys.some((y) => valuesEqual(x, y)));
    }
    case 'array_superset': {
      const [xs, ys] = [membersOf(a), membersOf(v)];
      return !!xs && !!ys && ys.every((y) => xs.some((x) => valuesEqual(x, y)));
    }
  }
}
