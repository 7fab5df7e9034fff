import type { FieldChange } from './change.js';
import type { Plan } from './types.js';
import { deletionCount } from './cascade.js';

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  const { cascaded } = deletionCount(plan.changes);
  return `${s.create} to create, ${s.update} to update, ${s.delete} to delete${cascaded > 0 ? ` (and ${cascaded} that go with them)` : ''}.`;
}

/**
 * `Applying it: 11 requests, all writes (5 schema writes and 3 bulk calls among them); about 4 min,
 * paced to the public service's rate limits.` The rate-limit classes overlap (a schema write, a delete
 * and a bulk call are writes too), so they are said as parts of the writes, not as a sum. Against a
 * service the apply does not pace (a local `roster serve`), the time is what the public limits would need.
 */
export function costLine(plan: Plan): string | undefined {
  const c = plan.cost;
  if (!c || plan.changes.length === 0) return undefined;
  const writes = c.byClass.write ?? 0;
  const among = ([['schemaWrite', 'schema write'], ['delete', 'delete'], ['bulk', 'bulk call']] as const)
    .filter(([k]) => (c.byClass[k] ?? 0) > 0)
    .map(([k, name]) => plural(c.byClass[k]!, name));
  const kinds =
    writes === 0 ? '' : `, ${writes === c.requests ? (writes === 1 ? 'a write' : 'all writes') : `${writes} of them writes`}` +
      (among.length ? ` (${andList(among)} among them)` : '');
  const whose = c.limits === 'public' ? "the public service's rate limits" : 'the given rate limits';
  const time = c.paced === false ? `not paced against this service (${duration(c.seconds)} at ${whose})` : `${duration(c.seconds)}, paced to ${whose}`;
  return `Applying it: ${plural(c.requests, 'request')}${kinds}; ${time}.`;
}

/** `1 object`, `2 objects`, `9,117 changes`. */
export function plural(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

function andList(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
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
