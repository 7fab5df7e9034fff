import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildFeedSpec, parseFilter, type Tab } from '../../src/review/filter.js';
import { createFeed, feedComplete, feedItem, feedLength, summarizeFeed } from '../../src/review/paging.js';
import { failPage, planFetches, receivePage, retryFailed } from '../../src/review/fetches.js';
import { heldWarnings } from '../../src/review/warnings.js';
import {
  buildImpact,
  roleOnRequest,
  rolesFor,
  rolesInTenant,
  type RequesterFacts,
  type RoleInfo,
} from '../../src/review/impact.js';
import { aRequest, mixedRequests, someRequests } from './builders.js';

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

  it('builds each tab: role, resource and instance go to the service; the requester and words are matched here', () => {
    const pending = buildFeedSpec('pending', parseFilter('role:editor @alice'), 'bob');
    // The public list declares no requester filter (it ignores what it does not declare): none is sent.
    expect(pending.queries).toEqual([{ status: 'pending', role: 'editor' }]);
    expect(
      [aRequest({ requester: 'alice' }), aRequest({ requester: 'dave' }), aRequest({ requester: 'alicia' })].map(
        pending.keep!,
      ),
    ).toEqual([true, false, false]);
    expect(createFeed(pending, 50).kind).toBe('scan');
    const decided = buildFeedSpec('decided', parseFilter('requester:alice'), 'bob');
    expect(decided.queries).toEqual([{ status: 'approved' }, { status: 'denied' }]);
    expect(
      [aRequest({ requester: 'alice', status: 'approved' }), aRequest({ requester: 'dave', status: 'deny' })].map(
        decided.keep!,
      ),
    ).toEqual([true, false]);
    const words = buildFeedSpec('pending', parseFilter('@alice release'), 'bob');
    expect(words.queries).toEqual([{ status: 'pending' }]);
    expect(
      [
        aRequest({ requester: 'alice', reason: 'the release notes' }),
        aRequest({ requester: 'alice', reason: 'please' }),
        aRequest({ requester: 'dave', reason: 'release' }),
      ].map(words.keep!),
    ).toEqual([true, false, false]);
    // Only service-side parts: one exact list, nothing to match here.
    const exact = buildFeedSpec('pending', parseFilter('role:editor resource:document:readme'), 'bob');
    expect(exact).toEqual({
      queries: [{ status: 'pending', role: 'editor', resource: 'document', resourceInstance: 'document:readme' }],
      keep: undefined,
      order: 'newest',
    });
    expect(createFeed(exact, 50).kind).toBe('exact');
  });

  it("mine lists everything the user sees, in every status, and keeps the user's own here", () => {
    const mine = buildFeedSpec('mine', parseFilter(''), 'bob');
    expect(mine.queries).toEqual([{}]);
    expect(createFeed(mine, 50).kind).toBe('scan');
    expect(
      [
        aRequest({ requester: 'bob' }),
        aRequest({ requester: 'dave' }),
        aRequest({ requester: 'bob', status: 'deny' }),
      ].map(mine.keep!),
    ).toEqual([true, false, true]);
    const filtered = buildFeedSpec('mine', parseFilter('role:editor @bob release'), 'bob');
    expect(filtered.queries).toEqual([{ role: 'editor' }]);
    expect(
      [
        aRequest({ requester: 'bob', reason: 'release' }),
        aRequest({ requester: 'bob', reason: 'please' }),
        aRequest({ requester: 'dave', reason: 'release' }),
      ].map(filtered.keep!),
    ).toEqual([true, false, false]);
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
    expect(plan.fetches).toEqual([
      { source: 0, page: 3 },
      { source: 0, page: 4 },
    ]);
    feed = failPage(plan.feed, { source: 0, page: 3 }, 'boom');
    expect(summarizeFeed(feed).failed).toBe('boom');
    expect(planFetches(feed, 25, 30).fetches).toEqual([]); // not hammered
    expect(planFetches(retryFailed(feed), 25, 30).fetches).toEqual([{ source: 0, page: 3 }]);
  });

  it('scan: merges sources newest first, keeps what the filter keeps, stops when the screen is full', () => {
    const approved = [
      aRequest({ id: 'a3', createdAt: '2026-01-03T00:00:00Z' }),
      aRequest({ id: 'a1', createdAt: '2026-01-01T00:00:00Z' }),
    ];
    const denied = [aRequest({ id: 'd2', createdAt: '2026-01-02T00:00:00Z' })];
    let feed = createFeed({ queries: [{ status: 'approved' }, { status: 'denied' }] }, 2);
    const plan = planFetches(feed, 0, 10);
    expect(plan.fetches).toEqual([
      { source: 0, page: 1 },
      { source: 1, page: 1 },
    ]);
    feed = receivePage(plan.feed, { source: 0, page: 1 }, approved, 3);
    expect(feedLength(feed)).toBe(0); // cannot merge before the other source answers
    feed = receivePage(feed, { source: 1, page: 1 }, denied, 1);
    // denied is done (a short page), so a1 merges too.
    expect([0, 1, 2].map((i) => feedItem(feed, i)?.id)).toEqual(['a3', 'd2', 'a1']);
    expect(summarizeFeed(feed)).toMatchObject({ rows: 3, total: 4 });
    expect(planFetches(feed, 0, 10).fetches).toEqual([{ source: 0, page: 2 }]);
    feed = receivePage(
      planFetches(feed, 0, 10).feed,
      { source: 0, page: 2 },
      [aRequest({ id: 'a0', createdAt: '2025-12-31T00:00:00Z' })],
      3,
    );
    expect([0, 1, 2, 3].map((i) => feedItem(feed, i)?.id)).toEqual(['a3', 'd2', 'a1', 'a0']);
    expect(feedComplete(feed)).toBe(true);
  });

  it('scan with a filter reports what it has read', () => {
    let feed = createFeed({ queries: [{}], keep: (r) => r.requester === 'alice' }, 3);
    feed = receivePage(
      planFetches(feed, 0, 5).feed,
      { source: 0, page: 1 },
      [aRequest({ requester: 'alice' }), aRequest(), aRequest()],
      9,
    );
    expect(summarizeFeed(feed)).toEqual({ rows: 1, scanning: { read: 3, of: 9 }, failed: undefined });
    expect(planFetches(feed, 0, 5).fetches).toEqual([{ source: 0, page: 2 }]);
  });
  it("scan with @requester: exactly their rows, in the service's order, counted once the list is read; each page read once (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('alice', 'bob', 'dave'), { maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom<Tab>('pending', 'decided', 'mine'),
        fc.constantFrom('alice', 'bob'),
        fc.boolean(),
        (who, perPage, tab, requester, counted) => {
          // Every query of the tab answers the same list (decided: approved and denied alike, merged).
          const list = mixedRequests(who.length, (i) => who[i]);
          const spec = buildFeedSpec(tab, parseFilter(`@${requester}`), 'bob');
          expect(
            spec.queries.every((q) =>
              Object.keys(q).every((k) => ['status', 'role', 'resource', 'resourceInstance'].includes(k)),
            ),
          ).toBe(true);
          let feed = createFeed(spec, perPage);
          const reads: string[] = [];
          for (;;) {
            const plan = planFetches(feed, 0, Number.MAX_SAFE_INTEGER);
            if (plan.fetches.length === 0) break;
            feed = plan.feed;
            for (const f of plan.fetches) {
              reads.push(`${f.source}:${f.page}`);
              feed = receivePage(
                feed,
                f,
                list.slice((f.page - 1) * perPage, f.page * perPage),
                counted ? list.length : undefined,
              );
            }
          }
          const mineOfOther = tab === 'mine' && requester !== 'bob';
          const one = list.filter((r) => r.requester === requester).map((r) => r.id);
          // decided merges two equal lists: each row twice, next to each other.
          const want = mineOfOther ? [] : tab === 'decided' ? one.flatMap((id) => [id, id]) : one;
          expect(feedComplete(feed)).toBe(true);
          expect(Array.from({ length: feedLength(feed) }, (_, i) => feedItem(feed, i)?.id)).toEqual(want);
          expect(summarizeFeed(feed)).toEqual({ rows: want.length, total: want.length, failed: undefined });
          // Without a count the list ends at its first short page (possibly an empty one).
          const pages = mineOfOther
            ? 0
            : counted
              ? Math.max(1, Math.ceil(list.length / perPage))
              : Math.floor(list.length / perPage) + 1;
          expect(reads).toHaveLength(pages * spec.queries.length);
          expect(new Set(reads).size).toBe(reads.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('resource roles and derivations in the impact and the role picker (issue 28)', () => {
  // `editor` is a resource role of document (and a top-level role too, hidden on documents, as on the service).
  const roles: RoleInfo[] = [
    { key: 'editor', permissions: ['folder:read'], extends: [] },
    { key: 'auditor', permissions: ['document:read', 'folder:read'], extends: [] },
    { key: 'approver', permissions: [], extends: [] },
    { key: 'member', permissions: ['document:read'], extends: [] },
    { key: 'viewer', resource: 'document', permissions: ['read'], extends: [] },
    { key: 'commenter', resource: 'document', permissions: ['comment'], extends: ['viewer'] },
    {
      key: 'editor',
      resource: 'document',
      permissions: ['write'],
      extends: ['commenter'],
      grantedTo: [{ role: 'editor', on: 'folder', via: 'parent' }],
    },
    { key: 'editor', resource: 'folder', permissions: ['read', 'write'], extends: [] },
  ];
  const alice = (assignments: RequesterFacts['assignments'] = []) => ({ user: 'alice', assignments });
  const req = (o = {}) => aRequest({ requester: 'alice', role: 'editor', ...o });

  it('a resource role named on an instance is resolved as the service resolves it, and shows what it adds', () => {
    expect(buildImpact(req(), roles, alice()).lines).toEqual([
      '+ document#editor: document:comment, document:read, document:write on document:readme',
    ]);
    expect(
      buildImpact(req(), roles, alice([{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }]))
        .lines,
    ).toEqual([
      '+ document#editor: document:comment, document:write on document:readme',
      '  already held there: document:read (through document#viewer)',
    ]);
    expect(
      buildImpact(req(), roles, alice([{ role: 'editor', tenant: 'acme', resource_instance: 'document:readme' }]))
        .lines,
    ).toEqual(['= alice already holds document#editor on document:readme: approving changes nothing']);
    // Tenant-wide, the key names the top-level role.
    expect(buildImpact(req({ resource: null, instance: null }), roles, alice()).lines[0]).toBe(
      '+ editor tenant-wide in acme (grants folder:read)',
    );
  });

  it('derived access: a role on a folder adds the document role on the documents in it', () => {
    const tuples = [{ subject: 'folder:finance', relation: 'parent', object: 'document:q1' }];
    expect(
      buildImpact(req({ resource: 'folder', instance: 'finance' }), roles, alice(), 'editor', tuples).lines,
    ).toEqual([
      '+ folder#editor: folder:read, folder:write on folder:finance',
      '+ document#editor: document:comment, document:read, document:write on document:q1 (from folder#editor on folder:finance via parent)',
    ]);
  });

  it("a held-role warning resolves the role as the service does: a tenant-wide top-level editor is not the document's editor", () => {
    const tenantEditor = new Map([['alice', alice([{ role: 'editor', tenant: 'acme', resource_instance: null }])]]);
    expect(heldWarnings([req()], tenantEditor, roles)).toEqual([]);
    const documentEditor = new Map([
      ['alice', alice([{ role: 'editor', tenant: 'acme', resource_instance: 'document:readme' }])],
    ]);
    expect(heldWarnings([req()], documentEditor, roles)).toEqual([
      expect.stringMatching(/^alice already holds editor on document:readme \(request /),
    ]);
    const topLevelOnly = roles.filter((r) => r.resource !== 'document');
    expect(heldWarnings([req()], tenantEditor, topLevelOnly)).toHaveLength(1);
  });

  it('the picker offers the roles granting something on the resource, resource roles included, never member', () => {
    expect(rolesFor(req(), roles)).toEqual(['auditor', 'document#commenter', 'document#editor', 'document#viewer']);
    expect(rolesFor(req({ resource: 'folder', instance: 'finance' }), roles)).toEqual(['auditor', 'folder#editor']);
    // Tenant-wide: top-level roles only.
    expect(rolesFor(req({ resource: null, instance: null }), roles)).toEqual(['auditor', 'editor']);
    expect(roleOnRequest(req(), roles, 'editor')).toBe('document#editor');
  });
});

describe('buildImpact', () => {
  const roles = [
    { key: 'viewer', permissions: ['document:read'], extends: [] },
    { key: 'editor', permissions: ['document:write'], extends: ['viewer'] },
    { key: 'admin', permissions: ['document:read', 'document:write', 'folder:read'], extends: [] },
  ];
  const alice = (assignments: { role: string; tenant: string; resource_instance: string | null }[]) => ({
    user: 'alice',
    assignments,
  });
  const req = (o = {}) => aRequest({ requester: 'alice', role: 'editor', ...o });

  it.each([
    {
      name: 'a new role on an instance',
      facts: [],
      lines: ['+ editor: document:read, document:write on document:readme'],
    },
    {
      name: 'some permissions already held',
      facts: [{ role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' }],
      lines: ['+ editor: document:write on document:readme', '  already held there: document:read (through viewer)'],
    },
    {
      name: 'tenant-wide viewer already covers read',
      facts: [{ role: 'viewer', tenant: 'acme', resource_instance: null }],
      lines: ['+ editor: document:write on document:readme', '  already held there: document:read (through viewer)'],
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
    expect(buildImpact(req(), roles, alice([]), 'admin').lines[0]).toBe(
      '+ admin: document:read, document:write on document:readme',
    );
    expect(buildImpact(req(), roles, alice([]), 'ghost').lines).toEqual([
      '? ghost is neither a role of document nor a top-level role (the service will refuse it)',
    ]);
    expect(buildImpact(req({ resource: null, instance: null }), roles, alice([]), 'ghost').lines).toEqual([
      '? ghost is not a top-level role of this environment (the service will refuse it)',
    ]);
    expect(buildImpact(req(), roles, alice([])).note).toMatch(/^partial view/);
  });

  it('a role held on an instance gains nothing new: said so', () => {
    expect(
      buildImpact(req({ role: 'viewer' }), roles, alice([{ role: 'admin', tenant: 'acme', resource_instance: null }]))
        .lines,
    ).toEqual(['= alice gains nothing on document:readme: viewer grants document:read, held already (through admin)']);
  });

  it('rolesInTenant lists tenant-wide roles first', () => {
    expect(
      rolesInTenant(
        alice([
          { role: 'viewer', tenant: 'acme', resource_instance: 'document:readme' },
          { role: 'member', tenant: 'acme', resource_instance: null },
          { role: 'x', tenant: 'other', resource_instance: null },
        ]),
        'acme',
      ),
    ).toEqual(['member (tenant-wide)', 'viewer on document:readme']);
  });
});
