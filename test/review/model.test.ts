import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { reduce } from '../../src/review/model.js';
import { findRequest, listHeight, requestAt, selected, visibleRows } from '../../src/review/rows.js';
import { initQueue, type Action, type QueueState } from '../../src/review/state.js';
import { formatPosition } from '../../src/review/format.js';
import { summarizeFeed } from '../../src/review/paging.js';
import { aRequest, keys, mixedRequests, pageOf, run, someRequests } from './builders.js';

const h = listHeight({ rows: 24 }); // 16

describe('queue model: moving', () => {
  const page = pageOf(someRequests(50), 120);
  it.each([
    { script: [], cursor: 0, top: 0 },
    { script: ['j', 'j', '<down>'], cursor: 3, top: 0 },
    { script: ['j', 'k', 'k', '<up>'], cursor: 0, top: 0 },
    { script: ['G'], cursor: 119, top: 120 - h },
    { script: ['G', 'g'], cursor: 0, top: 0 },
    { script: ['<end>', '<home>'], cursor: 0, top: 0 },
    { script: ['<ctrl-d>'], cursor: 8, top: 8 },
    { script: ['<ctrl-d>', '<ctrl-u>'], cursor: 0, top: 0 },
    { script: [...Array(20).fill('j')], cursor: 20, top: 20 - h + 1 },
  ])('$script → cursor $cursor, top $top', ({ script, cursor, top }) => {
    const { state } = run({}, [{ type: 'start' }, page, ...keys(...script)]);
    expect({ cursor: state.cursor, top: state.top }).toEqual({ cursor, top });
  });

  it('reads the first page on start, and only the pages the screen needs after that', () => {
    const start = run({}, [{ type: 'start' }]);
    expect(start.all).toEqual([
      { type: 'loadRoles' },
      // The tabs' counts: pending, and decided (approved + denied).
      {
        type: 'loadCounts',
        gen: 1,
        queries: [
          { tab: 'pending', queries: [{ status: 'pending' }] },
          { tab: 'decided', queries: [{ status: 'approved' }, { status: 'denied' }] },
        ],
      },
      // Whether the user reviews anything: what an empty pending tab says.
      { type: 'loadReviewing' },
      { type: 'fetchPage', gen: 1, fetch: { source: 0, page: 1 }, query: { status: 'pending' }, perPage: 50 },
    ]);
    const bottom = run({}, [{ type: 'start' }, pageOf(someRequests(50), 10_000), ...keys('G')]);
    // G on 10,000 rows reads the last page only.
    expect(
      bottom.effects.filter((e) => e.type === 'fetchPage').map((e) => e.type === 'fetchPage' && e.fetch.page),
    ).toEqual([200]);
    expect(visibleRows(bottom.state)).toHaveLength(h);
    expect(visibleRows(bottom.state).every((r) => r.state === 'loading')).toBe(true);
  });

  it('pages forward as the user scrolls', () => {
    const { state, all } = run({}, [{ type: 'start' }, pageOf(someRequests(50), 120), ...keys(...Array(40).fill('j'))]);
    expect(state.cursor).toBe(40);
    // Read one screen ahead: page 2 was asked for once, before the cursor reached it; page 3 not yet.
    expect(all.filter((e) => e.type === 'fetchPage').map((e) => e.type === 'fetchPage' && e.fetch.page)).toEqual([
      1, 2,
    ]);
    const next = reduce(
      state,
      pageOf(
        someRequests(50).map((r) => ({ ...r, id: `p2-${r.id}` })),
        120,
        2,
      ),
    );
    expect(requestAt(next.state, 50)?.id).toMatch(/^p2-/);
    expect(requestAt(next.state, 49)?.id).not.toMatch(/^p2-/);
  });

  it('drops answers for an older feed (after a refresh or a filter)', () => {
    const { state } = run({}, [{ type: 'start' }, ...keys('R'), pageOf(someRequests(3), 3, 1, 1)]);
    expect(state.gen).toBe(2);
    expect(visibleRows(state)).toEqual([]);
  });

  it('tab switches view and reloads: decided merges approved and denied', () => {
    const { state, all } = run({}, [{ type: 'start' }, pageOf(someRequests(3)), ...keys('<tab>')]);
    expect(state.tab).toBe('decided');
    expect(
      all.filter((e) => e.type === 'fetchPage' && e.gen === 2).map((e) => e.type === 'fetchPage' && e.query),
    ).toEqual([{ status: 'approved' }, { status: 'denied' }]);
    expect(run({}, keys('3')).state.tab).toBe('mine');
    expect(run({}, [{ type: 'key', key: { input: '', name: 'tab', shift: true } }]).state.tab).toBe('mine');
  });

  const fetched = (effects: ReturnType<typeof run>['all']) =>
    effects.flatMap((e) => (e.type === 'fetchPage' ? [e] : []));

  it("mine lists what the user sees in every status and keeps the user's own: no requester is sent, pages are read only as the screen needs", () => {
    const { state, all } = run({}, [{ type: 'start' }, pageOf(someRequests(3)), ...keys('3')]);
    expect(state.feed.kind).toBe('scan');
    // The public list has no requester filter: one query without status or requester.
    expect(fetched(all).filter((e) => e.gen === 2)).toEqual([
      { type: 'fetchPage', gen: 2, fetch: { source: 0, page: 1 }, query: {}, perPage: 50 },
    ]);
    // 1,000 rows, one in five bob's: page 1 gives 10 of his, not a screen and the next (32), so page 2 is read.
    const bobEvery5 = (page: number) => mixedRequests(50, (i) => (i % 5 === 0 ? 'bob' : 'dave'), `p${page}-`);
    const one = run({}, [...keys('3'), pageOf(bobEvery5(1), 1000, 1, 2)]);
    expect(fetched(one.effects).map((e) => e.fetch.page)).toEqual([2]);
    const three = run({}, [
      ...keys('3'),
      pageOf(bobEvery5(1), 1000, 1, 2),
      pageOf(bobEvery5(2), 1000, 2, 2),
      pageOf(bobEvery5(3), 1000, 3, 2),
    ]);
    // 30 rows: still short of 32, page 4 asked; nothing past it.
    expect(fetched(three.all).map((e) => e.fetch.page)).toEqual([1, 2, 3, 4]);
    const four = reduce(three.state, pageOf(bobEvery5(4), 1000, 4, 2));
    expect(fetched(four.effects)).toEqual([]);
    expect(visibleRows(four.state)).toHaveLength(h);
    expect(
      visibleRows(four.state).every((r) => r.state === 'loaded' && r.request?.own && r.request.requester === 'bob'),
    ).toBe(true);
    // The total is not known until every page is read: the status line says how far the scan got.
    expect(formatPosition(four.state)).toBe('1–16 of 40 matching · 200 of 1,000 read');
  });

  it("mine: once the list is read, the total is the count of the user's own", () => {
    const list = mixedRequests(70, (i) => (i % 3 === 0 ? 'bob' : 'alice'));
    const { state } = run({}, [
      ...keys('3'),
      pageOf(list.slice(0, 50), 70, 1, 2),
      pageOf(list.slice(50), 70, 2, 2),
      ...keys('G'),
    ]);
    const own = list.filter((r) => r.requester === 'bob');
    expect(summarizeFeed(state.feed)).toMatchObject({ rows: own.length, total: own.length });
    expect(state.cursor).toBe(own.length - 1);
    expect(requestAt(state, own.length - 1)?.id).toBe(own.at(-1)!.id);
    expect(formatPosition(state)).toBe(`${own.length - h + 1}–${own.length} of ${own.length}`);
  });

  it('/ filters: role and resource go to the service and stay exact; @requester is matched here, never sent', () => {
    const exact = run({}, [
      { type: 'start' },
      pageOf(someRequests(3)),
      ...keys('/', 'role:editor resource:document:readme', '<return>'),
    ]);
    expect(exact.state.feed.kind).toBe('exact');
    expect(exact.all.at(-1)).toEqual({
      type: 'fetchPage',
      gen: 2,
      fetch: { source: 0, page: 1 },
      perPage: 50,
      query: { status: 'pending', role: 'editor', resource: 'document', resourceInstance: 'document:readme' },
    });
    // An exact feed: G on the service's 500 reads the last page only.
    const bottom = run({}, [
      ...keys('/', 'role:editor', '<return>'),
      pageOf(someRequests(50), 500, 1, 2),
      ...keys('G'),
    ]);
    expect(fetched(bottom.effects).map((e) => e.fetch.page)).toEqual([10]);

    const { state, all } = run({}, [
      { type: 'start' },
      pageOf(someRequests(3)),
      ...keys('/', 'role:editor resource:document:readme @alice', '<return>'),
    ]);
    expect(state.filter).toMatchObject({
      role: 'editor',
      resource: 'document',
      instance: 'readme',
      requester: 'alice',
    });
    expect(state.feed.kind).toBe('scan');
    expect(all.at(-1)).toEqual({
      type: 'fetchPage',
      gen: 2,
      fetch: { source: 0, page: 1 },
      perPage: 50,
      query: { status: 'pending', role: 'editor', resource: 'document', resourceInstance: 'document:readme' },
    });
    // The service sends everyone's: only alice's show, and the total is the count of hers, not the service's.
    const list = mixedRequests(60, (i) => (i % 4 === 1 ? 'alice' : i % 4 === 2 ? 'alicia' : 'dave'));
    const first = reduce(state, pageOf(list.slice(0, 50), 60, 1, 2));
    expect(fetched(first.effects).map((e) => e.fetch.page)).toEqual([2]);
    const answered = reduce(first.state, pageOf(list.slice(50), 60, 2, 2));
    const alices = list.filter((r) => r.requester === 'alice');
    expect(alices).toHaveLength(15);
    expect(answered.state.feed).toMatchObject({ kind: 'scan', items: alices });
    expect(summarizeFeed(answered.state.feed)).toMatchObject({ rows: 15, total: 15 });
    expect(visibleRows(answered.state).map((r) => r.request?.requester)).toEqual(Array(15).fill('alice'));
    expect(formatPosition(answered.state)).toBe('1–15 of 15');
    // esc in the list clears the filter: the plain pending list again, exact.
    const cleared = reduce(answered.state, keys('<escape>')[0]);
    expect(cleared.state.filter.text).toBe('');
    expect(cleared.state.feed.kind).toBe('exact');
    expect(cleared.effects).toContainEqual(
      expect.objectContaining({ type: 'fetchPage', gen: 3, query: { status: 'pending' } }),
    );
  });

  it("@user in mine: the user's own is the same list; anyone else's is empty, and nothing is asked", () => {
    const own = run({ tab: 'mine' }, [{ type: 'start' }, ...keys('/', '@bob', '<return>')]);
    expect(fetched(own.effects)).toEqual([
      { type: 'fetchPage', gen: 2, fetch: { source: 0, page: 1 }, query: {}, perPage: 50 },
    ]);
    const shown = reduce(
      own.state,
      pageOf(
        mixedRequests(6, (i) => (i % 2 ? 'bob' : 'alice')),
        6,
        1,
        2,
      ),
    );
    expect(visibleRows(shown.state).map((r) => r.request?.requester)).toEqual(['bob', 'bob', 'bob']);
    const other = run({ tab: 'mine' }, [{ type: 'start' }, ...keys('/', '@alice', '<return>')]);
    expect(fetched(other.effects)).toEqual([]);
    expect(visibleRows(other.state)).toEqual([]);
    expect(formatPosition(other.state)).toBe('no request matches the filter');
  });

  it('free words still match here, and scan what the service sent', () => {
    const { state } = run({}, [{ type: 'start' }, ...keys('/', '@alice release', '<return>')]);
    expect(state.feed.kind).toBe('scan');
    expect(fetched(run({}, [{ type: 'start' }, ...keys('/', '@alice release', '<return>')]).effects)[0].query).toEqual({
      status: 'pending',
    });
    const answered = reduce(
      state,
      pageOf(
        [
          aRequest({ requester: 'alice', reason: 'release notes' }),
          aRequest({ requester: 'alice' }),
          aRequest({ requester: 'dave', reason: 'release' }),
        ],
        3,
        1,
        2,
      ),
    );
    expect(visibleRows(answered.state).map((r) => [r.request?.requester, r.request?.reason])).toEqual([
      ['alice', 'release notes'],
    ]);
  });
});

describe('queue model: decisions', () => {
  const loaded = (o: Parameters<typeof aRequest>[0] = {}, opts = {}) =>
    run(opts, [{ type: 'start' }, pageOf([aRequest({ id: 'r1', ...o })])]).state;
  const press = (s: QueueState, ...script: string[]) => {
    let step = { state: s, effects: [] as ReturnType<typeof reduce>['effects'] };
    const effects = [];
    for (const a of keys(...script)) ((step = reduce(step.state, a)), effects.push(...step.effects));
    return { state: step.state, effects };
  };

  it('a: comment typed inline, then a confirmation, then the decision is sent and shown optimistically', () => {
    const s0 = loaded();
    const s1 = press(s0, 'a');
    expect(s1.state.prompt).toEqual({ kind: 'comment', intent: { kind: 'approve', id: 'r1' }, draft: '' });
    const s2 = press(s1.state, 'looks ', 'fine', '<backspace>', 'e', '<return>');
    expect(s2.state.prompt).toEqual({ kind: 'confirm', intent: { kind: 'approve', id: 'r1', comment: 'looks fine' } });
    const s3 = press(s2.state, 'y');
    expect(s3.effects).toEqual([
      {
        type: 'decide',
        intent: { kind: 'approve', id: 'r1', comment: 'looks fine' },
        request: expect.objectContaining({ id: 'r1' }),
      },
    ]);
    expect(visibleRows(s3.state)[0].inflight).toEqual({ kind: 'approve', id: 'r1', comment: 'looks fine' });
    const done = reduce(s3.state, {
      type: 'decided',
      intent: { kind: 'approve', id: 'r1', comment: 'looks fine' },
      request: aRequest({ id: 'r1', status: 'approved', reviewer: 'bob' }),
    });
    // Approved, it leaves the pending queue at once (no reload): the next request is selected.
    expect(done.state.overlay.r1.status).toBe('approved');
    expect(visibleRows(done.state).map((r) => r.request?.id)).not.toContain('r1');
    expect(done.state.inflight).toEqual({});
    expect(done.effects.map((e) => e.type)).toContain('loadCounts');
    expect(done.state.log).toEqual([
      {
        id: 1,
        kind: 'success',
        text: "approved dave's request for editor on document:readme: dave now holds editor on document:readme",
      },
    ]);
  });

  it("a decision's answer arriving while another request's prompt is open: the prompt still names and decides that request", () => {
    const four = ['a', 'b', 'c', 'd'].map((id) => aRequest({ id, requester: `user-${id}` }));
    let s = run({}, [{ type: 'start' }, pageOf(four)]).state;
    s = press(s, 'a', '<return>', 'y').state; // approve a (in flight)
    s = press(s, 'j', 'j', 'a', '<return>').state; // c's confirmation is open
    expect(s.prompt).toMatchObject({ kind: 'confirm', intent: { id: 'c' } });
    // a's answer: a leaves the queue, so every row below it moves up one.
    s = reduce(s, {
      type: 'decided',
      intent: { kind: 'approve', id: 'a' },
      request: aRequest({ id: 'a', status: 'approved', reviewer: 'bob' }),
    }).state;
    expect(findRequest(s, 'c')?.id).toBe('c');
    const sent = press(s, 'y');
    expect(sent.effects).toEqual([
      { type: 'decide', intent: { kind: 'approve', id: 'c' }, request: expect.objectContaining({ id: 'c' }) },
    ]);
    expect(sent.state.inflight).toEqual({ c: { kind: 'approve', id: 'c' } });
  });

  it('text that arrives with its Enter in one chunk submits the comment', () => {
    const r = press(loaded(), 'a', 'ship it\r', 'y');
    expect(r.effects).toEqual([
      { type: 'decide', intent: { kind: 'approve', id: 'r1', comment: 'ship it' }, request: expect.anything() },
    ]);
  });

  it.each([
    { name: 'n at the confirmation', script: ['d', '<return>', 'n'] },
    // [y/N]: Enter takes the default, no.
    { name: 'enter at the confirmation', script: ['a', 'ok', '<return>', '<return>'] },
    { name: 'esc at the comment', script: ['d', 'no', '<escape>'] },
    { name: 'esc at the confirmation', script: ['c', 'x', '<return>', '<escape>'] },
  ])('nothing is sent after $name', ({ script }) => {
    const r = press(loaded(), ...script);
    expect(r.effects).toEqual([]);
    expect(r.state.prompt).toBeUndefined();
    expect(r.state.message?.text).toBe('nothing was changed');
  });

  it('r: choose a role, then approve as that role', () => {
    const roles = [
      { key: 'admin', permissions: [], extends: [] },
      { key: 'member', permissions: [], extends: [] },
      { key: 'editor', permissions: ['document:write'], extends: ['viewer'] },
      { key: 'viewer', permissions: ['document:read'], extends: [] },
      { key: 'auditor', permissions: ['sheet:read'], extends: [] },
    ];
    const s0 = reduce(loaded({ role: 'viewer' }), { type: 'rolesLoaded', roles }).state;
    const s1 = press(s0, 'r');
    // Only roles that grant something on document: not admin (nothing), member, nor auditor (another type).
    expect(s1.state.prompt).toEqual({
      kind: 'role',
      id: 'r1',
      choices: ['editor', 'viewer'],
      asked: 'viewer',
      cursor: 1,
    });
    const s2 = press(s1.state, 'k', '<return>', '<return>', 'y');
    expect(s2.effects).toEqual([
      { type: 'decide', intent: { kind: 'approve', id: 'r1', role: 'editor' }, request: expect.anything() },
    ]);
  });

  it("r on an instance offers its type's resource roles (and the top-level roles they do not hide); the key goes to the service", () => {
    const roles = [
      { key: 'member', permissions: ['document:read'], extends: [] },
      { key: 'auditor', permissions: ['document:read'], extends: [] },
      { key: 'editor', permissions: ['document:write'], extends: [] },
      { key: 'viewer', resource: 'document', permissions: ['read'], extends: [] },
      { key: 'commenter', resource: 'document', permissions: ['comment'], extends: ['viewer'] },
      { key: 'editor', resource: 'document', permissions: ['write'], extends: ['commenter'] },
      { key: 'editor', resource: 'folder', permissions: ['write'], extends: [] },
    ];
    const s0 = reduce(loaded({ role: 'editor' }), { type: 'rolesLoaded', roles }).state;
    const s1 = press(s0, 'r');
    expect(s1.state.prompt).toEqual({
      kind: 'role',
      id: 'r1',
      choices: ['auditor', 'document#commenter', 'document#editor', 'document#viewer'],
      asked: 'document#editor',
      cursor: 2,
    });
    const s2 = press(s1.state, 'j', '<return>', '<return>', 'y');
    expect(s2.effects).toEqual([
      { type: 'decide', intent: { kind: 'approve', id: 'r1', role: 'viewer' }, request: expect.anything() },
    ]);
  });

  it.each([
    {
      name: 'read-only',
      req: {},
      opts: { readonly: true },
      key: 'a',
      says: 'read-only (--readonly): decision keys are off',
    },
    {
      name: 'own request',
      req: { requester: 'bob' },
      opts: {},
      key: 'a',
      says: 'this is your own request: someone else reviews it (x cancels it)',
    },
    {
      name: 'decided',
      req: { status: 'deny', reviewer: 'carol' },
      opts: {},
      key: 'a',
      says: 'this request is already denied by carol',
    },
    {
      name: "cancel someone else's",
      req: {},
      opts: {},
      key: 'x',
      says: "only the requester may cancel: this is dave's request",
    },
    { name: 'change role while roles load', req: {}, opts: {}, key: 'r', says: 'the roles are still loading' },
  ])('refuses before asking anything: $name', ({ req, opts, key, says }) => {
    const r = press(loaded(req, opts), key);
    expect(r.state.prompt).toBeUndefined();
    expect(r.state.message?.text).toBe(says);
  });

  it("the keys are offered on anyone else's pending request (the read model does not say who may review: the service decides)", () => {
    const asAlice = run({ user: 'alice' }, [{ type: 'start' }, pageOf([aRequest({ id: 'r1', actor: 'alice' })])]).state;
    expect(selected(asAlice)).toMatchObject({ requester: 'dave', own: false, canReview: true });
    expect(press(asAlice, 'd').state.prompt).toEqual({
      kind: 'comment',
      intent: { kind: 'deny', id: 'r1' },
      draft: '',
    });
  });

  it('x cancels your own request, with a reason', () => {
    const r = press(loaded({ requester: 'bob' }), 'x', 'not needed', '<return>', 'y');
    expect(r.effects).toEqual([
      { type: 'decide', intent: { kind: 'cancel', id: 'r1', comment: 'not needed' }, request: expect.anything() },
    ]);
  });

  it('a 409 shows the request as it is now; a 409 that is our own earlier attempt is a success', () => {
    const s = press(loaded(), 'a', '<return>', 'y').state;
    const intent = { kind: 'approve' as const, id: 'r1' };
    const other = reduce(s, {
      type: 'conflict',
      intent,
      request: aRequest({ id: 'r1', status: 'deny', reviewer: 'carol' }),
    });
    expect(other.state.message).toEqual({
      kind: 'warning',
      text: "not approved: dave's request for editor on document:readme was already denied by carol; nothing changed",
    });
    expect(other.state.overlay.r1.status).toBe('denied');
    expect(visibleRows(other.state).map((r) => r.request?.id)).not.toContain('r1');
    const mine = reduce(s, {
      type: 'conflict',
      intent,
      request: aRequest({ id: 'r1', status: 'approved', reviewer: 'bob' }),
    });
    expect(mine.state.message?.kind).toBe('success');
  });

  it('a network error keeps the request as it was and says how to retry', () => {
    const s = press(loaded(), 'd', '<return>', 'y').state;
    const r = reduce(s, {
      type: 'decisionFailed',
      intent: { kind: 'deny', id: 'r1' },
      message: 'NETWORK_ERROR: ECONNREFUSED',
      network: true,
    });
    expect(r.state.inflight).toEqual({});
    expect(selected(r.state)?.status).toBe('pending');
    expect(r.state.message).toEqual({
      kind: 'error',
      text: 'could not reach the service (NETWORK_ERROR: ECONNREFUSED): nothing was changed; press d to try again',
    });
    expect(r.state.quit).toBe(false);
  });

  it('enter opens details and reads the requester and the environment (once); esc goes back; q quits once', () => {
    const s = press(loaded(), '<return>');
    expect(s.state.view).toBe('detail');
    expect(s.effects).toEqual([{ type: 'loadPerson', user: 'dave' }, { type: 'loadLive' }]);
    // Read once: back to the list and in again asks for neither.
    expect(press(press(s.state, '<escape>').state, '<return>').effects).toEqual([]);
    // R forgets it: read again once details of a request are shown.
    expect(s.state.live).toEqual({ state: 'loading' });
    expect(press(s.state, 'R').state.live).toBeUndefined();
    expect(press(s.state, '<escape>').state.view).toBe('list');
    const q = press(s.state, 'q', 'q');
    expect(q.effects).toEqual([{ type: 'quit' }]);
  });

  it('a page that fails says so and R asks again', () => {
    const s = run({}, [
      { type: 'start' },
      { type: 'pageFailed', gen: 1, fetch: { source: 0, page: 1 }, message: 'NETWORK_ERROR' },
    ]).state;
    expect(s.message?.text).toBe('could not load the queue (NETWORK_ERROR): press R to retry');
    const again = reduce(s, keys('R')[0]);
    expect(again.effects).toContainEqual(expect.objectContaining({ type: 'fetchPage', gen: 2 }));
  });
});

describe('queue model: properties', () => {
  const actionArb: fc.Arbitrary<Action> = fc.oneof(
    fc.constantFrom(
      ...keys(
        'j',
        'k',
        'g',
        'G',
        '<ctrl-d>',
        '<ctrl-u>',
        '<pagedown>',
        '<pageup>',
        '<return>',
        '<escape>',
        '<tab>',
        'R',
        '?',
        '/',
        'a',
        '<return>',
        'y',
        'x',
      ),
    ),
    fc
      .record({ rows: fc.integer({ min: 1, max: 60 }), width: fc.integer({ min: 10, max: 200 }) })
      .map((r) => ({ type: 'resize', ...r }) as Action),
    fc
      .record({
        n: fc.integer({ min: 0, max: 50 }),
        total: fc.integer({ min: 0, max: 500 }),
        page: fc.integer({ min: 1, max: 10 }),
      })
      .map(
        ({ n, total, page }) =>
          ({
            type: 'pageLoaded',
            gen: 1,
            fetch: { source: 0, page },
            items: someRequests(Math.min(n, total)),
            total,
          }) as Action,
      ),
  );

  it('the cursor is always within the rows, and always on screen', () => {
    fc.assert(
      fc.property(fc.array(actionArb, { maxLength: 60 }), (actions) => {
        let s = initQueue({ user: 'bob', tenant: 'acme' });
        for (const a of actions) {
          s = reduce(s, a).state;
          const n = s.feed.kind === 'exact' ? (s.feed.total ?? 0) : s.feed.items.length;
          expect(s.cursor).toBeGreaterThanOrEqual(0);
          expect(s.cursor).toBeLessThan(Math.max(1, n));
          expect(s.top).toBeGreaterThanOrEqual(0);
          if (n > 0) {
            expect(s.cursor).toBeGreaterThanOrEqual(s.top);
            expect(s.cursor).toBeLessThan(s.top + listHeight(s));
          }
          expect(visibleRows(s).length).toBeLessThanOrEqual(listHeight(s));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('queue model: oldest first (the default), keys in one chunk', () => {
  const h = 24 - 8;
  it('reads page 1 for the total, then the last page: row 0 is the oldest request', () => {
    const requests = (page: number) => someRequests(50).map((r, i) => ({ ...r, id: `p${page}-${i}` }));
    const start = run({ order: 'oldest' }, [{ type: 'start' }, pageOf(requests(1), 120)]);
    // 120 requests, newest first on the service: rows 0..h-1 oldest first are the service's 119..(120-h).
    expect(start.all.filter((e) => e.type === 'fetchPage').map((e) => e.type === 'fetchPage' && e.fetch.page)).toEqual([
      1, 2, 3,
    ]);
    const s = reduce(
      reduce(start.state, pageOf(requests(3).slice(0, 20), 120, 3)).state,
      pageOf(requests(2), 120, 2),
    ).state;
    expect(requestAt(s, 0)?.id).toBe('p3-19');
    expect(requestAt(s, 19)?.id).toBe('p3-0');
    expect(requestAt(s, 20)?.id).toBe('p2-49');
    expect(requestAt(s, 119)?.id).toBe('p1-0');
    expect(visibleRows(s)).toHaveLength(h);
  });

  it('s turns the order around (and back), reloading the list', () => {
    const { state, all } = run({ order: 'oldest' }, [{ type: 'start' }, ...keys('s')]);
    expect(state.order).toBe('newest');
    expect(state.gen).toBe(2);
    expect(state.message?.text).toBe('newest first');
    expect(all.filter((e) => e.type === 'fetchPage' && e.gen === 2)).toHaveLength(1);
    expect(run({}, keys('s', 's')).state.order).toBe('newest');
  });

  it('a merged tab (decided) reads each list from its last page and merges oldest first', () => {
    const at = (id: string, minute: number, status: 'approved' | 'deny') =>
      aRequest({ id, status, createdAt: `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z` });
    const approved = [at('a3', 50, 'approved'), at('a2', 30, 'approved'), at('a1', 10, 'approved')];
    const denied = [at('d2', 40, 'deny'), at('d1', 20, 'deny')];
    const { state } = run({ order: 'oldest', tab: 'decided' }, [
      { type: 'start' },
      pageOf(approved, 3, 1, 1, 0),
      pageOf(denied, 2, 1, 1, 1),
    ]);
    expect(visibleRows(state).map((r) => r.request?.id)).toEqual(['a1', 'd1', 'a2', 'd2', 'a3']);
  });

  it('every key of a chunk is handled: jj moves twice; a chunk in a text prompt stays text', () => {
    const page = pageOf(someRequests(50), 50);
    expect(run({}, [{ type: 'start' }, page, ...keys('jj')]).state.cursor).toBe(2);
    expect(run({}, [{ type: 'start' }, page, ...keys('jjjk')]).state.cursor).toBe(2);
    const typed = run({}, [{ type: 'start' }, page, ...keys('/', 'jj')]).state;
    expect(typed.prompt).toEqual({ kind: 'filter', draft: 'jj' });
    expect(typed.cursor).toBe(0);
  });
});

describe('queue model: a slow answer', () => {
  const info = {
    method: 'GET',
    path: '/v2/facts/p/e/access_requests/default/user/bob/tenant/acme',
    waitedMs: 10_200,
    attempt: 1,
    deadlineMs: 120_000,
  };
  it('a notice is kept until nothing is in flight, and asks for nothing', () => {
    const waiting = run({}, [{ type: 'start' }, { type: 'waiting', info }]);
    expect(waiting.state.waiting).toEqual(info);
    expect(waiting.effects).toEqual([]);
    const later = reduce(waiting.state, { type: 'waiting', info: { ...info, waitedMs: 15_300 } });
    expect(later.state.waiting?.waitedMs).toBe(15_300);
    const over = reduce(later.state, { type: 'waited' });
    expect(over.state.waiting).toBeUndefined();
    expect(over.effects).toEqual([]);
    // Nothing awaited: nothing changes.
    expect(reduce(over.state, { type: 'waited' }).state).toBe(over.state);
  });
});
