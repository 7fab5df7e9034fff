import { describe, expect, it } from 'vitest';
import { buildFeedSpec, parseFilter } from '../../src/review/filter.js';
import { createFeed, failPage, feedComplete, feedItem, feedLength, planFetches, receivePage, retryFailed, summarizeFeed } from '../../src/review/paging.js';
import { buildImpact, rolesInTenant } from '../../src/review/impact.js';
import { aRequest, someRequests } from './builders.js';

describe('parseFilter', () => {
  it.each([
    { text: '', want: { words: [] } },
    { text: 'role:editor', want: { role: 'editor', words: [] } },
    { text: 'resource:document', want: { resource: 'document', words: [] } },
    { text: 'resource:document:readme', want: { resource: 'document', instance: 'readme', words: [] } },
    { text: 'instance:readme @alice', want: { instance: 'readme', requester: 'alice', words: [] } },
    { text: 'requester:al Release NOTES', want: { requester: 'al', words: ['release', 'notes'] } },
  ])('$text', ({ text, want }) => {
    expect(parseFilter(text)).toEqual({ text: text.trim(), ...want });
  });

  it('builds each tab: role, resource, instance and requester go to the service; only words stay here', () => {
    const pending = buildFeedSpec('pending', parseFilter('role:editor @alice'), 'bob');
    expect(pending).toEqual({ queries: [{ status: 'pending', role: 'editor', requester: 'alice' }], keep: undefined });
    expect(buildFeedSpec('decided', parseFilter('requester:alice'), 'bob')).toEqual({
      queries: [{ status: 'approved', requester: 'alice' }, { status: 'denied', requester: 'alice' }],
      keep: undefined,
    });
    const words = buildFeedSpec('pending', parseFilter('@alice release'), 'bob');
    expect(words.queries).toEqual([{ status: 'pending', requester: 'alice' }]);
    expect([aRequest({ reason: 'the release notes' }), aRequest({ reason: 'please' })].map(words.keep!)).toEqual([true, false]);
  });

  it('mine asks the service for the user\'s own requests: one exact list, no client-side filter', () => {
    const mine = buildFeedSpec('mine', parseFilter(''), 'bob');
    expect(mine).toEqual({ queries: [{ requester: 'bob' }], keep: undefined });
    expect(createFeed(mine, 50).kind).toBe('exact');
    expect(buildFeedSpec('mine', parseFilter('role:editor @bob'), 'bob')).toEqual({ queries: [{ role: 'editor', requester: 'bob' }], keep: undefined });
  });

  it("mine with someone else's @user matches nothing, without asking", () => {
    const spec = buildFeedSpec('mine', parseFilter('@alice'), 'bob');
    expect(spec.queries).toEqual([]);
    const feed = createFeed(spec, 50);
    expect(planFetches(feed, 0, 20).fetches).toEqual([]);
    expect(feedComplete(feed)).toBe(true);
    expect(summarizeFeed(feed)).toMatchObject({ rows: 0, total: 0 });
  });
});

describe('feeds', () => {
  it('exact: the first page gives the total; pages are read where the screen is', () => {
    let feed = createFeed({ queries: [{}] }, 10);
    let plan = planFetches(feed, 0, 5);
    expect(plan.fetches).toEqual([{ source: 0, page: 1 }]);
    expect(planFetches(plan.feed, 0, 5).fetches).toEqual([]); // already on its way
    feed = receivePage(plan.feed, { source: 0, page: 1 }, someRequests(10), 35);
    expect(feedLength(feed)).toBe(35);
    plan = planFetches(feed, 25, 40);
    expect(plan.fetches).toEqual([{ source: 0, page: 3 }, { source: 0, page: 4 }]);
    feed = failPage(plan.feed, { source: 0, page: 3 }, 'boom');
    expect(summarizeFeed(feed).failed).toBe('boom');
    expect(planFetches(feed, 25, 30).fetches).toEqual([]); // not hammered
    expect(planFetches(retryFailed(feed), 25, 30).fetches).toEqual([{ source: 0, page: 3 }]);
  });

  it('scan: merges sources newest first, keeps what the filter keeps, stops when the screen is full', () => {
    const approved = [aRequest({ id: 'a3', createdAt: '2026-01-03T00:00:00Z' }), aRequest({ id: 'a1', createdAt: '2026-01-01T00:00:00Z' })];
    const denied = [aRequest({ id: 'd2', createdAt: '2026-01-02T00:00:00Z' })];
    let feed = createFeed({ queries: [{ status: 'approved' }, { status: 'denied' }] }, 2);
    const plan = planFetches(feed, 0, 10);
    expect(plan.fetches).toEqual([{ source: 0, page: 1 }, { source: 1, page: 1 }]);
    feed = receivePage(plan.feed, { source: 0, page: 1 }, approved, 3);
    expect(feedLength(feed)).toBe(0); // cannot merge before the other source answers
    feed = receivePage(feed, { source: 1, page: 1 }, denied, 1);
    // denied is done (a short page), so a1 merges too.
    expect([0, 1, 2].map((i) => feedItem(feed, i)?.id)).toEqual(['a3', 'd2', 'a1']);
    expect(summarizeFeed(feed)).toMatchObject({ rows: 3, total: 4 });
    expect(planFetches(feed, 0, 10).fetches).toEqual([{ source: 0, page: 2 }]);
    feed = receivePage(planFetches(feed, 0, 10).feed, { source: 0, page: 2 }, [aRequest({ id: 'a0', createdAt: '2025-12-31T00:00:00Z' })], 3);
    expect([0, 1, 2, 3].map((i) => feedItem(feed, i)?.id)).toEqual(['a3', 'd2', 'a1', 'a0']);
    expect(feedComplete(feed)).toBe(true);
  });

  it('scan with a filter reports what it has read', () => {
    let feed = createFeed({ queries: [{}], keep: (r) => r.requester === 'alice' }, 3);
    feed = receivePage(planFetches(feed, 0, 5).feed, { source: 0, page: 1 }, [aRequest({ requester: 'alice' }), aRequest(), aRequest()], 9);
    expect(summarizeFeed(feed)).toEqual({ rows: 1, scanning: { read: 3, of: 9 }, failed: undefined });
    expect(planFetches(feed, 0, 5).fetches).toEqual([{ source: 0, page: 2 }]);
  });
});

describe('buildImpact', () => {
  const roles = [
    { key: 'viewer', permissions: ['document:read'], extends: [] },
    { key: 'editor', permissions: ['document:write'], extends: ['viewer'] },
    { key: 'admin', permissions: ['document:read', 'document:write', 'folder:read'], extends: [] },
  ];
  const alice = (assignments: { role: string; tenant: string; resource_instance: string | null }[]) => ({ user: 'alice', assignments });
  const req = (o = {}) => aRequest({ requester: 'alice', role: 'editor', ...o });

  it.each([
    {
      name: 'a new role on an instance',
      facts: [],
      lines: ['+ editor on document:readme (grants document:read, document:write)', '  new for alice: document:read, document:write'],
    },
    {
      name: 'some permissions already held',
      facts: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }],
      lines: ['+ editor on document:readme (grants document:read, document:write)', '  already held there: document:read (through viewer)', '  new for alice: document:write'],
    },
    {
      name: 'tenant-wide viewer already covers read',
      facts: [{ role: 'viewer', tenant: 'acme', resource_instance: null }],
      lines: ['+ editor on document:readme (grants document:read, document:write)', '  already held there: document:read (through viewer)', '  new for alice: document:write'],
    },
    {
      name: 'the role already held',
      facts: [{ role: 'editor', tenant: 'acme', resource_instance: 'document:readme' }],
      lines: ['= alice already holds editor on document:readme: approving changes nothing'],
    },
  ])('$name', ({ facts, lines }) => {
    expect(buildImpact(req(), roles, alice(facts)).lines).toEqual(lines);
  });

  it('tenant-wide requests, another role, and an unknown role', () => {
    expect(buildImpact(req({ resource: null, instance: null }), roles, alice([])).lines).toEqual([
      '+ editor tenant-wide in acme (grants document:read, document:write)',
      '  on every instance of acme',
    ]);
    expect(buildImpact(req(), roles, alice([]), 'admin').lines[0]).toBe('+ admin on document:readme (grants document:read, document:write)');
    expect(buildImpact(req(), roles, alice([]), 'ghost').lines).toEqual(['? ghost is not a role of this environment (the service will refuse it)']);
    expect(buildImpact(req(), roles, alice([])).note).toMatch(/^partial view/);
  });

  it('rolesInTenant lists tenant-wide roles first', () => {
    expect(rolesInTenant(alice([{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }, { role: 'member', tenant: 'acme', resource_instance: null }, { role: 'x', tenant: 'other', resource_instance: null }]), 'acme')).toEqual([
      'member (tenant-wide)',
      'viewer on document:readme',
    ]);
  });
});
