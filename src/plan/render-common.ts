import type { FieldChange, Plan } from './types.js';

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  return `${s.create} to create, ${s.update} to update, ${s.delete} to delete.`;
}

export function show(v: unknown): string {
  if (v === undefined || v === null) return '(none)';
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
}

/** `name: "Old" → "New"`; lists show what was added and removed. */
export function describeFields(fields: FieldChange[]): string {
  return fields
    .map((f) => {
      if (Array.isArray(f.before) || Array.isArray(f.after)) {
        const before = new Set((f.before as unknown[]) ?? []);
        const after = new Set((f.after as unknown[]) ?? []);
        const added = [...after].filter((x) => !before.has(x));
        const removed = [...before].filter((x) => !after.has(x));
        return `${f.field}: ${[...added.map((x) => `+${x}`), ...removed.map((x) => `-${x}`)].join(' ')}`;
      }
      return `${f.field}: ${show(f.before)} → ${show(f.after)}`;
    })
    .join('; ');
}
