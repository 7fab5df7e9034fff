import { optimisticStatus, type DecisionIntent } from './decisions.js';
import { summarizeFeed } from './paging.js';
import { targetOf, type AccessRequest } from './request.js';
import { listHeight, rowCount } from './rows.js';
import type { QueueState } from './state.js';
import type { WaitingInfo } from '../api/index.js';
import type { Tab } from './filter.js';

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
  role: number;
  target: number;
  /** The element configuration (and its lifetime); 0 when the queue has one configuration. */
  config: number;
  age: number;
  status: number;
  reason: number;
}

/**
 * Column widths for a terminal `width` wide. No TENANT column: the queue is one tenant's, named in the
 * title. CONFIG only when the queue spans several element configurations. The reason, what a reviewer
 * decides on, takes what is left, and the fixed columns are sized so that it is the widest at 80 and
 * 120 columns.
 */
export function columnsFor(width: number, o: { config?: boolean } = {}): Columns {
  const narrow = width < (o.config ? 120 : 100);
  const c: Columns = o.config
    ? {
        requester: narrow ? 9 : 14,
        role: narrow ? 8 : 12,
        target: narrow ? 16 : 22,
        config: narrow ? 8 : 12,
        age: 4,
        status: 10,
        reason: 0,
      }
    : {
        requester: narrow ? 10 : 14,
        role: narrow ? 9 : 12,
        target: narrow ? 17 : 24,
        config: 0,
        age: 4,
        status: 10,
        reason: 0,
      };
  const columns = o.config ? 7 : 6;
  const used = 2 + c.requester + c.role + c.target + c.config + c.age + c.status + (columns - 1);
  c.reason = Math.max(0, width - used - 1);
  return c;
}

export function statusText(r: AccessRequest, inflight?: DecisionIntent, duplicates = 0, revoked = false): string {
  if (inflight) return optimisticStatus(inflight.kind);
  // Approved, and the grant is gone since (rows.ts grantGone): not what "approved" would have the reviewer believe.
  if (revoked) return 'revoked';
  // Several pending requests by one requester for one role on one place: marked, so all but one go.
  return duplicates > 1 && r.status === 'pending' ? `dup ×${duplicates}` : r.status;
}

/** When a row's AGE counts from: the decision on the decided tab (what a reviewer looks back at), the request elsewhere. */
export function ageFrom(r: AccessRequest, tab: Tab): string {
  return tab === 'decided' && r.status !== 'pending' ? (r.reviewedAt ?? r.updatedAt) : r.createdAt;
}

export interface RowOptions {
  inflight?: DecisionIntent;
  tab?: Tab;
  /** Pending requests among the rows read with this one's requester, role and place (this one included). */
  duplicates?: number;
  /** The configuration cell: `oncall 12h`. */
  config?: string;
  /** Approved, and its grant is gone (rows.ts grantGone). */
  revoked?: boolean;
}

/** One row of the queue, without the selection marker. */
export function formatRow(r: AccessRequest, c: Columns, now: number, o: RowOptions = {}): string {
  return [
    pad(r.own ? `${r.requester} (you)` : r.requester, c.requester),
    pad(r.role, c.role),
    pad(targetOf(r), c.target),
    // The lifetime only when it fits: a cut `oncall …` says less than `oncall` (the details say it whole).
    ...(c.config > 0
      ? [
          pad(
            o.config !== undefined && [...o.config].length <= c.config ? o.config : (r.config ?? o.config ?? ''),
            c.config,
          ),
        ]
      : []),
    pad(age(ageFrom(r, o.tab ?? 'pending'), now), c.age),
    pad(statusText(r, o.inflight, o.duplicates, o.revoked), c.status),
    truncate(r.reason ?? '', c.reason),
  ].join(' ');
}

export function formatHeader(c: Columns, tab: Tab = 'pending'): string {
  return [
    pad('REQUESTER', c.requester),
    pad('ROLE', c.role),
    pad('RESOURCE/INSTANCE', c.target),
    ...(c.config > 0 ? [pad('CONFIG', c.config)] : []),
    // On the decided tab the age is the decision's.
    pad(tab === 'decided' ? 'DONE' : 'AGE', c.age),
    pad('STATUS', c.status),
    truncate('REASON', c.reason),
  ].join(' ');
}

const n = (x: number) => x.toLocaleString('en-US');

/**
 * The status line while an answer is slow to come: the CLI's "still waiting for …" line (src/usecases/waiting.ts)
 * with the times first, so a narrow terminal cuts the path, not the seconds.
 */
export function formatWaiting(w: WaitingInfo): string {
  return `still waiting for the service: ${Math.round(w.waitedMs / 1000)} s so far (attempt ${w.attempt}, gives up after ${Math.round(w.deadlineMs / 1000)} s; --timeout) · ${w.method} ${w.path}`;
}

/** A row's configuration and, when the repository's configuration gives it one, its lifetime: `oncall 12h`. */
export function configLabel(s: Pick<QueueState, 'lifetimes'>, config: string | undefined): string {
  if (config === undefined) return '';
  const life = s.lifetimes[config];
  return life ? `${config} ${life}` : config;
}

/** "1–17 of 10,000 · page 1/200" and friends. */
export function formatPosition(s: QueueState): string {
  const f = summarizeFeed(s.feed);
  const rows = rowCount(s);
  const gone = s.gone.length;
  const loading =
    s.feed.kind === 'exact' ? f.total === undefined : f.scanning !== undefined || (f.total === undefined && rows === 0);
  if (rows === 0) {
    if (f.failed) return 'could not load';
    if (loading)
      return f.scanning
        ? `scanning… ${n(f.scanning.read)}${f.scanning.of !== undefined ? ` of ${n(f.scanning.of)}` : ''} read`
        : 'loading…';
    if (s.filter.text) return 'no request matches the filter';
    // An empty queue of a user who reviews nothing says so, and which roles would make them a reviewer.
    if (s.tab === 'pending' && s.reviewing.state === 'loaded' && !s.reviewing.value.reviews) {
      const roles = s.reviewing.value.roles;
      return `you review no requests in ${s.tenant} (reviewer roles: ${roles.length > 0 ? roles.join(', ') : 'none: the configuration names none'})`;
    }
    return `no ${s.tab === 'mine' ? 'request of yours' : `${s.tab} request`}`;
  }
  const first = s.top + 1;
  const last = Math.min(rows, s.top + listHeight(s));
  const range = `${n(first)}–${n(last)}`;
  if (f.scanning)
    return `${range} of ${n(rows)} matching · ${n(f.scanning.read)}${f.scanning.of !== undefined ? ` of ${n(f.scanning.of)}` : ''} read`;
  const total = f.total !== undefined ? ` of ${n(f.total - gone)}` : ` of ${n(rows)}+`;
  const pages =
    f.total !== undefined && s.feed.kind === 'exact'
      ? ` · page ${Math.floor(s.cursor / s.perPage) + 1}/${Math.max(1, Math.ceil(f.total / s.perPage))}`
      : '';
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
  return hints
    .filter((_, i) => chosen.has(i))
    .map((h) => h[0])
    .join(sep);
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
  const words = text
    .replace(/[\r\n\t]+/g, ' ')
    .split(' ')
    .filter((w) => w !== '');
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
