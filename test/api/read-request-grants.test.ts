import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type AttemptInfo } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { withSharedLists } from '../../src/api/shared-reads.js';
import {
  buildRequestGrants,
  readRequestGrants,
  type AccessRequestRead,
  type Lookups,
} from '../../src/api/read-request-grants.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { aRequest, addToTenant, as, elementsConfig, ok, role, seedWorld, user } from '../access-requests/builders.js';

/**
 * Reading the grants of approved access requests: what it asks the service (public operations, paged
 * lists, few requests) and how it maps the answers (ids or keys) to grants.
 */
describe('buildRequestGrants (the public service may name everything by id)', () => {
  const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const keyed = (pairs: [number, string][]) => new Map(pairs.map(([n, key]) => [id(n), { id: id(n), key }]));
  const maps: Lookups = {
    users: keyed([
      [1, 'mindy'],
      [2, 'bob'],
    ]),
    tenants: keyed([[10, 'acme']]),
    roles: keyed([[20, 'maintainer']]),
    resources: keyed([[30, 'repo']]),
    instances: new Map([[id(40), { id: id(40), key: 'web', resource: 'repo' }]]),
  };
  const request = (
    details: AccessRequestRead['access_request_details'],
    more: Partial<AccessRequestRead> = {},
  ): AccessRequestRead => ({
    id: 'r1',
    status: 'approved',
    requesting_user_id: id(1),
    reviewer_user_id: id(2),
    reviewed_at: '2030-01-01T00:00:00Z',
    updated_at: '2030-01-01T00:00:01Z',
    access_request_details: details,
    ...more,
  });
  const one = (r: AccessRequestRead) => buildRequestGrants([{ config: 'default', r }], maps);

  it.each<[string, AccessRequestRead['access_request_details'], { role: string; tenant: string; on?: string }]>([
    [
      'keys, bare instance key with its resource (this server)',
      { tenant: 'acme', role: 'maintainer', resource: 'repo', resource_instance: 'web' },
      { role: 'maintainer', tenant: 'acme', on: 'repo:web' },
    ],
    [
      'ids throughout (the public service)',
      { tenant: id(10), role: id(20), resource: id(30), resource_instance: id(40) },
      { role: 'maintainer', tenant: 'acme', on: 'repo:web' },
    ],
    [
      'type:key instance',
      { tenant: 'acme', role: 'maintainer', resource: 'repo', resource_instance: 'repo:web' },
      { role: 'maintainer', tenant: 'acme', on: 'repo:web' },
    ],
    [
      'tenant-wide (no instance)',
      { tenant: 'acme', role: 'maintainer', resource: null, resource_instance: null },
      { role: 'maintainer', tenant: 'acme' },
    ],
    [
      'a key that looks like no id it knows stays a key',
      { tenant: id(99), role: 'maintainer' },
      { role: 'maintainer', tenant: id(99) },
    ],
  ])('%s', (_, details, want) => {
    expect(one(request(details))).toEqual([
      {
        user: 'mindy',
        ...want,
        request: { id: 'r1', config: 'default', reviewer: 'bob', approvedAt: '2030-01-01T00:00:00Z' },
      },
    ]);
  });

  it('no reviewer recorded: null; an unknown reviewer id: the id; no reviewed_at: updated_at; an unknown requester: nothing', () => {
    expect(
      one(request({ tenant: 'acme', role: 'maintainer' }, { reviewer_user_id: null, reviewed_at: null }))[0].request,
    ).toEqual({ id: 'r1', config: 'default', reviewer: null, approvedAt: '2030-01-01T00:00:01Z' });
    expect(one(request({ tenant: 'acme', role: 'maintainer' }, { reviewer_user_id: id(77) }))[0].request.reviewer).toBe(
      id(77),
    );
    expect(one(request({ tenant: 'acme', role: 'maintainer' }, { requesting_user_id: id(77) }))).toEqual([]);
  });
});

describe('readRequestGrants against the real server', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await seedWorld(s);
    await elementsConfig(s, 'second', { LEVEL_1: ['admin'] });
    await role(s, 'extra');
    // 128 users, so that the users list takes two pages.
    for (let i = 0; i < 120; i++) await user(s, `filler${i}`);
  });
  afterAll(() => s?.close());

  const read = async () => {
    const requests: AttemptInfo[] = [];
    const client = createClient({
      baseUrl: s.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      onRequest: (i) => requests.push(i),
    });
    try {
      return { grants: await readRequestGrants(client), requests };
    } finally {
      await client.close();
    }
  };

  it('with no approved request: the configurations and one page of approved requests each, nothing more', async () => {
    await aRequest(s, 'alice', { role: 'viewer', resource_instance: 'doc:d1' });
    const { grants, requests } = await read();
    expect(grants).toEqual([]);
    expect(requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /v2/elements/p/e/config',
      'GET /v2/elements/p/e/config/second/access_requests',
      'GET /v2/elements/p/e/config/um/access_requests',
    ]);
  });

  it("approved requests of every configuration (the reviewer's choice of role included), with keys; users read in pages", async () => {
    const a = await aRequest(s, 'alice', { role: 'viewer', resource_instance: 'doc:d1' });
    ok(await as(s, 'mod').approve(a.id, { role: 'editor' }));
    await addToTenant(s, 't', 'bob');
    const b = await aRequest(s, 'bob', { role: 'extra' }, { config: 'second' });
    const approvedB = ok(await as(s, 'mod', { config: 'second' }).approve(b.id));
    const denied = await aRequest(s, 'bob', { role: 'viewer' });
    ok(await as(s, 'mod').deny(denied.id));
    const { grants, requests } = await read();
    expect(grants.sort((x, y) => x.user.localeCompare(y.user))).toEqual([
      {
        user: 'alice',
        role: 'editor',
        tenant: 't',
        on: 'doc:d1',
        request: { id: a.id, config: 'um', reviewer: 'mod', approvedAt: expect.any(String) },
      },
      {
        user: 'bob',
        role: 'extra',
        tenant: 't',
        request: { id: b.id, config: 'second', reviewer: 'mod', approvedAt: approvedB.reviewed_at },
      },
    ]);
    // 1 (configurations) + 2 (one page each) + 2 (128 users, 100 a page); no per-object read.
    expect(requests).toHaveLength(5);
    expect(requests.every((r) => r.method === 'GET')).toBe(true);
    expect(requests.filter((r) => r.path === '/v2/facts/p/e/users')).toHaveLength(2);
  });

  it('read with the live state, as a plan does, the users and configurations are read once for both', async () => {
    const requests: AttemptInfo[] = [];
    const client = createClient({
      baseUrl: s.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      onRequest: (i) => requests.push(i),
    });
    try {
      const reader = withSharedLists(client);
      const [live, grants] = await Promise.all([readLiveState(reader), readRequestGrants(reader)]);
      expect(grants.length).toBeGreaterThan(0);
      expect(live.users.size).toBeGreaterThan(100);
    } finally {
      await client.close();
    }
    expect(requests.filter((r) => r.path === '/v2/facts/p/e/users')).toHaveLength(2);
    expect(requests.filter((r) => r.path === '/v2/elements/p/e/config')).toHaveLength(1);
  });
});
