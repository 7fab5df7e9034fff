import type { FieldChange, Plan } from './types.js';
import { deletionCount } from './cascade.js';

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  const { cascaded } = deletionCount(plan.changes);
  return `${s.create} to create, ${s.update} to update, ${s.delete} to delete${cascaded > 0 ? ` (and ${cascaded} that go with them)` : ''}.`;
}

/** `Applying it: 57 requests (30 writes, ...); at least 4 min at the public service's rate limits.` */
export function costLine(plan: Plan): string | undefined {
  const c = plan.cost;
  if (!c || plan.changes.length === 0) return undefined;
  const classes = ([['write', 'write'], ['schemaWrite', 'schema write'], ['delete', 'delete'], ['bulk', 'bulk call']] as const)
    .filter(([k]) => (c.byClass[k] ?? 0) > 0)
    .map(([k, name]) => `${c.byClass[k]} ${name}${c.byClass[k] === 1 ? '' : 's'}`);
  const whose = c.limits === 'public' ? "the public service's rate limits" : 'the given rate limits';
  return `Applying it: ${c.requests} request${c.requests === 1 ? '' : 's'}${classes.length ? ` (${classes.join(', ')})` : ''}; ${duration(c.seconds)} at ${whose}.`;
}

/** `under a second`, `about 40 s`, `about 4 min`, `about 2 h 10 min`. */
export function duration(seconds: number): string {
  if (seconds < 1) return 'under a second';
  if (seconds < 90) return `about ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `about ${minutes} min`;
  return `about ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
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
