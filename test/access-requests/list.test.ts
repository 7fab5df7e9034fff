import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  aRequest,
  addToTenant,
  as,
  assign,
  elementsConfig,
  expectError,
  expectInvalid,
  instance,
  ok,
  resource,
  seedWorld,
  startWithClock,
  user,
  type Clock,
} from './builders.js';

/**
 * List filters (`status, tenant, role, resource, resource_instance, requesting_user`) and paging, in
 * headers (the specification) and in the query (the public API). The moderator `boss` reviews both
 * tenants; every expectation is computed from the fixture table below, so each row of a test shows only
 * the filter. Requests are alice's unless `by` says otherwise.
 */
let s: TestServer;
let clock: Clock;

type Status = null | 'approved' | 'deny' | 'cancel';
interface Fixture {
  tenant: string;
  role: string;
  resource?: string;
  instance?: string;
  status: Status;
  by?: 'alice' | 'bob';
  id?: string;
}
const FIXTURES: Fixture[] = [
  { tenant: 't', role: 'viewer', status: null },
  { tenant: 't', role: 'editor', instance: 'doc:d1', status: 'approved' },
  { tenant: 't', role: 'viewer', instance: 'doc:d1', status: 'deny', by: 'bob' },
  { tenant: 't', role: 'editor', instance: 'doc:d2', status: 'cancel' },
  { tenant: 't2', role: 'viewer', instance: 'doc:x1', status: null },
  { tenant: 't2', role: 'editor', status: 'approved', by: 'bob' },
  { tenant: 't', role: 'editor', resource: 'doc', status: null, by: 'bob' },
  { tenant: 't', role: 'viewer', instance: 'sheet:d1', status: null },
];
const resourceOf = (f: Fixture) => f.instance?.split(':')[0] ?? f.resource ?? null;
const byOf = (f: Fixture) => f.by ?? 'alice';
/** Ids newest first (each fixture was created one second after the previous). */
const idsWhere = (pred: (f: Fixture) => boolean) =>
  FIXTURES.filter(pred)
    .map((f) => f.id!)
    .reverse();

const boss = (ctx: { config?: string } = {}) => as(s, 'boss', { config: ctx.config ?? 'lst' });
const ids = (body: { data: { id: string }[] }) => body.data.map((r) => r.id);

beforeAll(async () => {
  ({ s, clock } = await startWithClock());
  await seedWorld(s);
  await resource(s, 'sheet');
  await instance(s, 'doc', 'd2', 't');
  await instance(s, 'sheet', 'd1', 't');
  await user(s, 'boss');
  await assign(s, { user: 'boss', role: 'admin', tenant: 't' });
  await assign(s, { user: 'boss', role: 'admin', tenant: 't2' });
  await addToTenant(s, 't2', 'alice');
  await addToTenant(s, 't2', 'bob');
  await elementsConfig(s, 'lst', { LEVEL_1: ['admin'] });
  for (const f of FIXTURES) {
    clock.tick();
    const details = {
      tenant: f.tenant,
      role: f.role,
      ...(f.instance ? { resource_instance: f.instance } : {}),
      ...(f.resource ? { resource: f.resource } : {}),
    };
    const r = await aRequest(s, byOf(f), details, { tenant: f.tenant, config: 'lst' });
    f.id = r.id;
    const actor = as(s, f.status === 'cancel' ? byOf(f) : 'boss', { tenant: f.tenant, config: 'lst' });
    if (f.status === 'approved') ok(await actor.approve(r.id));
    if (f.status === 'deny') ok(await actor.deny(r.id));
    if (f.status === 'cancel') ok(await actor.cancel(r.id));
  }
});
afterAll(() => s.close());

describe('the envelope and the order', () => {
  it('{data, total_count, page_count}, newest first', async () => {
    const body = ok(await boss().list());
    expect(Object.keys(body).sort()).toEqual(['data', 'page_count', 'total_count']);
    expect(body).toMatchObject({ total_count: 8, page_count: 1 });
    expect(ids(body)).toEqual(idsWhere(() => true));
  });

  it('requests created at the same instant are ordered by id (descending), the same way every time', async () => {
    await elementsConfig(s, 'same-time', { LEVEL_1: ['admin'] });
    for (let i = 0; i < 6; i++) await aRequest(s, 'alice', { role: 'viewer' }, { config: 'same-time' });
    const first = ids(ok(await boss({ config: 'same-time' }).list()));
    expect(first).toEqual([...first].sort().reverse());
    expect(ids(ok(await boss({ config: 'same-time' }).list()))).toEqual(first);
  });
});

// [filter name, value, predicate]. Each runs as a header, as a query parameter, and both must agree.
const SINGLE: [string, string, (f: Fixture) => boolean][] = [
  ['status', 'pending', (f) => f.status === null],
  ['status', 'null', (f) => f.status === null],
  ['status', 'approved', (f) => f.status === 'approved'],
  ['status', 'deny', (f) => f.status === 'deny'],
  ['status', 'denied', (f) => f.status === 'deny'],
  ['status', 'cancel', (f) => f.status === 'cancel'],
  ['status', 'canceled', (f) => f.status === 'cancel'],
  ['status', 'cancelled', (f) => f.status === 'cancel'],
  ['status', 'PENDING', (f) => f.status === null],
  ['tenant', 't2', (f) => f.tenant === 't2'],
  ['tenant', 'nope', () => false],
  ['role', 'editor', (f) => f.role === 'editor'],
  ['resource', 'doc', (f) => resourceOf(f) === 'doc'],
  ['resource', 'sheet', (f) => resourceOf(f) === 'sheet'],
  ['resource_instance', 'doc:d1', (f) => f.instance === 'doc:d1'],
  ['resource_instance', 'd1', (f) => f.instance?.endsWith(':d1') === true],
  ['resource_instance', 'd2', (f) => f.instance === 'doc:d2'],
  ['requesting_user', 'alice', (f) => byOf(f) === 'alice'],
  ['requesting_user', 'bob', (f) => byOf(f) === 'bob'],
  ['requesting_user', 'boss', () => false],
  ['requesting_user', 'nobody', () => false],
  ['requesting_user_id', 'bob', (f) => byOf(f) === 'bob'],
];

describe('each filter alone', () => {
  it.each(SINGLE)('header %s: %s', async (name, value, pred) => {
    const body = ok(await boss().list({ headers: { [name]: value } }));
    expect(ids(body)).toEqual(idsWhere(pred));
    expect(body.total_count).toBe(idsWhere(pred).length);
  });

  it.each(SINGLE)('query %s=%s', async (name, value, pred) => {
    expect(ids(ok(await boss().list({ query: { [name]: value } })))).toEqual(idsWhere(pred));
  });

  it.each([
    ['doc:d1', (f: Fixture) => f.instance === 'doc:d1'],
    ['d1', (f: Fixture) => f.instance?.endsWith(':d1') === true],
  ] as const)('query resource_instance_id=%s (the public API name)', async (value, pred) => {
    expect(ids(ok(await boss().list({ query: { resource_instance_id: value } })))).toEqual(idsWhere(pred));
  });
});

describe('filters combined', () => {
  it.each([
    [{ status: 'pending', tenant: 't' }, (f: Fixture) => f.status === null && f.tenant === 't'],
    [{ status: 'pending', role: 'viewer' }, (f: Fixture) => f.status === null && f.role === 'viewer'],
    [
      { tenant: 't', role: 'editor', resource: 'doc' },
      (f: Fixture) => f.tenant === 't' && f.role === 'editor' && resourceOf(f) === 'doc',
    ],
    [{ resource: 'doc', resource_instance: 'd1' }, (f: Fixture) => f.instance === 'doc:d1'],
    [
      { status: 'denied', resource_instance: 'doc:d1', role: 'viewer', tenant: 't', resource: 'doc' },
      (f: Fixture) => f.status === 'deny' && f.instance === 'doc:d1',
    ],
    [{ status: 'approved', tenant: 't2', role: 'viewer' }, () => false],
    [{ status: 'pending', requesting_user: 'bob' }, (f: Fixture) => f.status === null && byOf(f) === 'bob'],
    [
      { requesting_user: 'alice', tenant: 't', role: 'viewer' },
      (f: Fixture) => byOf(f) === 'alice' && f.tenant === 't' && f.role === 'viewer',
    ],
    [{ requesting_user: 'bob', tenant: 't2', resource: 'doc' }, () => false],
  ])('%o', async (filters, pred) => {
    expect(ids(ok(await boss().list({ query: filters })))).toEqual(idsWhere(pred));
    expect(ids(ok(await boss().list({ headers: filters })))).toEqual(idsWhere(pred));
  });

  it('an empty value is no filter (a blank header or ?status=), so a blank query does not hide a header', async () => {
    expect(ids(ok(await boss().list({ query: { status: '', role: '' } })))).toEqual(idsWhere(() => true));
    expect(ids(ok(await boss().list({ headers: { tenant: '' } })))).toEqual(idsWhere(() => true));
    expect(ids(ok(await boss().list({ query: { role: '' }, headers: { role: 'editor' } })))).toEqual(
      idsWhere((f) => f.role === 'editor'),
    );
  });

  it('headers and query parameters combine', async () => {
    const body = ok(await boss().list({ headers: { status: 'pending' }, query: { tenant: 't', role: 'viewer' } }));
    expect(ids(body)).toEqual(idsWhere((f) => f.status === null && f.tenant === 't' && f.role === 'viewer'));
  });
});

describe('a query parameter wins over a header of the same meaning', () => {
  it.each([
    ['status', { status: 'approved' }, { status: 'pending' }, (f: Fixture) => f.status === null],
    ['role', { role: 'viewer' }, { role: 'editor' }, (f: Fixture) => f.role === 'editor'],
    ['tenant', { tenant: 't' }, { tenant: 't2' }, (f: Fixture) => f.tenant === 't2'],
    ['resource', { resource: 'sheet' }, { resource: 'doc' }, (f: Fixture) => resourceOf(f) === 'doc'],
    [
      'resource_instance',
      { resource_instance: 'doc:d2' },
      { resource_instance_id: 'doc:d1' },
      (f: Fixture) => f.instance === 'doc:d1',
    ],
    ['requesting_user', { requesting_user: 'alice' }, { requesting_user: 'bob' }, (f: Fixture) => byOf(f) === 'bob'],
    [
      'requesting_user_id',
      { requesting_user_id: 'bob' },
      { requesting_user: 'alice' },
      (f: Fixture) => byOf(f) === 'alice',
    ],
    ['per_page', { per_page: '101' }, { per_page: '2' }, (f: Fixture) => f.id !== undefined],
  ])('%s', async (name, headers, query, pred) => {
    const body = ok(await boss().list({ headers, query }));
    const want = idsWhere(pred);
    expect(ids(body)).toEqual(name === 'per_page' ? want.slice(0, 2) : want);
  });
});

describe('the requester filter', () => {
  const idOf = async (key: string) => ok<{ id: string }>(await s.facts('GET', `/users/${key}`)).id;
  const bobs = () => idsWhere((f) => byOf(f) === 'bob');

  it('requesting_user_id takes an id or a key; requesting_user a key only', async () => {
    const bob = await idOf('bob');
    expect(ids(ok(await boss().list({ query: { requesting_user_id: bob } })))).toEqual(bobs());
    expect(ids(ok(await boss().list({ headers: { requesting_user_id: bob } })))).toEqual(bobs());
    expect(ok(await boss().list({ query: { requesting_user: bob } }))).toEqual({
      data: [],
      total_count: 0,
      page_count: 0,
    });
  });

  it('given both names, requesting_user_id is the one used', async () => {
    expect(ids(ok(await boss().list({ query: { requesting_user: 'alice', requesting_user_id: 'bob' } })))).toEqual(
      bobs(),
    );
  });

  it('an empty value is no filter; a blank query parameter does not hide the header', async () => {
    expect(ids(ok(await boss().list({ query: { requesting_user: '' } })))).toEqual(idsWhere(() => true));
    expect(ids(ok(await boss().list({ query: { requesting_user: '' }, headers: { requesting_user: 'bob' } })))).toEqual(
      bobs(),
    );
  });

  it('totals and paging count the filtered requests only', async () => {
    const body = ok(await boss().list({ query: { requesting_user: 'alice', per_page: '2', page: '3' } }));
    const alices = idsWhere((f) => byOf(f) === 'alice');
    expect(body).toMatchObject({ total_count: alices.length, page_count: Math.ceil(alices.length / 2) });
    expect(ids(body)).toEqual(alices.slice(4, 6));
  });

  it('stays within what the acting user sees: a bystander filtering on someone else gets nothing', async () => {
    const empty = { data: [], total_count: 0, page_count: 0 };
    for (const [actor, target] of [
      ['outsider', 'alice'],
      ['outsider', 'bob'],
      ['alice', 'bob'],
      ['bob', 'alice'],
    ]) {
      expect(
        ok(await as(s, actor, { config: 'lst' }).list({ query: { requesting_user: target } })),
        `${actor} on ${target}`,
      ).toEqual(empty);
      expect(
        ok(await as(s, actor, { config: 'lst' }).list({ headers: { requesting_user_id: await idOf(target) } })),
        `${actor} on ${target} by id`,
      ).toEqual(empty);
    }
    // A requester filtering on themselves sees exactly their own.
    expect(ids(ok(await as(s, 'bob', { config: 'lst' }).list({ query: { requesting_user: 'bob' } })))).toEqual(bobs());
    expect(ids(ok(await as(s, 'bob', { config: 'lst' }).list()))).toEqual(bobs());
  });
});

describe('invalid filters are 422', () => {
  it('an unknown status names the accepted values', async () => {
    const r = await boss().list({ query: { status: 'maybe' } });
    expectInvalid(r, ['query', 'status']);
    expect(r.body.detail[0].msg).toMatch(/pending.*approved.*denied.*canceled/);
    expectInvalid(await boss().list({ headers: { status: 'maybe' } }));
  });

  it.each([
    'status',
    'tenant',
    'role',
    'resource',
    'resource_instance',
    'requesting_user',
    'requesting_user_id',
    'page',
  ])('a repeated query parameter %s', async (name) => {
    const r = await s.call('GET', `/v2/facts/p/e/access_requests/lst/user/boss/tenant/t?${name}=a&${name}=b`);
    expectInvalid(r, ['query', name]);
  });
});

describe('paging', () => {
  it('pages of 3: full, full, the last partial page, then an empty page past the end', async () => {
    const all = idsWhere(() => true);
    const pages = [];
    for (let page = 1; page <= 4; page++) {
      const body = ok(await boss().list({ query: { page: String(page), per_page: '3' } }));
      expect(body).toMatchObject({ total_count: 8, page_count: 3 });
      pages.push(ids(body));
    }
    expect(pages).toEqual([all.slice(0, 3), all.slice(3, 6), all.slice(6, 8), []]);
  });

  it('paging in headers works the same', async () => {
    const body = ok(await boss().list({ headers: { page: '2', per_page: '5' } }));
    expect(ids(body)).toEqual(idsWhere(() => true).slice(5));
    expect(body.page_count).toBe(2);
  });

  it('paging counts after filtering', async () => {
    const body = ok(await boss().list({ query: { status: 'pending', per_page: '3', page: '2' } }));
    expect(body).toMatchObject({ total_count: 4, page_count: 2 });
    expect(ids(body)).toEqual(idsWhere((f) => f.status === null).slice(3));
  });

  it('an empty list is {data: [], total_count: 0, page_count: 0}', async () => {
    expect(ok(await as(s, 'outsider', { config: 'lst' }).list())).toEqual({ data: [], total_count: 0, page_count: 0 });
  });

  it.each([
    ['query', (v: Record<string, string>) => ({ query: v })],
    ['header', (v: Record<string, string>) => ({ headers: v })],
  ])(
    'bounds (%s): per_page 100 is fine, 101 is 422 PAGINATION_SIZE_OVERREACHED, 0 and page 0 are 422',
    async (_, put) => {
      expect(ok(await boss().list(put({ per_page: '100' })))).toMatchObject({ total_count: 8, page_count: 1 });
      expectError(await boss().list(put({ per_page: '101' })), 422, 'PAGINATION_SIZE_OVERREACHED');
      expectInvalid(await boss().list(put({ per_page: '0' })));
      expectInvalid(await boss().list(put({ page: '0' })));
      expectInvalid(await boss().list(put({ page: 'two' })));
    },
  );

  describe('with more than one default page', () => {
    beforeAll(async () => {
      await elementsConfig(s, 'many', { LEVEL_1: ['admin'] });
      for (let i = 0; i < 31; i++) await aRequest(s, 'alice', { role: 'viewer' }, { config: 'many' });
    });

    it('the default page is 1 and the default per_page 30; the second page holds the last one', async () => {
      const body = ok(await boss({ config: 'many' }).list());
      expect(body.data).toHaveLength(30);
      expect(body).toMatchObject({ total_count: 31, page_count: 2 });
      const last = ok(await boss({ config: 'many' }).list({ query: { page: '2' } }));
      expect(last.data).toHaveLength(1);
      expect(new Set([...ids(body), ...ids(last)]).size).toBe(31);
    });

    it('per_page 100 answers all 31 on one page', async () => {
      expect(ok(await boss({ config: 'many' }).list({ query: { per_page: '100' } }))).toMatchObject({
        total_count: 31,
        page_count: 1,
        data: expect.any(Array),
      });
      expect(ok(await boss({ config: 'many' }).list({ headers: { per_page: '100' } })).data).toHaveLength(31);
    });
  });
});
