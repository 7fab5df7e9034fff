/** Fields of an object, compared one by one. */
export type Fields = Record<string, unknown>;

/** One field of an update (or of what a replacing create replaces): its value before and after. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** Field-level differences of two field sets, comparing values canonically (key order and missing vs empty ignored). */
export function diffFields(before: object, after: object): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of Object.keys(after)) {
    const a = (before as Fields)[field];
    const b = (after as Fields)[field];
    // The same value is the same canonically: most fields of most objects in a plan are unchanged.
    if (a !== b && canonical(a) !== canonical(b)) out.push({ field, before: a ?? null, after: b ?? null });
  }
  return out;
}

/**
 * A stable text form: object keys sorted, and "nothing" spelled one way (`undefined`, `null`, `''` and
 * `{}` are all "not set"), so that a service answering `description: null` matches a configuration that
 * does not mention a description.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(normalise(value)) ?? 'null';
}

function normalise(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return null;
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return null;
    return Object.fromEntries(
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, normalise(v)]),
    );
  }
  return value;
}

/** Drops undefined values, so a plan's JSON carries only what is set. */
export function defined<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}
