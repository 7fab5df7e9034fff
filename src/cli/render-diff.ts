/** Renderers of `roster diff` (and `roster export --diff DIR`): text like the plan's, and JSON. */
import type { ObjectDifference } from '../plan/environments.js';
import { agree, plural } from '../words.js';

export interface DiffReport {
  /** What is compared: `declared` or `live`, or `declared/live` for export --diff. */
  on: string;
  a: string;
  b: string;
  differences: ObjectDifference[];
  /** Sections left out of the comparison, with why. */
  note?: string;
}

export function renderDiffText(r: DiffReport): string {
  const n = r.differences.length;
  if (n === 0) return `${r.a} and ${r.b} (${r.on}): no differences.${r.note ? `\n${r.note}` : ''}\n`;
  const lines = [
    `${r.a} → ${r.b} (${r.on}): ${plural(n, 'object')} ${agree(n, 'differs', 'differ')}`,
    `  + only in ${r.b}, - only in ${r.a}, ~ in both, with the fields shown as ${r.a} → ${r.b}`,
    '',
  ];
  for (const d of r.differences) {
    switch (d.kind) {
      case 'only-a':
        lines.push(`  - ${d.id}`);
        break;
      case 'only-b':
        lines.push(`  + ${d.id}`);
        break;
      case 'differs':
        lines.push(`  ~ ${d.id}`);
        for (const f of d.fields) lines.push(`      ${f.field}: ${shown(f.a)} → ${shown(f.b)}`);
        break;
      default: {
        const never: never = d;
        throw new Error(`unknown difference ${JSON.stringify(never)}`);
      }
    }
  }
  if (r.note) lines.push('', r.note);
  return `${lines.join('\n')}\n`;
}

export function renderDiffJson(r: DiffReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

function shown(v: unknown): string {
  if (v === undefined) return '(none)';
  return JSON.stringify(v);
}
