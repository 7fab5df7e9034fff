import { AttrSet, type Value } from './types.js';

/**
 * Rego's total order across types (the service is right, api-notes): null < boolean < number < string <
 * array < set < object, so `"0" > 3` holds as it does in Permit's PDP. Within a type: false < true,
 * numbers by value, strings by code point (UTF-8 byte order, as Go compares), arrays element by element
 * then by length, sets as their sorted items, objects by their sorted keys, then values in key order.
 */
export function compareValues(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return Number(a) - Number(b);
    case 2:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return compareStrings(a as string, b as string);
    case 4:
      return compareLists(a as Value[], b as Value[]);
    case 5:
      return compareLists(sortedItems(a as AttrSet), sortedItems(b as AttrSet));
    default: {
      const oa = a as Record<string, Value>;
      const ob = b as Record<string, Value>;
      const ka = Object.keys(oa).sort(compareStrings);
      const kb = Object.keys(ob).sort(compareStrings);
      const byKeys = compareLists(ka, kb);
      if (byKeys !== 0) return byKeys;
      for (const k of ka) {
        const c = compareValues(oa[k], ob[k]);
        if (c !== 0) return c;
      }
      return 0;
    }
  }
}

/** Deep JSON equality (`1 == 1.0`; `"true" != true`; an array never equals a set). */
export function valuesEqual(a: Value, b: Value): boolean {
  return compareValues(a, b) === 0;
}

function rank(v: Value): number {
  if (v === null) return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  if (Array.isArray(v)) return 4;
  if (v instanceof AttrSet) return 5;
  return 6;
}

function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

function compareLists(a: Value[], b: Value[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function sortedItems(s: AttrSet): Value[] {
  return [...s.items].sort(compareValues);
}

/** The members of a collection as Rego's `some x in v` sees them (array items, set items, object values); undefined for a scalar. */
export function membersOf(v: Value | undefined): Value[] | undefined {
  if (v === undefined || v === null || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) return v;
  if (v instanceof AttrSet) return v.items;
  return Object.values(v);
}
