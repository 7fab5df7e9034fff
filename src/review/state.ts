import { buildFeedSpec, parseFilter, type Filter, type Tab } from './filter.js';
import { createFeed, type Feed, type FeedQuery, type Order } from './paging.js';
import type { PageFetch } from './fetches.js';
import type { DecisionIntent, Prompt } from './decisions.js';
import type { KeyPress } from './keys.js';
import type { AccessRequest } from './request.js';
import type { RequesterFacts, RoleInfo, SetRulesRead } from './impact.js';
import type { WaitingInfo } from '../api/index.js';
import type { LiveState } from '../types/live.js';

/**
 * The review queue's state, and what passes between the model (model.ts) and the controller: the
 * actions the model takes in, the effects it asks for. With the builders every part of the reducer
 * shares: a new queue, its list read anew, the tabs' counts to read, a step. Plain data: no I/O, no Ink.
 */

export interface Reviewing {
  /** The reviewer roles (LEVEL_1, LEVEL_2) of the queue's configurations. */
  roles: string[];
  /** The user holds one of them tenant-wide in the tenant. */
  reviews: boolean;
  /** The configurations where the user is the only one who does: nobody can decide the user's own requests there. */
  alone?: string[];
}

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
  /** The set rules, read with the roles; null when they could not be read (the impact then says so). */
  setRules?: SetRulesRead | null;
  /**
   * The whole environment, for the full "If approved" (impact-live.ts): read when a request's details are
   * first shown (absent until then), again after R; an approval made here is added to it.
   */
  live?: Loadable<LiveState>;
  people: Readonly<Record<string, Loadable<RequesterFacts>>>;
  /** The element configurations the queue spans (one queue across them); each row names its own when several. */
  configs: readonly string[];
  /** `grant_for` of a configuration, when the repository's configuration declares one (it is not on the service). */
  lifetimes: Readonly<Record<string, string>>;
  /** Whether the user reviews anything in the tenant, and the reviewer roles: what an empty pending tab says. */
  reviewing: Loadable<Reviewing>;
  message?: Message;
  /**
   * The client's latest "still waiting for …" notice while a read or decision is slow to come: shown on
   * the status line (a line on stderr would tear the frame), cleared once nothing is in flight.
   */
  waiting?: WaitingInfo;
  log: LogEntry[];
  quit: boolean;
}

/** What comes back from outside: an effect's answer, or the client's notice that one is slow. */
export type Answer =
  | { type: 'pageLoaded'; gen: number; fetch: PageFetch; items: AccessRequest[]; total?: number }
  | { type: 'pageFailed'; gen: number; fetch: PageFetch; message: string }
  | { type: 'countsLoaded'; gen: number; counts: Partial<Record<Tab, number>> }
  | { type: 'rolesLoaded'; roles: RoleInfo[]; setRules?: SetRulesRead | null }
  | { type: 'rolesFailed'; message: string }
  | { type: 'liveLoaded'; live: LiveState }
  | { type: 'liveFailed'; message: string }
  | { type: 'personLoaded'; user: string; facts: RequesterFacts }
  | { type: 'personFailed'; user: string; message: string }
  | { type: 'reviewingLoaded'; reviewing: Reviewing }
  | { type: 'decided'; intent: DecisionIntent; request: AccessRequest }
  | { type: 'conflict'; intent: DecisionIntent; request: AccessRequest }
  | { type: 'decisionFailed'; intent: DecisionIntent; message: string; network: boolean }
  | { type: 'waiting'; info: WaitingInfo }
  | { type: 'waited' };

export type Action =
  { type: 'start' } | { type: 'key'; key: KeyPress } | { type: 'resize'; width: number; rows: number } | Answer;

export type Effect =
  | { type: 'fetchPage'; gen: number; fetch: PageFetch; query: FeedQuery; perPage: number }
  | { type: 'loadRoles' }
  /** The tabs' totals: one small read per list (page 1 of 1 row). */
  | { type: 'loadCounts'; gen: number; queries: { tab: Tab; queries: FeedQuery[] }[] }
  | { type: 'loadPerson'; user: string }
  /** The whole environment (readLiveState), for the full impact. */
  | { type: 'loadLive' }
  /** Whether the user reviews: the configurations' reviewer roles and the user's roles in the tenant. */
  | { type: 'loadReviewing' }
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
  /** The element configurations of the queue; absent: the source's one. */
  configs?: readonly string[];
  lifetimes?: Readonly<Record<string, string>>;
}

export function initQueue(o: QueueOptions): QueueState {
  const tab = o.tab ?? 'pending';
  const filter = parseFilter(o.filter ?? '');
  const perPage = o.perPage ?? 50;
  const order = o.order ?? 'oldest';
  const configs = o.configs ?? [];
  return {
    user: o.user,
    tenant: o.tenant,
    readonly: o.readonly ?? false,
    tab,
    filter,
    order,
    gone: [],
    counts: {},
    feed: createFeed(buildFeedSpec(tab, filter, o.user, order, configs), perPage),
    gen: 1,
    perPage,
    cursor: 0,
    top: 0,
    width: o.width ?? 80,
    rows: o.rows ?? 24,
    configs,
    lifetimes: o.lifetimes ?? {},
    reviewing: { state: 'loading' },
    view: 'list',
    detailTop: 0,
    back: 'list',
    inflight: {},
    overlay: {},
    roles: { state: 'loading' },
    people: {},
    log: [],
    quit: false,
  };
}

/** The tab's list read anew (a new generation: answers for the old one are dropped). */
export function reload(s: QueueState, changes: Partial<QueueState>): QueueState {
  const next = { ...s, ...changes };
  return {
    ...next,
    feed: createFeed(buildFeedSpec(next.tab, next.filter, next.user, next.order, next.configs), next.perPage),
    gen: s.gen + 1,
    overlay: {},
    gone: [],
  };
}

/** The counts to read: pending and decided from the service (with the filter's service part); mine is counted as read. */
export function countsEffect(s: QueueState): Effect {
  const tabs = (['pending', 'decided'] as const).map((tab) => ({
    tab,
    queries: buildFeedSpec(tab, parseFilter(''), s.user, 'newest', s.configs).queries,
  }));
  return { type: 'loadCounts', gen: s.gen, queries: tabs };
}

/** Steps: quitting (once), the state alone, the state with a message. */
export const quit = (s: QueueState): Step =>
  s.quit ? only(s) : { state: { ...s, quit: true }, effects: [{ type: 'quit' }] };
export const only = (state: QueueState): Step => ({ state, effects: [] });
export const say = (s: QueueState, kind: Message['kind'], text: string): Step =>
  only({ ...s, message: { kind, text } });
