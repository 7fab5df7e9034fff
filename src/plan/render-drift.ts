/** The drift report (drift.ts) as text, Markdown (the scheduled job's issue, docs/ci.md) or JSON. */
import { count, plural } from '../words.js';
import type { DriftObject, DriftReport } from './drift.js';
import { cell, codeCell } from './markdown.js';

export const DRIFT_FORMATS = ['text', 'markdown', 'json'] as const;
export type DriftFormat = (typeof DRIFT_FORMATS)[number];

/** Starts every Markdown report: the scheduled job finds its one issue by it (and by its label). */
export const DRIFT_MARKER = '<!-- roster-drift -->';

const STATE_WORDS = { missing: 'deleted out of band', changed: 'changed out of band', added: 'added out of band' };
const SIGN = { missing: '-', changed: '~', added: '+' };

export function renderDrift(report: DriftReport, format: DriftFormat): string {
  switch (format) {
    case 'text':
      return renderDriftText(report);
    case 'markdown':
      return renderDriftMarkdown(report);
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
  }
}

const where = (r: DriftReport) => `${r.project}/${r.environment}${r.target ? ` (${r.target})` : ''}`;

function headline(r: DriftReport): string {
  if (r.objects.length === 0) return `No drift in ${where(r)}: the live environment is as the configuration declares.`;
  return `Drift in ${where(r)}: ${plural(r.objects.length, 'object')} ${r.objects.length === 1 ? 'differs' : 'differ'} from the configuration.`;
}

function historyLine(r: DriftReport): string {
  if (!r.history.read) return `The change history was not read: ${r.history.reason}. Who changed what is not known.`;
  return `Who and when: the change history since ${r.since} (${plural(r.history.calls, 'write')} read, ${count(r.history.bodies)} request ${r.history.bodies === 1 ? 'body' : 'bodies'}).`;
}

function what(o: DriftObject): string {
  return `${STATE_WORDS[o.state]}${o.fields?.length ? ` (${o.fields.join(', ')})` : ''}`;
}

function who(o: DriftObject, r: DriftReport): string {
  if (!r.history.read) return 'unknown (no history)';
  if (!o.cause) return `no write since ${r.since} names it`;
  return `${o.cause.actor} at ${o.cause.at} (${o.cause.method} ${o.cause.path})`;
}

export function renderDriftText(r: DriftReport): string {
  const lines = [headline(r)];
  if (r.objects.length > 0) {
    const width = Math.min(60, Math.max(...r.objects.map((o) => o.id.length)));
    for (const o of r.objects) lines.push(`  ${SIGN[o.state]} ${o.id.padEnd(width)}  ${what(o)}; by ${who(o, r)}`);
    lines.push(historyLine(r));
  } else if (!r.history.read) lines.push(historyLine(r));
  return `${lines.join('\n')}\n`;
}

export function renderDriftMarkdown(r: DriftReport): string {
  const lines = [DRIFT_MARKER, `### Roster drift: ${where(r)}`, '', headline(r)];
  if (r.objects.length > 0) {
    lines.push('', '| | Object | What | Who | When | Call |', '|---|---|---|---|---|---|');
    for (const o of r.objects) {
      const c = o.cause;
      const unknown = r.history.read ? 'not in the history' : 'unknown';
      lines.push(
        `| ${SIGN[o.state]} | ${codeCell(o.id)} | ${cell(what(o))} | ${c ? cell(c.actor) : unknown} | ${c ? cell(c.at) : ''} | ${c ? codeCell(`${c.method} ${c.path}`) : ''} |`,
      );
    }
  }
  lines.push('', historyLine(r), '');
  return lines.join('\n');
}
