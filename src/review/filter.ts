import type { AccessRequest } from './request.js';
import type { FeedQuery, FeedSpec, Order } from './paging.js';

/**
 * The `/` filter. `role:X`, `resource:X`, `instance:X` (or `resource:type:key`) and `requester:X` (or
 * `@X`, a user key, matched exactly) go to the service as list filters, so paging and totals stay exact.
 * Bare words match on the client (case-insensitive substrings of requester, role, resource/instance and
 * reason), so they make the queue scan pages in order until the screen is full.
 */
export interface Filter {
  text: string;
  role?: string;
  resource?: string;
  instance?: string;
  requester?: string;
  words: string[];
}

export type Tab = 'pending' | 'decided' | 'mine';
export const TABS: readonly Tab[] = ['pending', 'decided', 'mine'];

export function parseFilter(text: string): Filter {
  const f: Filter = { text: text.trim(), words: [] };
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const m = /^(role|resource|instance|requester|user):(.+)$/i.exec(token);
    if (token.startsWith('@') && token.length > 1) f.requester = token.slice(1);
    else if (!m) f.words.push(token.toLowerCase());
    else {
      const [, field, value] = m;
      switch (field.toLowerCase()) {
        case 'role':
          f.role = value;
          break;
        case 'resource': {
          const i = value.indexOf(':');
          if (i > 0) ((f.resource = value.slice(0, i)), (f.instance = value.slice(i + 1)));
          else f.resource = value;
          break;
        }
        case 'instance':
          f.instance = value;
          break;
        default:
          f.requester = value;
      }
    }
  }
  return f;
}

/** The part of the filter the service applies. */
function serverQuery(f: Filter): FeedQuery {
  const q: FeedQuery = {};
  if (f.role) q.role = f.role;
  if (f.resource) q.resource = f.resource;
  // The service takes `type:key` or a bare key.
  if (f.instance) q.resourceInstance = f.resource ? `${f.resource}:${f.instance}` : f.instance;
  return q;
}

/**
 * The part of the filter the client applies, or undefined when there is none: the free words, and the
 * requester (the public list has no requester filter; it ignores filters it does not declare).
 */
export function clientPredicate(f: Filter): ((r: AccessRequest) => boolean) | undefined {
  if (f.words.length === 0 && f.requester === undefined) return undefined;
  return (r) => {
    if (f.requester !== undefined && r.requester !== f.requester) return false;
    const hay = [r.requester, r.role, r.resource ?? '', r.instance ?? '', r.reason ?? ''].join(' ').toLowerCase();
    return f.words.every((w) => hay.includes(w));
  };
}

/**
 * What a tab lists, for the acting `user` (a key). pending: everything pending the user sees (moderated
 * and own); decided: approved and denied, merged from two lists (the API filters on one status at a
 * time); mine: the user's own requests in any status, picked on the client from everything the user
 * sees (the public list cannot filter by requester). In mine, `@X` for anyone but the user matches
 * nothing: no query at all, an empty, complete list. With `configs`, every list is read in each of them
 * (the queries carry their configuration).
 */
export function buildFeedSpec(
  tab: Tab,
  filter: Filter,
  user: string,
  order: Order = 'newest',
  configs?: readonly string[],
): FeedSpec {
  const spec = tabSpec(tab, filter, user, order);
  // One queue across element configurations: each list read in each, merged in order (paging.ts scan).
  if (!configs || configs.length === 0) return spec;
  return { ...spec, queries: configs.flatMap((config) => spec.queries.map((q) => ({ ...q, config }))) };
}

function tabSpec(tab: Tab, filter: Filter, user: string, order: Order): FeedSpec {
  const base = serverQuery(filter);
  const keep = clientPredicate(filter);
  switch (tab) {
    case 'pending':
      return { queries: [{ ...base, status: 'pending' }], keep, order };
    case 'decided':
      return {
        queries: [
          { ...base, status: 'approved' },
          { ...base, status: 'denied' },
        ],
        keep,
        order,
      };
    case 'mine':
      if (filter.requester !== undefined && filter.requester !== user) return { queries: [], keep, order };
      return { queries: [base], keep: (r) => r.own && (keep?.(r) ?? true), order };
  }
}
