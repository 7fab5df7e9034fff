import { readAccessRequest, type AccessRequest } from '../../src/review/request.js';
import { initQueue, reduce, type Action, type QueueOptions, type QueueState, type Step } from '../../src/review/model.js';
import { key, named, type KeyName, type KeyPress } from '../../src/review/keys.js';

/** Small builders for the pure review tests: only what matters in each test is named. */

let seq = 0;

/** A pending request by `requester` (default dave) as the reviewer `actor` (default bob) sees it. */
export function aRequest(o: Partial<{ id: string; requester: string; role: string; resource: string | null; instance: string | null; reason: string | null; status: string | null; createdAt: string; canReview: boolean; reviewer: string | null; actor: string }> = {}): AccessRequest {
  seq++;
  const requester = o.requester ?? 'dave';
  const actor = o.actor ?? 'bob';
  return readAccessRequest(
    {
      id: o.id ?? `r${String(seq).padStart(5, '0')}`,
      requesting_user_key: requester,
      access_request_details: { tenant: 'acme', role: o.role ?? 'editor', resource: o.resource === undefined ? 'document' : o.resource, resource_instance: o.instance === undefined ? 'readme' : o.instance },
      reason: o.reason === undefined ? 'please' : o.reason,
      status: o.status === undefined ? null : o.status,
      created_at: o.createdAt ?? new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
      reviewer_user_key: o.reviewer ?? null,
      can_review: o.canReview ?? requester !== actor,
    },
    actor,
  );
}

/** `n` pending requests, newest first. */
export function someRequests(n: number, o: Parameters<typeof aRequest>[0] = {}): AccessRequest[] {
  return Array.from({ length: n }, (_, i) => aRequest({ ...o, id: `r${String(n - i).padStart(5, '0')}`, createdAt: new Date(Date.UTC(2026, 0, 1) + (n - i) * 1000).toISOString() }));
}

/** A queue state driven by a list of actions; returns the last step and every effect on the way. */
export function run(options: Partial<QueueOptions>, actions: Action[]): Step & { all: Step['effects'] } {
  let state: QueueState = initQueue({ user: 'bob', tenant: 'acme', ...options });
  const all: Step['effects'] = [];
  let last: Step = { state, effects: [] };
  for (const a of actions) {
    last = reduce(state, a);
    state = last.state;
    all.push(...last.effects);
  }
  return { ...last, all };
}

/** Keys from a compact script: 'j', 'G', '<return>', '<escape>', '<tab>', '<ctrl-d>', or text to type. */
export function keys(...script: string[]): Action[] {
  return script.map((s) => ({ type: 'key', key: parseKey(s) }) as Action);
}

function parseKey(s: string): KeyPress {
  const m = /^<(ctrl-)?([a-z]+)>$/.exec(s);
  if (!m) return key(s);
  if (m[1]) return key(m[2], { ctrl: true });
  return named(m[2] as KeyName);
}

/** The first page of the pending tab answered with `items` (of `total`). */
export function pageOf(items: AccessRequest[], total = items.length, page = 1, gen = 1, source = 0): Action {
  return { type: 'pageLoaded', gen, fetch: { source, page }, items, total };
}
