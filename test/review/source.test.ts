import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ReadOptions } from '../../src/api/index.js';
import { createReviewSource } from '../../src/review/index.js';
import type { TestServer } from '../helpers/server.js';
import { clientFor, fileRequest, LIST_PARAMS, startRecordedWorld, type RecordedWorld } from './world.js';

/**
 * The review source against the real server, through a proxy that records what goes on the wire: the
 * public list's declared filters only, and users named by id turned into keys with the users API.
 */

let world: RecordedWorld;
let server: TestServer;
let recorder: RecordedWorld['recorder'];
let client: ApiClient;
let users: RecordedWorld['users'];

beforeAll(async () => {
  world = await startRecordedWorld();
  ({ server, recorder, users } = world);
  client = clientFor({ ...server, url: recorder.url });
});
afterAll(async () => {
  await client.close();
  await world.close();
});

const since = (n: number) => recorder.seen.slice(n);
const userLookups = (n: number) =>
  since(n)
    .filter((r) => r.path.startsWith('/v2/facts/p/e/users/'))
    .map((r) => r.path.slice('/v2/facts/p/e/users/'.length));

describe('review source (real server)', () => {
  it('lists with the declared filters only, and names users by key', async () => {
    const readme = await fileRequest(
      server,
      'alice',
      { role: 'editor', resource: 'document', resource_instance: 'readme' },
      'notes',
    );
    await fileRequest(server, 'dave', { role: 'viewer', resource: 'document', resource_instance: 'roadmap' });
    const source = createReviewSource({ client, user: 'bob', tenant: 'acme' });
    const n = recorder.seen.length;
    const got = await source.listPage(
      { status: 'pending', role: 'editor', resource: 'document', resourceInstance: 'document:readme' },
      1,
      10,
    );
    const lists = since(n).filter((r) => r.path.includes('/access_requests/'));
    expect(lists.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      {
        method: 'GET',
        path: '/v2/facts/p/e/access_requests/default/user/bob/tenant/acme',
        query: [
          ['page', '1'],
          ['per_page', '10'],
          ['status', 'pending'],
          ['role', 'editor'],
          ['resource', 'document'],
          ['resource_instance_id', 'document:readme'],
        ],
      },
    ]);
    expect(lists.flatMap((r) => r.query.map(([k]) => k)).filter((k) => !LIST_PARAMS.includes(k))).toEqual([]);
    expect(got.total).toBe(1);
    expect(got.items).toMatchObject([
      {
        id: readme,
        requester: 'alice',
        role: 'editor',
        resource: 'document',
        instance: 'readme',
        reason: 'notes',
        own: false,
        canReview: true,
      },
    ]);
    expect(userLookups(n)).toEqual([users.id.alice]);
  });

  it('looks each user up once, however many pages name them', async () => {
    const source = createReviewSource({ client, user: 'bob', tenant: 'acme' });
    const n = recorder.seen.length;
    const page1 = await source.listPage({}, 1, 1);
    const page2 = await source.listPage({}, 2, 1);
    const all = await source.listPage({}, 1, 100);
    expect([...page1.items, ...page2.items].map((r) => r.requester).sort()).toEqual(['alice', 'dave']);
    expect(all.items.map((r) => r.requester).sort()).toEqual(['alice', 'dave']);
    expect(userLookups(n).sort()).toEqual([users.id.alice, users.id.dave].sort());
  });

  // Known bug (src/review/source.ts, learnKeys): the cache is filled only when a lookup answers, so
  // pages read at the same time (the queue's read-ahead, decided's two lists) each look the same ids
  // up. Passes (as a failing test) until the in-flight lookup is shared; then make it a plain `it`.
  it('looks each user up once also when pages are read at the same time', async () => {
    // The users API is held until both lists have answered, so the two reads overlap for sure.
    let listed = 0;
    let release!: () => void;
    const bothListed = new Promise<void>((r) => (release = r));
    const gated: ApiClient = {
      ...client,
      get: async <T>(path: string, o?: ReadOptions) => {
        if (path.includes('/users/')) await bothListed;
        const answer = await client.get<T>(path, o);
        if (path.includes('/access_requests/') && ++listed === 2) release();
        return answer;
      },
    };
    const source = createReviewSource({ client: gated, user: 'bob', tenant: 'acme' });
    const n = recorder.seen.length;
    await Promise.all([source.listPage({ status: 'pending' }, 1, 100), source.listPage({ status: 'pending' }, 1, 100)]);
    expect(userLookups(n).sort()).toEqual([users.id.alice, users.id.dave].sort());
  });

  it('reads one request and each decision answer in the public shape, the reviewer by key', async () => {
    const id = await fileRequest(server, 'dave', { role: 'viewer', resource: 'document', resource_instance: 'readme' });
    const asDave = createReviewSource({ client, user: 'dave', tenant: 'acme' });
    expect(await asDave.get(id)).toMatchObject({
      id,
      requester: 'dave',
      own: true,
      canReview: false,
      status: 'pending',
      reviewer: null,
    });
    const asCarol = createReviewSource({ client, user: 'carol', tenant: 'acme' });
    const denied = await asCarol.deny(id, { comment: 'no' });
    expect(denied).toMatchObject({
      status: 'denied',
      requester: 'dave',
      reviewer: 'carol',
      reviewerComment: 'no',
      own: false,
    });
    expect(denied).not.toHaveProperty('cancelReason');
  });

  it('a reviewer deleted since is shown by id', async () => {
    const s = (method: string, path: string, body?: unknown) => server.facts(method, path, body);
    expect((await s('POST', '/users', { key: 'erin' })).status).toBe(200);
    expect((await s('POST', '/role_assignments', { user: 'erin', role: 'approver', tenant: 'acme' })).status).toBe(200);
    const id = await fileRequest(server, 'dave', {
      role: 'viewer',
      resource: 'document',
      resource_instance: 'roadmap',
    });
    expect(
      (await s('PUT', `/access_requests/default/user/erin/tenant/acme/${id}/deny`, { reviewer_comment: 'no' })).status,
    ).toBe(200);
    const erin = (await s('GET', '/users/erin')).body.id as string;
    expect(await createReviewSource({ client, user: 'bob', tenant: 'acme' }).get(id)).toMatchObject({
      status: 'denied',
      requester: 'dave',
      reviewer: 'erin',
    });
    expect((await s('DELETE', '/users/erin')).status).toBe(204);
    // A new session looks the id up again: 404, so it is shown as it is.
    const n = recorder.seen.length;
    expect(await createReviewSource({ client, user: 'bob', tenant: 'acme' }).get(id)).toMatchObject({
      status: 'denied',
      requester: 'dave',
      reviewer: erin,
    });
    expect(userLookups(n).sort()).toEqual([users.id.dave, erin].sort());
  });
});
