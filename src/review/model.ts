import { buildFeedSpec, parseFilter, TABS, type Filter, type Tab } from './filter.js';
import { createFeed, feedComplete, feedItem, feedLength, rowState, type Feed, type FeedQuery, type Order } from './paging.js';
import { failPage, planFetches, receivePage, retryFailed, type PageFetch } from './fetches.js';
import { conflictText, failureText, isOwnEarlierDecision, successText, type DecisionIntent, type Prompt } from './decisions.js';
import { onPromptKey, startDecision, startRoleChange } from './prompts.js';
import type { KeyPress } from './keys.js';
import type { AccessRequest } from './request.js';
import type { RequesterFacts, RoleInfo } from './impact.js';
import type { WaitingInfo } from '../api/index.js';

export { editLine, findRequest, promptQuestion } from './prompts.js';

/**
 * The review queue as a plain state machine: `reduce(state, action)` returns the next state and the
 * effects to run (page reads, decisions, ...). No I/O, no Ink: the controller runs the effects and feeds
 * their answers back as actions; the components render the state.
 */

export type Loadable<T> = { state: 'loading' } | { state: 'loaded'; value: T } | { state: 'failed'; message: string };

export interface Message {
  kind: 'info' | 'success' | 'warning' | 'error';
  text: string;
}

/** A finished decision, printed once above the live screen. */
export interface LogEntry {
  id: number;
  kind: 'success' | 'warning';
  text: string;
}

export interface QueueState {
  user: string;
  tenant: string;
  readonly: boolean;
  tab: Tab;
  filter: Filter;
  /** Oldest first by default: a queue is worked from its oldest request (`s` turns it around). */
  order: Order;
  feed: Feed;
  /**
   * Rows of this feed decided here that no longer belong to the tab (approved or denied under
   * pending): their indices in the feed, ascending. They leave the list at once, without a reload.
   */
  gone: number[];
  /** Requests in each tab, as the service counts them (mine: once its list has been read whole). */
  counts: Partial<Record<Tab, number>>;
  /** Generation of the feed: answers for an older one (before a refresh or filter) are dropped. */
  gen: number;
  perPage: number;
  cursor: number;
  /** Index of the first visible row. */
  top: number;
  width: number;
  rows: number;
  view: 'list' | 'detail' | 'help';
  /** First line of the detail pane shown (ctrl-d / ctrl-u scroll it). */
  detailTop: number;
  /** Where `esc` returns from help. */
  back: 'list' | 'detail';
  prompt?: Prompt;
  /** Decisions sent and not yet answered, by request id (shown optimistically). */
  inflight: Readonly<Record<string, DecisionIntent>>;
  /** Requests as the service last returned them after a decision, by id; cleared on refresh. */
  overlay: Readonly<Record<string, AccessRequest>>;
  roles: Loadable<RoleInfo[]>;
  people: Readonly<Record<string, Loadable<RequesterFacts>>>;
  message?: Message;
  /**
   * The client's latest "still waiting for …" notice while a read or decision is slow to come: shown on
   * the status line (a line on stderr would tear the frame), cleared once nothing is in flight.
   */
  waiting?: WaitingInfo;
  log: LogEntry[];
  quit: boolean;
}

export type Action =
  | { type: 'start' }
  | { type: 'key'; key: KeyPress }
  | { type: 'resize'; width: number; rows: number }
  | { type: 'pageLoaded'; gen: number; fetch: PageFetch; items: AccessRequest[]; total?: number }
  | { type: 'pageFailed'; gen: number; fetch: PageFetch; message: string }
  | { type: 'countsLoaded'; gen: number; counts: Partial<Record<Tab, number>> }
  | { type: 'rolesLoaded'; roles: RoleInfo[] }
  | { type: 'rolesFailed'; message: string }
  | { type: 'personLoaded'; user: string; facts: RequesterFacts }
  | { type: 'personFailed'; user: string; message: string }
  | { type: 'decided'; intent: DecisionIntent; request: AccessRequest }
  | { type: 'conflict'; intent: DecisionIntent; request: AccessRequest }
  | { type: 'decisionFailed'; intent: DecisionIntent; message: string; network: boolean }
  | { type: 'waiting'; info: WaitingInfo }
  | { type: 'waited' };

export type Effect =
  | { type: 'fetchPage'; gen: number; fetch: PageFetch; query: FeedQuery; perPage: number }
  | { type: 'loadRoles' }
  /** The tabs' totals: one small read per list (page 1 of 1 row). */
  | { type: 'loadCounts'; gen: number; queries: { tab: Tab; queries: FeedQuery[] }[] }
  | { type: 'loadPerson'; user: string }
  | { type: 'decide'; intent: DecisionIntent; request: AccessRequest }
  | { type: 'quit' };

export interface Step {
  state: QueueState;
  effects: Effect[];
}

/**
 * Rows around the list: title, tabs, column header, status line, two for a message or prompt, key hints,
 * and one spare: Ink clears the whole terminal on every frame as tall as the terminal.
 */
export const CHROME_ROWS = 8;

export interface QueueOptions {
  user: string;
  tenant: string;
  readonly?: boolean;
  perPage?: number;
  width?: number;
  rows?: number;
  tab?: Tab;
  filter?: string;
  order?: Order;
}

export function initQueue(o: QueueOptions): QueueState {
  const tab = o.tab ?? 'pending';
  const filter = parseFilter(o.filter ?? '');
  const perPage = o.perPage ?? 50;
  const order = o.order ?? 'oldest';
  return {
    user: o.user, tenant: o.tenant, readonly: o.readonly ?? false, tab, filter, order, gone: [], counts: {},
    feed: createFeed(buildFeedSpec(tab, filter, o.user, order), perPage), gen: 1, perPage,
    cursor: 0, top: 0, width: o.width ?? 80, rows: o.rows ?? 24,
    view: 'list', detailTop: 0, back: 'list', inflight: {}, overlay: {}, roles: { state: 'loading' }, people: {}, log: [], quit: false,
  };
}

/** Rows of the list area at the current terminal size. */
export function listHeight(s: Pick<QueueState, 'rows'>): number {
  return Math.max(1, s.rows - CHROME_ROWS);
}

export function rowCount(s: QueueState): number {
  return Math.max(0, feedLength(s.feed) - s.gone.length);
}

/** The feed's index of the `index`-th row shown: the rows that left (`gone`) are stepped over. */
export function feedIndex(s: Pick<QueueState, 'gone'>, index: number): number {
  let at = index;
  for (const g of s.gone) if (g <= at) at++;
  return at;
}

/** The request at `index` as last known (a decision's answer wins over the page it came on). */
export function requestAt(s: QueueState, index: number): AccessRequest | undefined {
  const r = feedItem(s.feed, feedIndex(s, index));
  return r && (s.overlay[r.id] ?? r);
}

export function selected(s: QueueState): AccessRequest | undefined {
  return requestAt(s, s.cursor);
}

export interface VisibleRow {
  index: number;
  request?: AccessRequest;
  state: 'loaded' | 'loading' | 'failed';
  selected: boolean;
  inflight?: DecisionIntent;
}

/** Only the rows on screen: a queue of 10,000 renders `listHeight` rows. */
export function visibleRows(s: QueueState): VisibleRow[] {
  const out: VisibleRow[] = [];
  const end = Math.min(rowCount(s), s.top + listHeight(s));
  for (let i = s.top; i < end; i++) {
    const request = requestAt(s, i);
    out.push({ index: i, request, state: request ? 'loaded' : rowState(s.feed, feedIndex(s, i)), selected: i === s.cursor, inflight: request && s.inflight[request.id] });
  }
  return out;
}

/** Prompts that take text: their keys are typed, not commands. */
const typing = (s: QueueState) => s.prompt?.kind === 'filter' || s.prompt?.kind === 'comment';

export function reduce(s: QueueState, a: Action): Step {
  // Several keys in one read (a fast typist, a paste, a slow link, tmux): each is a key of its own, so
  // `jj` moves twice. Text prompts keep the chunk whole, as typed text.
  if (a.type === 'key' && !a.key.name && !a.key.ctrl && !a.key.meta && [...a.key.input].length > 1 && !typing(s)) {
    let step: Step = { state: s, effects: [] };
    for (const ch of a.key.input) {
      const key: KeyPress = ch === '\r' || ch === '\n' ? { input: '', name: 'return' } : { ...a.key, input: ch };
      const next = reduce(step.state, { type: 'key', key });
      step = { state: next.state, effects: [...step.effects, ...next.effects] };
    }
    return step;
  }
  // Text typed fast (or pasted, or sent by a terminal multiplexer) can arrive with its Enter in one
  // chunk: "looks good\r". Split it into the text and the key, so the Enter is not typed as text.
  if (a.type === 'key' && !a.key.name && a.key.input.length > 1 && /[\r\n]/.test(a.key.input)) {
    const parts = a.key.input.split(/(\r\n|\r|\n)/);
    let step: Step = { state: s, effects: [] };
    for (const part of parts) {
      if (part === '') continue;
      const next = reduce(step.state, { type: 'key', key: /^[\r\n]+$/.test(part) ? { input: '', name: 'return' } : { ...a.key, input: part } });
      step = { state: next.state, effects: [...step.effects, ...next.effects] };
    }
    return step;
  }
  const step = apply(s, a);
  return settle(step.state, step.effects);
}

function apply(s: QueueState, a: Action): Step {
  switch (a.type) {
    case 'start':
      return { state: s, effects: [{ type: 'loadRoles' }, countsEffect(s)] };
    case 'countsLoaded':
      return a.gen === s.gen ? only({ ...s, counts: { ...s.counts, ...a.counts } }) : only(s);
    case 'resize':
      return only({ ...s, width: Math.max(20, a.width), rows: Math.max(CHROME_ROWS + 1, a.rows) });
    case 'waiting':
      return only({ ...s, waiting: a.info });
    case 'waited': {
      if (!s.waiting) return only(s);
      const { waiting: _, ...rest } = s;
      return only(rest);
    }
    case 'pageLoaded':
      return a.gen === s.gen ? only({ ...s, feed: receivePage(s.feed, a.fetch, a.items, a.total) }) : only(s);
    case 'pageFailed':
      if (a.gen !== s.gen) return only(s);
      return only({ ...s, feed: failPage(s.feed, a.fetch, a.message), message: { kind: 'error', text: `could not load the queue (${a.message}): press R to retry` } });
    case 'rolesLoaded':
      return only({ ...s, roles: { state: 'loaded', value: a.roles } });
    case 'rolesFailed':
      return only({ ...s, roles: { state: 'failed', message: a.message } });
    case 'personLoaded':
      return only({ ...s, people: { ...s.people, [a.user]: { state: 'loaded', value: a.facts } } });
    case 'personFailed':
      return only({ ...s, people: { ...s.people, [a.user]: { state: 'failed', message: a.message } } });
    case 'decided':
      return finish(s, a.intent, a.request, { kind: 'success', text: successText(a.intent, a.request) });
    case 'conflict':
      if (isOwnEarlierDecision(a.intent, a.request, s.user)) return finish(s, a.intent, a.request, { kind: 'success', text: successText(a.intent, a.request) });
      return finish(s, a.intent, a.request, { kind: 'warning', text: conflictText(a.intent, a.request) });
    case 'decisionFailed': {
      const inflight = { ...s.inflight };
      delete inflight[a.intent.id];
      return only({ ...s, inflight, message: { kind: 'error', text: failureText(a.intent, a) } });
    }
    case 'key':
      return onKey(s, a.key);
  }
}

function finish(s: QueueState, intent: DecisionIntent, request: AccessRequest, message: Message & { kind: 'success' | 'warning' }): Step {
  const inflight = { ...s.inflight };
  delete inflight[intent.id];
  const log = [...s.log, { id: s.log.length + 1, kind: message.kind, text: message.text }];
  // The requester's roles may have changed: read them again when next shown.
  const people = { ...s.people };
  if (intent.kind === 'approve') delete people[request.requester];
  let gone = s.gone;
  // Under pending, a request that is no longer pending leaves the queue now, not at the next reload.
  if (s.tab === 'pending' && request.status !== 'pending') {
    const at = feedIndexOf(s, intent.id);
    if (at !== undefined && !gone.includes(at)) gone = [...gone, at].sort((x, y) => x - y);
  }
  const next = { ...s, inflight, overlay: { ...s.overlay, [intent.id]: request }, people, message, log, gone };
  // Back to the detail's list when the request shown left it; the counts change with every decision.
  return { state: next.view === 'detail' && gone !== s.gone && selected(s)?.id === intent.id ? { ...next, view: 'list' } : next, effects: [countsEffect(next)] };
}

/** The feed index of a loaded request, by id. */
function feedIndexOf(s: QueueState, id: string): number | undefined {
  const n = feedLength(s.feed);
  for (let i = 0; i < n; i++) if (feedItem(s.feed, i)?.id === id) return i;
  return undefined;
}

/** The counts to read: pending and decided from the service (with the filter's service part); mine is counted as read. */
function countsEffect(s: QueueState): Effect {
  const tabs = (['pending', 'decided'] as const).map((tab) => ({ tab, queries: buildFeedSpec(tab, parseFilter(''), s.user).queries }));
  return { type: 'loadCounts', gen: s.gen, queries: tabs };
}

/** The count of a tab to show: the service's, or for the tab on screen once its list is read whole, its rows. */
export function tabCount(s: QueueState, tab: Tab): number | undefined {
  if (tab === s.tab && !s.filter.text && feedComplete(s.feed)) return rowCount(s);
  return s.counts[tab];
}

const quit = (s: QueueState): Step => (s.quit ? only(s) : { state: { ...s, quit: true }, effects: [{ type: 'quit' }] });
export const only = (state: QueueState): Step => ({ state, effects: [] });
export const say = (s: QueueState, kind: Message['kind'], text: string): Step => only({ ...s, message: { kind, text } });

/** After every action: keep the cursor in bounds and on screen, read missing pages and people. */
function settle(s: QueueState, effects: Effect[]): Step {
  const n = rowCount(s);
  const h = listHeight(s);
  const cursor = Math.max(0, Math.min(s.cursor, n - 1));
  let top = Math.min(s.top, cursor);
  if (cursor >= top + h) top = cursor - h + 1;
  top = Math.max(0, Math.min(top, Math.max(0, n - h)));
  let next: QueueState = cursor === s.cursor && top === s.top ? s : { ...s, cursor, top };
  const out = [...effects];
  // Read ahead one screen, so moving down rarely shows placeholders.
  const planned = planFetches(next.feed, top, top + 2 * h);
  if (planned.fetches.length > 0) {
    next = { ...next, feed: planned.feed };
    for (const fetch of planned.fetches) out.push({ type: 'fetchPage', gen: next.gen, fetch, query: next.feed.spec.queries[fetch.source], perPage: next.perPage });
  }
  const r = selected(next);
  if (next.view === 'detail' && r && next.people[r.requester] === undefined) {
    next = { ...next, people: { ...next.people, [r.requester]: { state: 'loading' } } };
    out.push({ type: 'loadPerson', user: r.requester });
  }
  return { state: next, effects: out };
}

/** The tab's list read anew (a new generation: answers for the old one are dropped). */
export function reload(s: QueueState, changes: Partial<QueueState>): QueueState {
  const next = { ...s, ...changes };
  return { ...next, feed: createFeed(buildFeedSpec(next.tab, next.filter, next.user, next.order), next.perPage), gen: s.gen + 1, overlay: {}, gone: [] };
}

function onKey(s: QueueState, k: KeyPress): Step {
  if (k.ctrl && k.input === 'c') return quit(s);
  if (s.prompt) return onPromptKey(s, s.prompt, k);
  if (s.view === 'help') {
    if (k.name === 'escape' || k.name === 'return' || k.input === '?' || k.input === 'q') return only({ ...s, view: s.back, message: undefined });
    return only(s);
  }
  const h = listHeight(s);
  const half = Math.max(1, Math.floor(h / 2));
  if (k.name === 'down' || k.input === 'j') return only({ ...s, cursor: s.cursor + 1, detailTop: 0 });
  if (k.name === 'up' || k.input === 'k') return only({ ...s, cursor: s.cursor - 1, detailTop: 0 });
  if (s.view === 'detail' && (k.name === 'pagedown' || (k.ctrl && k.input === 'd'))) return only({ ...s, detailTop: s.detailTop + half });
  if (s.view === 'detail' && (k.name === 'pageup' || (k.ctrl && k.input === 'u'))) return only({ ...s, detailTop: Math.max(0, s.detailTop - half) });
  if (k.name === 'pagedown' || (k.ctrl && k.input === 'd')) return only({ ...s, cursor: s.cursor + half, top: s.top + half });
  if (k.name === 'pageup' || (k.ctrl && k.input === 'u')) return only({ ...s, cursor: s.cursor - half, top: Math.max(0, s.top - half) });
  if (k.name === 'home' || k.input === 'g') return only({ ...s, cursor: 0 });
  if (k.name === 'end' || k.input === 'G') return only({ ...s, cursor: Math.max(0, rowCount(s) - 1) });
  if (k.name === 'return') return selected(s) ? only({ ...s, view: 'detail', detailTop: 0, message: undefined }) : only(s);
  if (k.name === 'escape') {
    if (s.view === 'detail') return only({ ...s, view: 'list' });
    if (s.message) return only({ ...s, message: undefined });
    if (s.filter.text) return only(reload(s, { filter: parseFilter(''), cursor: 0, top: 0 }));
    return only(s);
  }
  if (k.name === 'tab' || ['1', '2', '3'].includes(k.input)) {
    const i = TABS.indexOf(s.tab);
    const tab = k.name === 'tab' ? TABS[(i + (k.shift ? TABS.length - 1 : 1)) % TABS.length] : TABS[Number(k.input) - 1];
    return only(reload(s, { tab, cursor: 0, top: 0, view: 'list', message: undefined }));
  }
  if (k.input === 's') {
    const order: Order = s.order === 'oldest' ? 'newest' : 'oldest';
    return only(reload(s, { order, cursor: 0, top: 0, view: 'list', message: { kind: 'info', text: `${order} first` } }));
  }
  if (k.input === '/') return only({ ...s, prompt: { kind: 'filter', draft: s.filter.text } });
  if (k.input === '?') return only({ ...s, view: 'help', back: s.view === 'detail' ? 'detail' : 'list' });
  if (k.input === 'q') return quit(s);
  if (k.input === 'R') return refresh(s);
  if (k.input === 'a') return startDecision(s, 'approve');
  if (k.input === 'd') return startDecision(s, 'deny');
  if (k.input === 'c') return startDecision(s, 'update');
  if (k.input === 'x') return startDecision(s, 'cancel');
  if (k.input === 'r') return startRoleChange(s);
  return only(s);
}

function refresh(s: QueueState): Step {
  const next = reload(s, { people: {}, message: { kind: 'info', text: 'refreshed' } });
  const effects: Effect[] = s.roles.state === 'failed' ? [{ type: 'loadRoles' }, countsEffect(next)] : [countsEffect(next)];
  return { state: { ...next, roles: s.roles.state === 'failed' ? { state: 'loading' } : s.roles, feed: retryFailed(next.feed) }, effects };
}
