import { readAccessRequest, type AccessRequest } from '../../src/review/request.js';
import { reduce } from '../../src/review/model.js';
import { initQueue, type Action, type QueueOptions, type QueueState, type Step } from '../../src/review/state.js';
import { key, named, type KeyName, type KeyPress } from '../../src/review/keys.js';

/** Small builders for the pure review tests: only what matters in each test is named. */

let seq = 0;

/** The ids of the made-up organisation, project and environment every built read model belongs to. */
export const ORG_ID = '0a000000-0000-4000-8000-000000000001';
export const PROJECT_ID = '0b000000-0000-4000-8000-000000000001';
export const ENV_ID = '0e000000-0000-4000-8000-000000000001';

const knownKeys = new Map<string, string>();

/**
 * The made-up id of user `key` (the public read model names users by id): the key's bytes in hex, so
 * the same key always has the same id whatever the order of the tests; remembered for `keyOf`.
 */
export function userId(key: string): string {
  const hex = Buffer.from(key).toString('hex');
  if (hex.length > 12) throw new Error(`test user keys have at most 6 characters, got "${key}"`);
  const id = `00000000-0000-4000-8000-${hex.padStart(12, '0')}`;
  knownKeys.set(id, key);
  return id;
}

/** What the review source learns from the users API: the key of an id, for the users built here. */
export const keyOf = (id: string): string | undefined => knownKeys.get(id);

export interface RequestFields {
  id: string;
  /** User keys; the read model carries their ids. */
  requester: string;
  reviewer: string | null;
  role: string;
  resource: string | null;
  instance: string | null;
  reason: string | null;
  /** As sent: null (pending), 'deny', 'cancel', or the public spellings. */
  status: string | null;
  createdAt: string;
  reviewerComment: string | null;
}

/**
 * A read model in the public shape (`AccessRequestRead`: users by id, no extension fields) of a pending
 * request by `requester` (default dave). Optional fields without a value are left out, as the public
 * API does; reviewer fields are null until a decision.
 */
export function aRawRequest(o: Partial<RequestFields> = {}): Record<string, unknown> {
  seq++;
  const createdAt = o.createdAt ?? new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString();
  const details: Record<string, string> = { tenant: 'acme', role: o.role ?? 'editor' };
  const resource = o.resource === undefined ? 'document' : o.resource;
  const instance = o.instance === undefined ? 'readme' : o.instance;
  if (resource !== null) details.resource = resource;
  if (instance !== null) details.resource_instance = instance;
  const reason = o.reason === undefined ? 'please' : o.reason;
  const reviewer = o.reviewer ?? null;
  return {
    id: o.id ?? `r${String(seq).padStart(5, '0')}`,
    organization_id: ORG_ID,
    project_id: PROJECT_ID,
    environment_id: ENV_ID,
    requesting_user_id: userId(o.requester ?? 'dave'),
    access_request_details: details,
    ...(reason === null ? {} : { reason }),
    status: o.status === undefined ? null : o.status,
    created_at: createdAt,
    updated_at: createdAt,
    reviewer_user_id: reviewer === null ? null : userId(reviewer),
    reviewed_at: reviewer === null ? null : createdAt,
    reviewer_comment: o.reviewerComment ?? null,
  };
}

/** `aRawRequest` as the reviewer `actor` (default bob) sees it, with its users' keys known. */
export function aRequest(o: Partial<RequestFields & { actor: string }> = {}): AccessRequest {
  return readAccessRequest(aRawRequest(o), o.actor ?? 'bob', keyOf);
}

/** `n` pending requests, newest first. */
export function someRequests(n: number, o: Parameters<typeof aRequest>[0] = {}): AccessRequest[] {
  return Array.from({ length: n }, (_, i) =>
    aRequest({
      ...o,
      id: `r${String(n - i).padStart(5, '0')}`,
      createdAt: new Date(Date.UTC(2026, 0, 1) + (n - i) * 1000).toISOString(),
    }),
  );
}

/**
 * `n` pending requests, newest first, by the requesters `who(i)` names (i = 0 is the newest): a list
 * as the service sends it, with several people's requests interleaved.
 */
export function mixedRequests(n: number, who: (i: number) => string, prefix = 'r'): AccessRequest[] {
  return Array.from({ length: n }, (_, i) =>
    aRequest({
      requester: who(i),
      id: `${prefix}${String(n - i).padStart(5, '0')}`,
      createdAt: new Date(Date.UTC(2026, 0, 1) + (n - i) * 1000).toISOString(),
    }),
  );
}

/**
 * A queue state driven by a list of actions; returns the last step and every effect on the way. Newest
 * first unless `order` says otherwise: the service's own order, so pages map to rows one to one (the
 * default, oldest first, has tests of its own).
 */
export function run(options: Partial<QueueOptions>, actions: Action[]): Step & { all: Step['effects'] } {
  let state: QueueState = initQueue({ user: 'bob', tenant: 'acme', order: 'newest', ...options });
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
