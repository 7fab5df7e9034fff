import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STRING } from '../../src/api/answer.js';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { readRequestGrants } from '../../src/api/read-request-grants.js';
import { ApiError } from '../../src/errors.js';
import { checkActor } from '../../src/review/actor.js';
import { createReviewSource } from '../../src/review/index.js';
import { readConfigKeys } from '../../src/review/locate.js';
import { startFaultProxy, type FaultProxy, type FaultRequest } from '../helpers/fault-proxy.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { populate } from './fixtures/populated.js';

/**
 * Every list Roster reads, answered by the real server with one item of a page replaced (through a
 * proxy in front of it) by one it cannot use: `null`, a number, `{}`, or the item with one field of the
 * wrong type. Each ends, after the retries, in MALFORMED_ANSWER naming the request and the item, never in
 * a TypeError or a live state read from a broken item.
 */
let server: TestServer;
let proxy: FaultProxy | undefined;
const clients: ApiClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  await populate(server);
}, 60_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => server?.close());

type Item = Record<string, any>;

interface ListCase {
  /** The list's path as the proxy sees it (and as the error names it). */
  path: string;
  /** Only requests with this query (a list read several ways). */
  query?: RegExp;
  /** The item replaced, and how the page answered names it (`data[1]` in the envelope, `[0]` in an array). */
  index: number;
  at: string;
  /** The first field an empty object lacks. */
  first: string;
  /** Wrong-typed fields: the change, and the start of the problem after `at`. */
  fields: [string, (item: Item) => unknown, string][];
  read: (client: ApiClient) => Promise<unknown>;
}

const live = (c: ApiClient) => readLiveState(c);
const review = (c: ApiClient) => createReviewSource({ client: c, user: 'ada', tenant: 'acme' });

const LISTS: Record<string, ListCase> = {
  resources: {
    path: '/v2/schema/p/e/resources',
    index: 1,
    at: 'data[1]',
    first: 'id',
    read: live,
    fields: [
      ['key: 5', (i) => ({ ...i, key: 5 }), '.key is a number, where a string was expected'],
      [
        'relations: 3',
        (i) => ({ ...i, relations: 3 }),
        '.relations is a number, where an object of named entries, null or nothing was expected',
      ],
      [
        'a role whose permissions hold a number',
        (i) => ({ ...i, roles: { ...i.roles, viewer: { ...i.roles.viewer, permissions: [5] } } }),
        '.roles.viewer.permissions[0] is a number, where a string was expected',
      ],
      [
        'a derivation without on_resource',
        (i) => ({
          ...i,
          roles: {
            viewer: {
              ...i.roles.viewer,
              granted_to: { users_with_role: [{ role: 'viewer', linked_by_relation: 'parent' }] },
            },
          },
        }),
        '.roles.viewer.granted_to.users_with_role[0].on_resource is missing, where a string was expected',
      ],
    ],
  },
  // The environment's one top-level role (membership is the group types' resource role `member` now).
  roles: {
    path: '/v2/schema/p/e/roles',
    index: 0,
    at: 'data[0]',
    first: 'id',
    read: live,
    fields: [
      [
        'permissions: "x"',
        (i) => ({ ...i, permissions: 'x' }),
        '.permissions is a string, where a list, null or nothing was expected',
      ],
    ],
  },
  tenants: {
    path: '/v2/facts/p/e/tenants',
    index: 1,
    at: 'data[1]',
    first: 'id',
    read: live,
    fields: [['key: 5', (i) => ({ ...i, key: 5 }), '.key is a number, where a string was expected']],
  },
  users: {
    path: '/v2/facts/p/e/users',
    index: 1,
    at: 'data[1]',
    first: 'id',
    read: live,
    fields: [
      ['email: 5', (i) => ({ ...i, email: 5 }), '.email is a number, where a string, null or nothing was expected'],
      [
        'associated_tenants: [{tenant: 1}]',
        (i) => ({ ...i, associated_tenants: [{ tenant: 1 }] }),
        '.associated_tenants[0].tenant is a number, where a string was expected',
      ],
    ],
  },
  'role assignments': {
    path: '/v2/facts/p/e/role_assignments',
    index: 1,
    at: 'data[1]',
    first: 'user',
    read: live,
    fields: [['user: null', (i) => ({ ...i, user: null }), '.user is null, where a string was expected']],
  },
  'resource instances': {
    path: '/v2/facts/p/e/resource_instances',
    index: 1,
    at: 'data[1]',
    first: 'id',
    read: live,
    fields: [
      [
        'attributes: "x"',
        (i) => ({ ...i, attributes: 'x' }),
        '.attributes is a string, where an object, null or nothing was expected',
      ],
    ],
  },
  'relationship tuples': {
    path: '/v2/facts/p/e/relationship_tuples',
    query: /relation=parent/,
    index: 1,
    at: 'data[1]',
    first: 'subject',
    read: live,
    fields: [['subject: 4', (i) => ({ ...i, subject: 4 }), '.subject is a number, where a string was expected']],
  },
  'groups (direct)': {
    path: '/v2/schema/p/e/groups/direct',
    index: 1,
    at: 'data[1]',
    first: 'group_instance_key',
    read: live,
    fields: [
      ['group_tenant: 3', (i) => ({ ...i, group_tenant: 3 }), '.group_tenant is a number, where a string was expected'],
    ],
  },
  "a group's roles": {
    path: '/v2/schema/p/e/groups/team%3Aproduct/roles',
    index: 1,
    at: 'data[1]',
    first: 'key',
    read: live,
    fields: [
      [
        'resource: "document"',
        (i) => ({ ...i, resource: 'document' }),
        '.resource is a string, where an object with key was expected',
      ],
    ],
  },
  'element configurations': {
    path: '/v2/elements/p/e/config',
    index: 0,
    at: '[0]',
    first: 'key',
    read: live,
    fields: [
      [
        'roles_to_levels: "x"',
        (i) => ({ ...i, roles_to_levels: 'x' }),
        '.roles_to_levels is a string, where an object of levels, each a list of role keys or {key}, null or nothing was expected',
      ],
    ],
  },
  'approved access requests (request grants)': {
    path: '/v2/elements/p/e/config/default/access_requests',
    index: 0,
    at: 'data[0]',
    first: 'id',
    read: readRequestGrants,
    fields: [
      [
        'access_request_details: {}',
        (i) => ({ ...i, access_request_details: {} }),
        '.access_request_details.tenant is missing, where a string was expected',
      ],
    ],
  },
  'access requests (review queue)': {
    path: '/v2/facts/p/e/access_requests/default/user/ada/tenant/acme',
    index: 1,
    at: 'data[1]',
    first: 'id',
    read: (c) => review(c).listPage({}, 1, 10),
    fields: [
      ['status: 5', (i) => ({ ...i, status: 5 }), '.status is a number, where a string, null or nothing was expected'],
    ],
  },
  'roles (review impact)': {
    path: '/v2/schema/p/e/roles',
    index: 0,
    at: 'data[0]',
    first: 'key',
    read: (c) => review(c).readRoles(),
    fields: [['extends: [1]', (i) => ({ ...i, extends: [1] }), '.extends[0] is a number, where a string was expected']],
  },
  "role assignments (a requester's)": {
    path: '/v2/facts/p/e/role_assignments',
    index: 0,
    at: 'data[0]',
    first: 'user',
    read: (c) => review(c).readRequester('ben'),
    fields: [['role: 1', (i) => ({ ...i, role: 1 }), '.role is a number, where a string was expected']],
  },
  'element configurations (requests, all configurations)': {
    path: '/v2/elements/p/e/config',
    index: 0,
    at: '[0]',
    first: 'key',
    read: readConfigKeys,
    fields: [
      [
        'elements_type: 1',
        (i) => ({ ...i, elements_type: 1 }),
        '.elements_type is a number, where a string, null or nothing was expected',
      ],
    ],
  },
  'users (an unknown --user, names to suggest)': {
    path: '/v2/facts/p/e/users',
    index: 1,
    at: 'data[1]',
    first: 'key',
    read: (c) => checkActor(c, 'nobody', 'acme'),
    fields: [['key: []', (i) => ({ ...i, key: [] }), '.key is an array, where a string was expected']],
  },
};

/** A client through a proxy that replaces item `index` of every answer to `list` with `change(item)`. */
async function breaking(
  list: ListCase,
  change: (item: Item) => unknown,
  only?: (r: FaultRequest) => boolean,
): Promise<ApiClient> {
  const hit = (r: FaultRequest) =>
    r.method === 'GET' && r.path === list.path && (!list.query || list.query.test(r.query)) && (!only || only(r));
  proxy = await startFaultProxy(server.url, (r) =>
    hit(r) ? { kind: 'item', index: list.index, change: (i) => change(i as Item) } : undefined,
  );
  const client = createClient({
    baseUrl: proxy.url,
    apiKey: ORG_KEY,
    project: 'p',
    environment: 'e',
    retries: 1,
    sleep: async () => {},
  });
  clients.push(client);
  return client;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe.each(Object.entries(LISTS))('a page of %s with an item Roster cannot use', (_, list) => {
  const cases: [string, (item: Item) => unknown, string][] = [
    ['null', () => null, ' is null, where an object with '],
    ['a number', () => 1, ' is a number, where an object with '],
    ['an empty object', () => ({}), `.${list.first} is missing, where `],
    ...list.fields,
  ];
  it.each(cases)(
    '%s: MALFORMED_ANSWER naming the request and the item, after the retries',
    async (__, change, problem) => {
      const client = await breaking(list, change);
      const err = await list.read(client).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, String(err)).toBeInstanceOf(ApiError);
      const { info, message } = err as ApiError;
      expect(info).toMatchObject({ method: 'GET', path: list.path, status: 200, errorCode: 'MALFORMED_ANSWER' });
      expect(message).toMatch(
        new RegExp(
          `^GET ${escape(list.path)} answered 200 MALFORMED_ANSWER: JSON of the wrong shape \\(page 1: ${escape(list.at + problem)}.*\\) \\(after 2 attempts\\)$`,
        ),
      );
      expect(message).not.toContain(ORG_KEY);
      // The broken page was really read over HTTP, twice: the first answer and its retry.
      expect(proxy!.seen.filter((r) => r.fault === 'item').length).toBeGreaterThanOrEqual(2);
    },
  );
});

describe('the page is named, and a good retry is used', () => {
  it('an item of page 2 is named as such', async () => {
    const client = await breaking(
      { ...LISTS.users, index: 0 },
      (i) => ({ ...i, key: 7 }),
      (r) => /(^|&)page=2(&|$)/.test(r.query),
    );
    const err = await client.listAll('/v2/facts/p/e/users', { perPage: 2, item: { key: STRING } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(err)).toContain(
      'answered 200 MALFORMED_ANSWER: JSON of the wrong shape (page 2: data[0].key is a number, where a string was expected) (after 2 attempts)',
    );
  });

  it('a bad item in the first answer only: retried, and the live state reads as without the proxy', async () => {
    const direct = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
    clients.push(direct);
    const expected = await readLiveState(direct);
    let broken = 0;
    const client = await breaking(
      LISTS.users,
      () => null,
      () => broken++ === 0,
    );
    expect(await readLiveState(client)).toEqual(expected);
    expect(proxy!.seen.filter((r) => r.fault === 'item')).toHaveLength(1);
    expect(client.counters().retries).toBe(1);
  });
});

describe('a role assignment named by tenant id only (the public schema requires tenant_id, not tenant)', () => {
  const assignments = LISTS['role assignments'];
  const direct = async () => {
    const c = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
    clients.push(c);
    return readLiveState(c);
  };

  it('without `tenant`, the tenant is found from `tenant_id` among the tenants read: the same live state', async () => {
    const want = await direct();
    const client = await breaking(assignments, (i) => ({ ...i, tenant: undefined }));
    const got = await readLiveState(client);
    expect([...got.users.values()]).toEqual([...want.users.values()]);
    expect([...got.groups.values()]).toEqual([...want.groups.values()]);
  });

  it('with neither a `tenant` nor a known `tenant_id`: MALFORMED_ANSWER naming the assignment', async () => {
    const client = await breaking(assignments, (i) => ({ ...i, tenant: null, tenant_id: 'no-such-tenant-id' }));
    const error = await readLiveState(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).info).toMatchObject({
      errorCode: 'MALFORMED_ANSWER',
      path: '/v2/facts/p/e/role_assignments',
    });
    expect((error as Error).message).toMatch(/names tenant id no-such-tenant-id, not among the tenants listed/);
  });
});
