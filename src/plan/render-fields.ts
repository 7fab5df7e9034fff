/**
 * An update's fields in words, for the text and Markdown renderers: `name: "Old" → "New"`, a list's
 * added and removed items, and for objects only what changed: an attribute bag key by key
 * (`attributes.level: 3 → 4`, `+attributes.region: "eu"`), a condition set's conditions leaf by leaf
 * (`conditions: resource.amount less-than: 8000 → 3000`). The plan's JSON keeps the whole values.
 */
import type { FieldChange } from './change.js';
import { canonical } from './compare.js';

export function show(v: unknown): string {
  if (v === undefined || v === null) return '(none)';
  return JSON.stringify(v);
}

/** The fields on one line each joined by `; ` (a Markdown cell). */
export function describeFields(fields: FieldChange[]): string {
  return fields.flatMap(fieldLines).join('; ');
}

/** One field's change as lines: one for a value or a list, one per changed key or leaf for an object. */
export function fieldLines(f: FieldChange): string[] {
  if (Array.isArray(f.before) || Array.isArray(f.after)) {
    const before = new Set((f.before as unknown[]) ?? []);
    const after = new Set((f.after as unknown[]) ?? []);
    const added = [...after].filter((x) => !before.has(x));
    const removed = [...before].filter((x) => !after.has(x));
    return [`${f.field}: ${[...added.map((x) => `+${x}`), ...removed.map((x) => `-${x}`)].join(' ')}`];
  }
  const whole = [`${f.field}: ${show(f.before)} → ${show(f.after)}`];
  if (!isBag(f.before) || !isBag(f.after)) return whole;
  const lines =
    f.field === 'conditions'
      ? conditionLines(f.before ?? {}, f.after ?? {})
      : bagLines(f.field, f.before ?? {}, f.after ?? {});
  // Nothing to name key by key (conditions of another shape, or equal but for order): the values whole.
  return lines && lines.length > 0 ? lines : whole;
}

type Bag = Record<string, unknown>;
const isObject = (v: unknown): v is Bag => typeof v === 'object' && v !== null && !Array.isArray(v);
/** An object, or nothing (a field absent on one side). */
const isBag = (v: unknown): v is Bag | null | undefined => v === null || v === undefined || isObject(v);

/** `attributes.level: 3 → 4`, `+attributes.region: "eu"`, `-attributes.dept: "finance"`, in key order. */
function bagLines(field: string, before: Bag, after: Bag): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const lines: string[] = [];
  for (const k of keys) {
    const [a, b] = [before[k], after[k]];
    if (canonical(a) === canonical(b)) continue;
    if (a === undefined || a === null) lines.push(`+${field}.${k}: ${show(b)}`);
    else if (b === undefined || b === null) lines.push(`-${field}.${k}: ${show(a)}`);
    else lines.push(`${field}.${k}: ${show(a)} → ${show(b)}`);
  }
  return lines;
}

/** A leaf of a conditions tree: where (the `anyOf` branches and `not`s above it), what it tests, and on what. */
interface Leaf {
  place: string;
  /** `resource.amount less-than`. */
  test: string;
  value: unknown;
}

/**
 * The leaves that differ, matched by place and test: `conditions: resource.amount less-than: 8000 → 3000`,
 * `conditions: +user.dept equals: "finance"`, `conditions: -…`. Undefined when either tree is not of the
 * conditions' shape (the caller shows it whole).
 */
function conditionLines(before: Bag, after: Bag): string[] | undefined {
  const [a, b] = [leavesOf(before), leavesOf(after)];
  if (!a || !b) return undefined;
  const lines: string[] = [];
  const label = (l: Leaf) => `${l.place}${l.test}`;
  for (const [k, x] of a) {
    const y = b.get(k);
    if (!y) lines.push(`conditions: -${label(x)}: ${show(x.value)}`);
    else if (canonical(x.value) !== canonical(y.value))
      lines.push(`conditions: ${label(x)}: ${show(x.value)} → ${show(y.value)}`);
  }
  for (const [k, y] of b) if (!a.has(k)) lines.push(`conditions: +${label(y)}: ${show(y.value)}`);
  return lines;
}

/**
 * The leaves of a tree by a key that survives reordering within an `allOf` (an AND: where a leaf sits in it
 * says nothing): the `anyOf` branch (by index) and `not` above it, its attribute and operator, and its
 * rank among leaves with all of these alike. Undefined for a tree of another shape.
 */
function leavesOf(tree: Bag): Map<string, Leaf> | undefined {
  const out = new Map<string, Leaf>();
  const walk = (node: unknown, place: string): boolean => {
    if (!isObject(node)) return false;
    const keys = Object.keys(node);
    if (keys.length === 0) return true;
    if (keys.length !== 1) return false;
    const [key] = keys;
    const value = node[key];
    if (key === 'allOf' || (key === 'not' && Array.isArray(value))) {
      const inner = key === 'not' ? `${place}not › ` : place;
      return Array.isArray(value) && value.every((c) => walk(c, inner));
    }
    if (key === 'anyOf') return Array.isArray(value) && value.every((c, i) => walk(c, `${place}anyOf[${i}] › `));
    if (key === 'not') return walk(value, `${place}not › `);
    // A leaf: `{"<attribute>": {"<operator>": value}}`.
    const operator = isObject(value) && Object.keys(value).length === 1 ? Object.keys(value)[0] : undefined;
    const leaf: Leaf = {
      place,
      test: operator === undefined ? key : `${key} ${operator}`,
      value: operator === undefined ? value : (value as Bag)[operator],
    };
    let rank = 0;
    while (out.has(`${place}${leaf.test}#${rank}`)) rank++;
    out.set(`${place}${leaf.test}#${rank}`, leaf);
    return true;
  };
  return walk(tree, '') ? out : undefined;
}
