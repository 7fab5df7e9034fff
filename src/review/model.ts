import { failPage, planFetches, receivePage, retryFailed } from './fetches.js';
import { parseFilter, TABS } from './filter.js';
import { conflictText, failureText, isOwnEarlierDecision, successText, type DecisionIntent } from './decisions.js';
import { onPromptKey, startDecision, startRoleChange } from './prompts.js';
import type { KeyPress } from './keys.js';
import type { Order } from './paging.js';
import type { AccessRequest } from './request.js';
import { feedIndexOf, listHeight, rowCount, selected } from './rows.js';
import { CHROME_ROWS, countsEffect, only, quit, reload, type Action, type Effect, type Message, type QueueState, type Step } from './state.js';

/**
 * The review queue as a plain state machine: `reduce(state, action)` returns the next state and the
 * effects to run (page reads, decisions, ...). No I/O, no Ink: the controller runs the effects and feeds
 * their answers back as actions; the components render the state.
 */

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
