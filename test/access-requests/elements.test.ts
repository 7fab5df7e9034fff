import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ENV_KEY, type Resp, type TestServer } from '../helpers/server.js';
import { asPublicAccessRequest, publicShapeErrors } from '../helpers/public-shape.js';
import {
  aRequest,
  addToTenant,
  as,
  assignmentsOf,
  elementsConfig,
  expectError,
  expectInvalid,
  ok,
  seedWorld,
  startWithClock,
  user,
  type Clock,
} from './builders.js';

/**
 * The public API's access-request operations, `/v2/elements/{p}/{e}/config/{config}/access_requests`,
 * over HTTP. They name no user: the API key acts as the environment's administrator (sees every request
 * of the configuration, decides without being recorded as reviewer, may not create). Everything else is
 * the `/v2/facts/...` operations' rules, so these tests cover what differs and that the rules hold.
 */
let s: TestServer;
let clock: Clock;
const E = '/v2/elements/p/e/config';

/** The seven operations with a key (the org key unless given). */
const admin = (config = 'um', key?: string) => {
  const P = `${E}/${config}/access_requests`;
  const call = (method: string, path: string, body?: unknown) => s.call(method, path, body, key ? { key } : {});
  return {
    create: (body: unknown) => call('POST', P, body),
    list: (query: Record<string, string> = {}) =>
      call('GET', `${P}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`),
    get: (id: string) => call('GET', `${P}/${id}`),
    review: (id: string, body?: unknown) => call('PATCH', `${P}/${id}/reviewer`, body),
    approve: (id: string, body?: unknown) => call('PUT', `${P}/${id}/approve`, body),
    deny: (id: string, body?: unknown) => call('PUT', `${P}/${id}/deny`, body),
    cancel: (id: string, body?: unknown) => call('PUT', `${P}/${id}/cancel`, body),
  };
};

/** Every access request in `r` (one, or a list's `data`) in the public shape, after the allowed deviations. */
function expectPublic(r: Resp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const items = Array.isArray(r.body.data) ? r.body.data : [r.body];
  if (Array.isArray(r.body.data))
    expect(publicShapeErrors('PaginatedResult_AccessRequestRead_', { ...r.body, data: [] })).toEqual([]);
  for (const item of items)
    expect(publicShapeErrors('AccessRequestRead', asPublicAccessRequest(item)), JSON.stringify(item)).toEqual([]);
}

let n = 0;
/** A fresh requester in tenant t (so grants of one test never satisfy another's). */
async function aRequester(): Promise<string> {
  const key = `er${++n}`;
  await user(s, key);
  await addToTenant(s, 't', key);
  return key;
}

beforeAll(async () => {
  ({ s, clock } = await startWithClock());
  await seedWorld(s);
  await elementsConfig(s, 'other', { LEVEL_1: ['admin'] });
});
afterAll(() => s.close());

describe('list and get: the administrator sees every request of the configuration', () => {
  it('lists the requests of every requester and tenant (moderated by different users), newest first; not those of another configuration', async () => {
    const a = await aRequester();
    const b = await aRequester();
    // Requests of two tenants, moderated by different users (mod in t, mod2 in t2): the administrator sees both.
    await addToTenant(s, 't2', b);
    clock.tick();
    const r1 = await aRequest(s, a, { role: 'viewer', resource_instance: 'doc:d1' });
    clock.tick();
    const r2 = await aRequest(s, b, { role: 'editor', resource_instance: 'doc:x1' }, { tenant: 't2' });
    clock.tick();
    const elsewhere = await aRequest(s, a, { role: 'viewer', resource_instance: 'doc:d1' }, { config: 'other' });
    const list = await admin().list({ per_page: '100' });
    expectPublic(list);
    const listed = list.body.data.map((r: { id: string }) => r.id);
    expect(listed.indexOf(r2.id)).toBeLessThan(listed.indexOf(r1.id));
    expect(listed).not.toContain(elsewhere.id);
    expect(list.body.total_count).toBe(listed.length);
    expect(ok(await admin('other').list()).data.map((r: { id: string }) => r.id)).toEqual([elsewhere.id]);
  });

  it('filters in the query: status (either spelling), tenant, role, resource, resource_instance_id; paging; unknown parameters are ignored', async () => {
    const a = await aRequester();
    await elementsConfig(s, 'flt', { LEVEL_1: ['admin'] });
    const pending = await aRequest(s, a, { role: 'viewer', resource_instance: 'doc:d1' }, { config: 'flt' });
    clock.tick();
    const approved = await aRequest(s, a, { role: 'editor', resource_instance: 'doc:d1' }, { config: 'flt' });
    ok(await admin('flt').approve(approved.id));
    clock.tick();
    const tenantWide = await aRequest(s, a, { role: 'viewer' }, { config: 'flt' });
    const ids = async (query: Record<string, string>) =>
      ok(await admin('flt').list(query)).data.map((r: { id: string }) => r.id);
    expect(await ids({})).toEqual([tenantWide.id, approved.id, pending.id]);
    expect(await ids({ status: 'approved' })).toEqual([approved.id]);
    expect(await ids({ status: 'pending' })).toEqual([tenantWide.id, pending.id]);
    expect(await ids({ status: 'null' })).toEqual([tenantWide.id, pending.id]);
    expect(await ids({ role: 'editor' })).toEqual([approved.id]);
    expect(await ids({ resource: 'doc' })).toEqual([approved.id, pending.id]);
    expect(await ids({ resource_instance_id: 'doc:d1', status: 'pending' })).toEqual([pending.id]);
    expect(await ids({ tenant: 't2' })).toEqual([]);
    expect(await ids({ tenant: 't', whatever: 'x' })).toEqual([tenantWide.id, approved.id, pending.id]);
    const page2 = ok(await admin('flt').list({ page: '2', per_page: '2' }));
    expect(page2).toMatchObject({ total_count: 3, page_count: 2 });
    expect(page2.data.map((r: { id: string }) => r.id)).toEqual([pending.id]);
    expectError(await admin('flt').list({ per_page: '101' }), 422, 'PAGINATION_SIZE_OVERREACHED');
    expectInvalid(await admin('flt').list({ status: 'maybe' }), ['query', 'status']);
  });

  it("gets any request of the configuration; another configuration's, or an unknown id, is 404; so is an unknown configuration", async () => {
    const r = await aRequest(s, await aRequester(), { role: 'viewer', resource_instance: 'doc:d1' });
    const got = await admin().get(r.id);
    expectPublic(got);
    expect(got.body).toMatchObject({
      id: r.id,
      status: null,
      requesting_user_id: r.requesting_user_id,
      access_request_details: { tenant: 't', resource: 'doc', resource_instance: 'd1', role: 'viewer' },
    });
    expectError(await admin('other').get(r.id), 404, 'NOT_FOUND');
    expectError(await admin().get(crypto.randomUUID()), 404, 'NOT_FOUND');
    expectError(await admin('nope').get(r.id), 404, 'NOT_FOUND');
    expectError(await admin('nope').list(), 404, 'NOT_FOUND');
  });

  it('answers the environment-scoped key too; a key scoped elsewhere is 403, none is 401', async () => {
    const r = await aRequest(s, await aRequester(), { role: 'viewer', resource_instance: 'doc:d1' });
    expect(ok(await admin('um', ENV_KEY).get(r.id)).id).toBe(r.id);
    expectError(
      await s.call('GET', `/v2/elements/p/other-env/config/um/access_requests`, undefined, { key: ENV_KEY }),
      403,
      'FORBIDDEN_ACCESS',
    );
    expectError(await s.call('GET', `${E}/um/access_requests`, undefined, { key: null }), 401, 'UNAUTHORIZED');
  });
});

describe('decisions by the administrator', () => {
  it('approve: approved, reviewed_at set, reviewer_user_id null (no user decided), the comment kept, and the role granted', async () => {
    const who = await aRequester();
    const r = await aRequest(s, who, { role: 'viewer', resource_instance: 'doc:d1' });
    const at = clock.tick();
    const a = await admin().approve(r.id, { reviewer_comment: 'ok' });
    expectPublic(a);
    expect(a.body).toMatchObject({
      status: 'approved',
      reviewer_user_id: null,
      reviewed_at: at,
      updated_at: at,
      reviewer_comment: 'ok',
    });
    expect(await assignmentsOf(s, { user: who })).toEqual([`${who} viewer t doc:d1`]);
    // The requester sees it decided through the facts operations as well.
    expect(ok(await as(s, who).get(r.id))).toMatchObject({
      status: 'approved',
      reviewer_user_id: null,
      reviewed_at: at,
    });
  });

  it('approve with another role grants that role and records it on the request; an unknown role is 404 and nothing changes', async () => {
    const who = await aRequester();
    const r = await aRequest(s, who, { role: 'viewer', resource_instance: 'doc:d1' });
    expectError(await admin().approve(r.id, { role: 'nope' }), 404, 'NOT_FOUND');
    expect(ok(await admin().get(r.id)).status).toBe(null);
    const a = ok(await admin().approve(r.id, { role: 'editor' }));
    expect(a.access_request_details.role).toBe('editor');
    expect(await assignmentsOf(s, { user: who })).toEqual([`${who} editor t doc:d1`]);
  });

  it('deny: deny, no reviewer user, nothing granted; a decided request is 409 with its status, for every transition', async () => {
    const who = await aRequester();
    const r = await aRequest(s, who, { role: 'viewer', resource_instance: 'doc:d1' });
    const d = await admin().deny(r.id, { reviewer_comment: 'no' });
    expectPublic(d);
    expect(d.body).toMatchObject({ status: 'deny', reviewer_user_id: null, reviewer_comment: 'no' });
    expect(await assignmentsOf(s, { user: who })).toEqual([]);
    for (const r2 of [
      await admin().approve(r.id),
      await admin().deny(r.id),
      await admin().cancel(r.id),
      await admin().review(r.id, { reviewer_comment: 'x' }),
    ]) {
      expectError(r2, 409, 'CONFLICT');
      expect(r2.body.status).toBe('deny');
    }
  });

  it('update reviewer details: comment and role change, the request stays pending; deny takes no role (422)', async () => {
    const r = await aRequest(s, await aRequester(), { role: 'viewer', resource_instance: 'doc:d1' });
    const u = await admin().review(r.id, { reviewer_comment: 'looking', role: 'editor' });
    expectPublic(u);
    expect(u.body).toMatchObject({
      status: null,
      reviewer_comment: 'looking',
      access_request_details: { role: 'editor' },
    });
    expectInvalid(await admin().deny(r.id, { role: 'editor' }));
  });

  it('cancel: the administrator may withdraw a pending request (no body, as the public API sends it); nothing is granted', async () => {
    const who = await aRequester();
    const r = await aRequest(s, who, { role: 'viewer', resource_instance: 'doc:d1' });
    const c = await admin().cancel(r.id);
    expectPublic(c);
    expect(c.body).toMatchObject({ status: 'cancel', reviewer_user_id: null, reviewed_at: null });
    expect(await assignmentsOf(s, { user: who })).toEqual([]);
  });

  it('of concurrent decisions by the administrator and a moderator, exactly one wins and at most one grant is made', async () => {
    const who = await aRequester();
    const r = await aRequest(s, who, { role: 'viewer', resource_instance: 'doc:d1' });
    const answers = await Promise.all([
      admin().approve(r.id),
      as(s, 'mod').deny(r.id),
      admin().approve(r.id),
      as(s, 'mgr').approve(r.id),
    ]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(3);
    const final = ok(await admin().get(r.id)).status;
    expect(await assignmentsOf(s, { user: who })).toEqual(final === 'approved' ? [`${who} viewer t doc:d1`] : []);
  });
});

describe('create', () => {
  it("is refused (403): a request is a user's; the message names the operation to use; nothing is stored", async () => {
    const before = ok(await admin().list()).total_count;
    const r = await admin().create({
      access_request_details: { tenant: 't', role: 'viewer', resource: 'doc', resource_instance: 'doc:d1' },
      reason: 'x',
    });
    expectError(r, 403, 'FORBIDDEN_ACCESS');
    expect(r.body.message).toContain('POST /v2/facts/p/e/access_requests/um/user/{user}/tenant/{tenant}');
    expect(ok(await admin().list()).total_count).toBe(before);
  });

  it('checks the body (422) and the configuration (404) first', async () => {
    expectInvalid(await admin().create({ access_request_details: { tenant: 't' } }));
    expectInvalid(await admin().create({ reason: 'no details' }));
    expectError(
      await admin('nope').create({ access_request_details: { tenant: 't', role: 'viewer' } }),
      404,
      'NOT_FOUND',
    );
  });
});

describe("the facts operations are unchanged by the administrator's", () => {
  it('a moderator still sees only what they moderate while the administrator sees all', async () => {
    const who = await aRequester();
    await addToTenant(s, 't2', who);
    const inT2 = await aRequest(s, who, { role: 'viewer', resource_instance: 'doc:x1' }, { tenant: 't2' });
    expectError(await as(s, 'mod').get(inT2.id), 404, 'NOT_FOUND');
    expect(ok(await admin().get(inT2.id)).id).toBe(inT2.id);
    expect(ok(await as(s, 'mod2', { tenant: 't2' }).get(inT2.id)).id).toBe(inT2.id);
  });
});

describe('no input gives a 5xx', () => {
  const ODD = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      '',
      'um',
      'nope',
      'viewer',
      'doc:d1',
      '%00',
      ':',
      "' OR 1=1 --",
      'x'.repeat(300),
      crypto.randomUUID(),
    ),
  );
  const BODY = fc.oneof(
    fc.dictionary(
      fc.constantFrom('reviewer_comment', 'role', 'reason', 'access_request_details', 'status', '__proto__'),
      fc.oneof(
        ODD,
        fc.integer(),
        fc.constant(null),
        fc.dictionary(fc.constantFrom('tenant', 'role', 'resource', 'resource_instance'), ODD),
      ),
      { maxKeys: 4 },
    ),
    fc.constantFrom(null, [], 'x', 1),
  );
  const expectHandled = (r: Resp, what: string) => {
    expect(r.status, `${what} → ${r.status} ${JSON.stringify(r.body)}`).toBeLessThan(500);
    if (r.status >= 400) expect(r.body.detail !== undefined || typeof r.body.error_code === 'string', what).toBe(true);
  };

  it('random ids, configurations and bodies to every operation', async () => {
    const r = await aRequest(s, await aRequester(), { role: 'viewer', resource_instance: 'doc:d1' });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'PUT'),
        fc.constantFrom('um', 'nope', '%25', 'x'.repeat(300)),
        fc.oneof(fc.constant(r.id), ODD.map(encodeURIComponent)),
        fc.constantFrom('', '/reviewer', '/approve', '/deny', '/cancel'),
        BODY,
        async (method, config, id, action, body) => {
          const path = `${E}/${config}/access_requests${method === 'POST' ? '' : `/${id}${action}`}`;
          expectHandled(
            await s.call(method, path, method === 'GET' ? undefined : body),
            `${method} ${path} ${JSON.stringify(body)}`,
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('random filters and paging on the list', async () => {
    const name = fc.constantFrom(
      'status',
      'tenant',
      'role',
      'resource',
      'resource_instance_id',
      'page',
      'per_page',
      'requesting_user_id',
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(name, fc.oneof(ODD, fc.integer().map(String)), { maxKeys: 4 }), async (q) => {
        const qs = Object.entries(q)
          .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
          .join('&');
        expectHandled(await s.call('GET', `${E}/um/access_requests?${qs}`), `GET ?${qs}`);
      }),
      { numRuns: 150 },
    );
  });
});
