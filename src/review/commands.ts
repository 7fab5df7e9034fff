import { parseFilter, TABS } from './filter.js';
import { retryFailed } from './fetches.js';
import type { KeyPress } from './keys.js';
import type { Order } from './paging.js';
import { startDecision, startRoleChange } from './prompts.js';
import { listHeight, rowCount, selected } from './rows.js';
import { countsEffect, only, quit, reload, type Effect, type QueueState, type Step } from './state.js';

/**
 * A key when no prompt is open (pure): in help, the way back; in the list and the detail pane, moving
 * and scrolling, the views, tabs, sort and filter, refresh, quit, and the keys that start a decision
 * (prompts.ts takes it from there). The key map shown by `?` is keys.ts.
 */

export function onCommandKey(s: QueueState, k: KeyPress): Step {
  if (s.view === 'help') {
    if (k.name === 'escape' || k.name === 'return' || k.input === '?' || k.input === 'q')
      return only({ ...s, view: s.back, message: undefined });
    return only(s);
  }
  const h = listHeight(s);
  const half = Math.max(1, Math.floor(h / 2));
  if (k.name === 'down' || k.input === 'j') return only({ ...s, cursor: s.cursor + 1, detailTop: 0 });
  if (k.name === 'up' || k.input === 'k') return only({ ...s, cursor: s.cursor - 1, detailTop: 0 });
  if (s.view === 'detail' && (k.name === 'pagedown' || (k.ctrl && k.input === 'd')))
    return only({ ...s, detailTop: s.detailTop + half });
  if (s.view === 'detail' && (k.name === 'pageup' || (k.ctrl && k.input === 'u')))
    return only({ ...s, detailTop: Math.max(0, s.detailTop - half) });
  if (k.name === 'pagedown' || (k.ctrl && k.input === 'd'))
    return only({ ...s, cursor: s.cursor + half, top: s.top + half });
  if (k.name === 'pageup' || (k.ctrl && k.input === 'u'))
    return only({ ...s, cursor: s.cursor - half, top: Math.max(0, s.top - half) });
  if (k.name === 'home' || k.input === 'g') return only({ ...s, cursor: 0 });
  if (k.name === 'end' || k.input === 'G') return only({ ...s, cursor: Math.max(0, rowCount(s) - 1) });
  if (k.name === 'return')
    return selected(s) ? only({ ...s, view: 'detail', detailTop: 0, message: undefined }) : only(s);
  if (k.name === 'escape') {
    if (s.view === 'detail') return only({ ...s, view: 'list' });
    if (s.message) return only({ ...s, message: undefined });
    if (s.filter.text) return only(reload(s, { filter: parseFilter(''), cursor: 0, top: 0 }));
    return only(s);
  }
  if (k.name === 'tab' || ['1', '2', '3'].includes(k.input)) {
    const i = TABS.indexOf(s.tab);
    const tab =
      k.name === 'tab' ? TABS[(i + (k.shift ? TABS.length - 1 : 1)) % TABS.length] : TABS[Number(k.input) - 1];
    return only(reload(s, { tab, cursor: 0, top: 0, view: 'list', message: undefined }));
  }
  if (k.input === 's') {
    const order: Order = s.order === 'oldest' ? 'newest' : 'oldest';
    return only(
      reload(s, { order, cursor: 0, top: 0, view: 'list', message: { kind: 'info', text: `${order} first` } }),
    );
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
  // The environment too: read again when a request's details are next shown.
  const { live: _, ...kept } = s;
  const next = reload(kept, { people: {}, message: { kind: 'info', text: 'refreshed' } });
  // The roles (and the set rules read with them) again when they could not be read.
  const again = s.roles.state === 'failed' || s.setRules === null;
  const effects: Effect[] = again ? [{ type: 'loadRoles' }, countsEffect(next)] : [countsEffect(next)];
  return {
    state: {
      ...next,
      roles: s.roles.state === 'failed' ? { state: 'loading' } : s.roles,
      feed: retryFailed(next.feed),
    },
    effects,
  };
}
