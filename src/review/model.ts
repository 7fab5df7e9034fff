import { onAnswer } from './answers.js';
import { onCommandKey } from './commands.js';
import { planFetches } from './fetches.js';
import type { KeyPress } from './keys.js';
import { onPromptKey } from './prompts.js';
import { listHeight, requestAt, rowCount, selected } from './rows.js';
import {
  CHROME_ROWS,
  countsEffect,
  only,
  quit,
  type Action,
  type Effect,
  type QueueState,
  type Step,
} from './state.js';

/**
 * The review queue as a plain state machine: `reduce(state, action)` returns the next state and the
 * effects to run (page reads, decisions, ...). No I/O, no Ink: the controller runs the effects and feeds
 * their answers back as actions; the components render the state.
 *
 * Here: the routing, and what follows every action. A key goes to the open prompt (prompts.ts) or the
 * commands (commands.ts), an answer to answers.ts; then `settle` keeps the cursor on screen and asks for
 * the pages and people it shows. The state, actions and effects are state.ts; the selectors, rows.ts.
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
      const next = reduce(step.state, {
        type: 'key',
        key: /^[\r\n]+$/.test(part) ? { input: '', name: 'return' } : { ...a.key, input: part },
      });
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
      return { state: s, effects: [{ type: 'loadRoles' }, countsEffect(s), { type: 'loadReviewing' }] };
    case 'resize':
      return only({ ...s, width: Math.max(20, a.width), rows: Math.max(CHROME_ROWS + 1, a.rows) });
    case 'key':
      return onKey(s, a.key);
    default:
      return onAnswer(s, a);
  }
}

/** ctrl-c quits from anywhere; an open prompt takes every other key. */
function onKey(s: QueueState, k: KeyPress): Step {
  if (k.ctrl && k.input === 'c') return quit(s);
  if (s.prompt) return onPromptKey(s, s.prompt, k);
  return onCommandKey(s, k);
}

/**
 * After every action: keep the cursor in bounds and on screen, read missing pages and people (the
 * selected request's requester in the details; on the list, the requesters of approved rows on screen,
 * whose roles tell a grant still held from one revoked).
 */
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
    for (const fetch of planned.fetches)
      out.push({
        type: 'fetchPage',
        gen: next.gen,
        fetch,
        query: next.feed.spec.queries[fetch.source],
        perPage: next.perPage,
      });
  }
  const r = selected(next);
  const wanted = new Set<string>();
  if (next.view === 'detail' && r) wanted.add(r.requester);
  // Approved rows on screen: their requesters' roles say whether the grant is still there (rows.ts grantGone).
  if (next.view === 'list')
    for (let i = top; i < Math.min(n, top + h); i++) {
      const row = requestAt(next, i);
      if (row?.status === 'approved') wanted.add(row.requester);
    }
  for (const user of wanted) {
    if (next.people[user] !== undefined) continue;
    next = { ...next, people: { ...next.people, [user]: { state: 'loading' } } };
    out.push({ type: 'loadPerson', user });
  }
  if (next.view === 'detail' && r?.status === 'pending' && next.live === undefined) {
    next = { ...next, live: { state: 'loading' } };
    out.push({ type: 'loadLive' });
  }
  return { state: next, effects: out };
}
