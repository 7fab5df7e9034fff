import { conflictText, failureText, isOwnEarlierDecision, successText, type DecisionIntent } from './decisions.js';
import { failPage, receivePage } from './fetches.js';
import type { AccessRequest } from './request.js';
import { liveWithGrant } from './impact-live.js';
import { feedIndexOf, selected } from './rows.js';
import { countsEffect, only, type Answer, type Message, type QueueState, type Step } from './state.js';

/**
 * What comes back from outside, folded into the queue (pure): pages, counts, roles and a requester's
 * roles as they are read, a decision's answer (done, someone else first, or failed), and the client's
 * notices that an answer is slow.
 */

export function onAnswer(s: QueueState, a: Answer): Step {
  switch (a.type) {
    case 'pageLoaded':
      return a.gen === s.gen ? only({ ...s, feed: receivePage(s.feed, a.fetch, a.items, a.total) }) : only(s);
    case 'pageFailed':
      if (a.gen !== s.gen) return only(s);
      return only({
        ...s,
        feed: failPage(s.feed, a.fetch, a.message),
        message: { kind: 'error', text: `could not load the queue (${a.message}): press R to retry` },
      });
    case 'countsLoaded':
      return a.gen === s.gen ? only({ ...s, counts: { ...s.counts, ...a.counts } }) : only(s);
    case 'rolesLoaded':
      return only({
        ...s,
        roles: { state: 'loaded', value: a.roles },
        ...(a.setRules !== undefined ? { setRules: a.setRules } : {}),
      });
    case 'rolesFailed':
      return only({ ...s, roles: { state: 'failed', message: a.message } });
    case 'liveLoaded':
      return only({ ...s, live: { state: 'loaded', value: a.live } });
    case 'liveFailed':
      return only({ ...s, live: { state: 'failed', message: a.message } });
    case 'personLoaded':
      return only({ ...s, people: { ...s.people, [a.user]: { state: 'loaded', value: a.facts } } });
    case 'reviewingLoaded':
      return only({ ...s, reviewing: { state: 'loaded', value: a.reviewing } });
    case 'personFailed':
      return only({ ...s, people: { ...s.people, [a.user]: { state: 'failed', message: a.message } } });
    case 'decided':
      return finish(s, a.intent, a.request, { kind: 'success', text: successText(a.intent, a.request) });
    case 'conflict':
      if (isOwnEarlierDecision(a.intent, a.request, s.user))
        return finish(s, a.intent, a.request, { kind: 'success', text: successText(a.intent, a.request) });
      return finish(s, a.intent, a.request, { kind: 'warning', text: conflictText(a.intent, a.request) });
    case 'decisionFailed': {
      const inflight = { ...s.inflight };
      delete inflight[a.intent.id];
      return only({ ...s, inflight, message: { kind: 'error', text: failureText(a.intent, a) } });
    }
    case 'waiting':
      return only({ ...s, waiting: a.info });
    case 'waited': {
      if (!s.waiting) return only(s);
      const { waiting: _, ...rest } = s;
      return only(rest);
    }
  }
}

function finish(
  s: QueueState,
  intent: DecisionIntent,
  request: AccessRequest,
  message: Message & { kind: 'success' | 'warning' },
): Step {
  const inflight = { ...s.inflight };
  delete inflight[intent.id];
  const log = [...s.log, { id: s.log.length + 1, kind: message.kind, text: message.text }];
  // The requester's roles may have changed: read them again when next shown.
  const people = { ...s.people };
  if (intent.kind === 'approve') delete people[request.requester];
  // The environment read gains the grant the approval made (the service made the same), so the other
  // requests' impact stays exact without reading the environment again.
  const live =
    intent.kind === 'approve' && request.status === 'approved' && s.live?.state === 'loaded'
      ? { state: 'loaded' as const, value: liveWithGrant(s.live.value, request, intent.role ?? request.role) }
      : s.live;
  let gone = s.gone;
  // Under pending, a request that is no longer pending leaves the queue now, not at the next reload.
  if (s.tab === 'pending' && request.status !== 'pending') {
    const at = feedIndexOf(s, intent.id);
    if (at !== undefined && !gone.includes(at)) gone = [...gone, at].sort((x, y) => x - y);
  }
  const next = {
    ...s,
    inflight,
    overlay: { ...s.overlay, [intent.id]: request },
    people,
    message,
    log,
    gone,
    ...(live ? { live } : {}),
  };
  // Back to the detail's list when the request shown left it; the counts change with every decision.
  return {
    state:
      next.view === 'detail' && gone !== s.gone && selected(s)?.id === intent.id ? { ...next, view: 'list' } : next,
    effects: [countsEffect(next)],
  };
}
