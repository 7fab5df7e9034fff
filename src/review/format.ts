import { optimisticStatus, type DecisionIntent } from './decisions.js';
import { summarizeFeed } from './paging.js';
import { targetOf, type AccessRequest } from './request.js';
import { listHeight, rowCount } from './rows.js';
import type { QueueState } from './state.js';
import type { WaitingInfo } from '../api/index.js';

/** Pure text helpers for the screen: truncation, ages, columns, the status line. */

export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text.replace(/[\r\n\t]+/g, ' ')];
  return chars.length <= width ? chars.join('') : chars.slice(0, Math.max(0, width - 1)).join('') + '…';
}

export function pad(text: string, width: number): string {
  const t = truncate(text, width);
  return t + ' '.repeat(Math.max(0, width - [...t].length));
}

/** "42s", "5m", "3h", "2d", "6w" */
export function age(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '?';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  if (s < 86400 * 14) return `${Math.floor(s / 86400)}d`;
  return `${Math.floor(s / (86400 * 7))}w`;
}

export interface Columns {
  requester: number;
  tenant: number;
  role: number;
  target: number;
  age: number;
  status: number;
  reason: number;
}

/** Column widths for a terminal `width` wide: the reason takes what is left. */
export function columnsFor(width: number): Columns {
  const narrow = width < 90;
  const c = { requester: narrow ? 11 : 14, tenant: narrow ? 8 : 12, role: narrow ? 9 : 12, target: narrow ? 18 : 24, age: 4, status: 10, reason: 0 };
  const used = 2 + c.requester + c.tenant + c.role + c.target + c.age + c.status + 6;
  c.reason = Math.max(0, width - used - 1);
  return c;
}

export function statusText(r: AccessRequest, inflight?: DecisionIntent): string {
  return inflight ? optimisticStatus(inflight.kind) : r.status;
}

/** One row of the queue, without the selection marker. */
export function formatRow(r: AccessRequest, c: Columns, now: number, inflight?: DecisionIntent): string {
  return [
    pad(r.own ? `${r.requester} (you)` : r.requester, c.requester),
    pad(r.tenant, c.tenant),
    pad(r.role, c.role),
    pad(targetOf(r), c.target),
    pad(age(r.createdAt, now), c.age),
    pad(statusText(r, inflight), c.status),
    truncate(r.reason ?? '', c.reason),
  ].join(' ');
}

export function formatHeader(c: Columns): string {
  return [pad('REQUESTER', c.requester), pad('TENANT', c.tenant), pad('ROLE', c.role), pad('RESOURCE/INSTANCE', c.target), pad('AGE', c.age), pad('STATUS', c.status), truncate('REASON', c.reason)].join(' ');
}

const n = (x: number) => x.toLocaleString('en-US');

/**
 * The status line while an answer is slow to come: the CLI's "still waiting for …" line (src/cli/waiting.ts)
 * with the times first, so a narrow terminal cuts the path, not the seconds.
 */
export function formatWaiting(w: WaitingInfo): string {
  return `still waiting for the service: ${Math.round(w.waitedMs / 1000)} s so far (attempt ${w.attempt}, gives up after ${Math.round(w.deadlineMs / 1000)} s; --timeout) · ${w.method} ${w.path}`;
}

/** "1–17 of 10,000 · page 1/200" and friends. */
export function formatPosition(s: QueueState): string {
  const f = summarizeFeed(s.feed);
  const rows = rowCount(s);
  const gone = s.gone.length;
  const loading = s.feed.kind === 'exact' ? f.total === undefined : f.scanning !== undefined || (f.total === undefined && rows === 0);
  if (rows === 0) {
    if (f.failed) return 'could not load';
    if (loading) return f.scanning ? `scanning… ${n(f.scanning.read)}${f.scanning.of !== undefined ? ` of ${n(f.scanning.of)}` : ''} read` : 'loading…';
    return s.filter.text ? 'no request matches the filter' : `no ${s.tab === 'mine' ? 'request of yours' : `${s.tab} request`}`;
  }
  const first = s.top + 1;
  const last = Math.min(rows, s.top + listHeight(s));
  const range = `${n(first)}–${n(last)}`;
  if (f.scanning) return `${range} of ${n(rows)} matching · ${n(f.scanning.read)}${f.scanning.of !== undefined ? ` of ${n(f.scanning.of)}` : ''} read`;
  const total = f.total !== undefined ? ` of ${n(f.total - gone)}` : ` of ${n(rows)}+`;
  const pages = f.total !== undefined && s.feed.kind === 'exact' ? ` · page ${Math.floor(s.cursor / s.perPage) + 1}/${Math.max(1, Math.ceil(f.total / s.perPage))}` : '';
  return `${range}${total}${pages}`;
}

/**
 * Key hints that fit in `width`: each hint has a priority (lower shows first); those that do not fit
 * are left out (the `?` help lists everything), and the rest keep their order.
 */
export function fitHints(hints: readonly (readonly [text: string, priority: number])[], width: number): string {
  const sep = ' · ';
  const chosen = new Set<number>();
  let used = 0;
  const order = hints.map((h, i) => [h[1], i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [, i] of order) {
    const cost = [...hints[i][0]].length + (chosen.size > 0 ? sep.length : 0);
    if (used + cost > width) continue;
    chosen.add(i);
    used += cost;
  }
  return hints.filter((_, i) => chosen.has(i)).map((h) => h[0]).join(sep);
}

/** Word-wraps `text` into at most `max` lines of `width`; the last line is truncated. */
export function wrapLines(text: string, width: number, max: number): string[] {
  const words = text.replace(/[\r\n\t]+/g, ' ').split(' ');
  const lines: string[] = [];
  let line = '';
  for (let i = 0; i < words.length; i++) {
    const next = line ? `${line} ${words[i]}` : words[i];
    if ([...next].length <= width || !line) {
      line = next;
      continue;
    }
    if (lines.length === max - 1) return [...lines, truncate([line, ...words.slice(i)].join(' '), width)];
    lines.push(line);
    line = words[i];
  }
  return [...lines, truncate(line, width)];
}

/**
 * Word-wraps `text` whole into lines of `width` (a word longer than a line is broken), the first line
 * after `first`, the others indented by `indent`: a reason or a caveat is never cut.
 */
export function wrapAll(text: string, width: number, first = '', indent = ''): string[] {
  const room = Math.max(8, width - [...indent].length);
  const words = text.replace(/[\r\n\t]+/g, ' ').split(' ').filter((w) => w !== '');
  const lines: string[] = [];
  let line = first;
  let limit = Math.max(8, width);
  for (let word of words) {
    for (;;) {
      const sep = line === first || line === indent ? '' : ' ';
      if ([...line].length + sep.length + [...word].length <= limit) {
        line += sep + word;
        break;
      }
      if (line === first || line === indent) {
        // A word longer than the line: break it.
        const fit = Math.max(1, limit - [...line].length);
        line += [...word].slice(0, fit).join('');
        word = [...word].slice(fit).join('');
      }
      lines.push(line);
      line = indent;
      limit = indent.length + room;
      if (word === '') break;
    }
  }
  if (line !== indent || lines.length === 0) lines.push(line);
  return lines;
}
