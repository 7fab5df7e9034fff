import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  aRequest,
  addToTenant,
  allowed,
  as,
  assign,
  assignmentsOf,
  expectError,
  expectInvalid,
  ok,
  role,
  seedWorld,
  startWithClock,
  user,
  type Clock,
} from './builders.js';

let s: TestServer;
let clock: Clock;
let ids: Record<string, string>;
beforeAll(async () => {
  ({ s, clock } = await startWithClock());
  await seedWorld(s);
  ids = {};
  for (const u of ['alice', 'mod', 'mgr']) ids[u] = ok(await s.facts('GET', `/users/${u}`)).id;
});
afterAll(() => s.close());

/** A fresh requester in tenant t, so grants of one test never satisfy another's expectations. */
let n = 0;
async function aRequester(): Promise<string> {
  const key = `req${++n}`;
  await user(s, key);
  await addToTenant(s, 't', key);
  return key;
}

describe('the states table, row by row', () => {
  it('(none) --create--> null: reviewer fields null, moderators assigned', async () => {
    const at = clock.tick();
    const r = await aRequest(s, 'alice');
    expect(r).toMatchObject({
      status: null,
      reviewer_user_id: null,
      reviewed_at: null,
      reviewer_comment: null,
      created_at: at,
      updated_at: at,
    });
    // Assigned: the moderator sees it (a user who moderates nothing would get 404).
    expect(ok(await as(s, 'mod').get(r.id)).id).toBe(r.id);
  });

  it('null --approve (reviewer)--> approved: reviewer_user_id, reviewed_at, reviewer_comment set', async () => {
    const r = await aRequest(s, 'alice');
    const at = clock.tick();
    const a = ok(await as(s, 'mod').approve(r.id, { reviewer_comment: 'welcome' }));
    expect(a).toMatchObject({
      status: 'approved',
      reviewer_user_id: ids.mod,
      reviewed_at: at,
      reviewer_comment: 'welcome',
      updated_at: at,
      created_at: r.created_at,
    });
    expect(ok(await as(s, 'alice').get(r.id))).toMatchObject({
      status: 'approved',
      reviewer_user_id: ids.mod,
      reviewed_at: at,
    });
  });

  it('null --deny (reviewer)--> deny: reviewer fields set', async () => {
    const r = await aRequest(s, 'alice');
    const at = clock.tick();
    expect(ok(await as(s, 'mgr').deny(r.id, { reviewer_comment: 'not now' }))).toMatchObject({
      status: 'deny',
      reviewer_user_id: ids.mgr,
      reviewed_at: at,
      reviewer_comment: 'not now',
      updated_at: at,
    });
  });

  it('null --cancel (requester)--> cancel: reviewer fields stay null, the request keeps its reason', async () => {
    const r = await aRequest(s, 'alice', { role: 'viewer' }, { reason: 'original reason' });
    const at = clock.tick();
    const c = ok(await as(s, 'alice').cancel(r.id, { reason: 'changed my mind' }));
    expect(c).toEqual({
      ...r,
      status: 'cancel',
      reviewer_user_id: null,
      reviewed_at: null,
      reviewer_comment: null,
      reason: 'original reason',
      updated_at: at,
    });
    // The cancel reason (the specification's cancel body) has no field in the public read model: it is
    // recorded with the request, not answered.
    expect(await s.db.get('SELECT cancel_reason FROM access_requests WHERE id = ?', [r.id])).toEqual({
      cancel_reason: 'changed my mind',
    });
  });

  it('cancel after a reviewer update keeps the reviewer comment (cancel touches no reviewer field)', async () => {
    const r = await aRequest(s, 'alice');
    ok(await as(s, 'mod').review(r.id, { reviewer_comment: 'looking into it' }));
    expect(ok(await as(s, 'alice').cancel(r.id))).toMatchObject({
      status: 'cancel',
      reviewer_comment: 'looking into it',
      reviewer_user_id: null,
      reviewed_at: null,
    });
  });

  it('approve and deny without a comment leave reviewer_comment null', async () => {
    const a = await aRequest(s, 'alice');
    const d = await aRequest(s, 'alice');
    expect(ok(await as(s, 'mod').approve(a.id)).reviewer_comment).toBeNull();
    expect(ok(await as(s, 'mod').deny(d.id)).reviewer_comment).toBeNull();
  });
});

describe.each(['approved', 'deny', 'cancel'] as const)(
  'a request in state %s: every transition is 409 with the status, and changes nothing',
  (from) => {
    const actorOf = { approve: 'mod', deny: 'mod', cancel: 'alice', update: 'mod' } as const;
    let decided: { id: string };
    beforeAll(async () => {
      decided = await aRequest(s, 'alice', { role: 'editor' });
      if (from === 'approved') ok(await as(s, 'mod').approve(decided.id, { reviewer_comment: 'c' }));
      if (from === 'deny') ok(await as(s, 'mod').deny(decided.id, { reviewer_comment: 'c' }));
      if (from === 'cancel') ok(await as(s, 'alice').cancel(decided.id, { reason: 'r' }));
    });

    it.each(['approve', 'deny', 'cancel', 'update'] as const)('%s', async (transition) => {
      const before = ok(await as(s, 'alice').get(decided.id));
      const grants = await assignmentsOf(s, { user: 'alice' });
      clock.tick();
      const api = as(s, actorOf[transition]);
      const res =
        transition === 'update'
          ? await api.review(decided.id, { reviewer_comment: 'late', role: 'viewer' })
          : transition === 'cancel'
            ? await api.cancel(decided.id, { reason: 'late' })
            : await api[transition](decided.id, { reviewer_comment: 'late' });
      expectError(res, 409, 'CONFLICT');
      expect(res.body.status).toBe(from);
      expect(ok(await as(s, 'alice').get(decided.id))).toEqual(before);
      expect(await assignmentsOf(s, { user: 'alice' })).toEqual(grants);
    });
  },
);

describe('who may act', () => {
  it('a moderator may not cancel (403); the requester may not approve, deny or update (403); nothing changes', async () => {
    const r = await aRequest(s, 'alice');
    expectError(await as(s, 'mod').cancel(r.id), 403, 'FORBIDDEN_ACCESS');
    expectError(await as(s, 'alice').approve(r.id), 403, 'FORBIDDEN_ACCESS');
    expectError(await as(s, 'alice').deny(r.id), 403, 'FORBIDDEN_ACCESS');
    expectError(await as(s, 'alice').review(r.id, { reviewer_comment: 'me' }), 403, 'FORBIDDEN_ACCESS');
    expect(ok(await as(s, 'alice').get(r.id))).toEqual(r);
  });

  it("a bystander, a LEVEL_3 holder and another tenant's admin get 404 on every operation", async () => {
    const r = await aRequest(s, 'alice');
    for (const u of ['bob', 'aud', 'lvl4', 'mod2']) {
      const api = as(s, u);
      for (const res of [
        await api.get(r.id),
        await api.approve(r.id),
        await api.deny(r.id),
        await api.cancel(r.id),
        await api.review(r.id, { reviewer_comment: 'x' }),
      ]) {
        expectError(res, 404, 'NOT_FOUND');
      }
    }
    expect(ok(await as(s, 'alice').get(r.id))).toEqual(r);
  });

  it('authority is checked before state: a moderator cancelling a decided request gets 403, not 409', async () => {
    const r = await aRequest(s, 'alice');
    ok(await as(s, 'mod').deny(r.id));
    expectError(await as(s, 'mgr').cancel(r.id), 403, 'FORBIDDEN_ACCESS');
  });

  it('an unknown request id is 404', async () => {
    expectError(await as(s, 'mod').approve('00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
    expectError(await as(s, 'mod').get('not-a-uuid'), 404, 'NOT_FOUND');
  });
});

describe('self-review: a requester who is also a moderator', () => {
  it('sees their request as a moderator but may not approve, deny or update it (403), and may cancel it', async () => {
    const r = ok(await as(s, 'mgr').create({ role: 'editor' }));
    expectError(await as(s, 'mgr').approve(r.id), 403, 'FORBIDDEN_ACCESS');
    expectError(await as(s, 'mgr').deny(r.id), 403, 'FORBIDDEN_ACCESS');
    expectError(
      await as(s, 'mgr').review(r.id, { reviewer_comment: 'fine by me', role: 'admin' }),
      403,
      'FORBIDDEN_ACCESS',
    );
    expect(ok(await as(s, 'mgr').get(r.id))).toEqual(r);
    expect(await assignmentsOf(s, { user: 'mgr', role: 'editor' })).toEqual([]);
    // Another moderator may decide it.
    expect(ok(await as(s, 'mod').approve(r.id)).status).toBe('approved');
    const c = ok(await as(s, 'mgr').create({ role: 'viewer' }));
    expect(ok(await as(s, 'mgr').cancel(c.id)).status).toBe('cancel');
  });
});

describe('approve grants the role in the same transaction', () => {
  it('tenant-wide when the request names no instance; it shows in role_assignments and in /allowed', async () => {
    const u = await aRequester();
    expect(await allowed(s, u, 'write', { type: 'doc', key: 'd1', tenant: 't' })).toBe(false);
    const r = await aRequest(s, u, { role: 'editor' });
    expect(await assignmentsOf(s, { user: u, role: 'editor' })).toEqual([]);
    ok(await as(s, 'mod').approve(r.id));
    expect(await assignmentsOf(s, { user: u, role: 'editor' })).toEqual([`${u} editor t -`]);
    expect(await allowed(s, u, 'write', { type: 'doc', key: 'd1', tenant: 't' })).toBe(true);
    expect(await allowed(s, u, 'write', { type: 'doc', key: 'x1', tenant: 't2' })).toBe(false);
  });

  it('on the instance when the request names one', async () => {
    const u = await aRequester();
    const r = await aRequest(s, u, { role: 'editor', resource_instance: 'doc:d1' });
    ok(await as(s, 'mod').approve(r.id));
    expect(await assignmentsOf(s, { user: u, role: 'editor' })).toEqual([`${u} editor t doc:d1`]);
    expect(await allowed(s, u, 'write', { type: 'doc', key: 'd1', tenant: 't' })).toBe(true);
  });

  it('a reviewer override role is recorded on the request and granted instead', async () => {
    const u = await aRequester();
    const r = await aRequest(s, u, { role: 'editor', resource_instance: 'doc:d1' });
    const a = ok(await as(s, 'mod').approve(r.id, { role: 'viewer', reviewer_comment: 'read-only for now' }));
    expect(a.access_request_details).toEqual({ tenant: 't', role: 'viewer', resource: 'doc', resource_instance: 'd1' });
    expect(await assignmentsOf(s, { user: u })).toEqual([`${u} viewer t doc:d1`]);
    expect(await allowed(s, u, 'read', { type: 'doc', key: 'd1', tenant: 't' })).toBe(true);
    expect(await allowed(s, u, 'write', { type: 'doc', key: 'd1', tenant: 't' })).toBe(false);
  });

  it('an override role named by id is recorded and granted by key', async () => {
    const u = await aRequester();
    const viewer = ok(await s.schema('GET', '/roles/viewer'));
    const r = await aRequest(s, u, { role: 'editor' });
    expect(ok(await as(s, 'mod').approve(r.id, { role: viewer.id })).access_request_details.role).toBe('viewer');
    expect(await assignmentsOf(s, { user: u })).toEqual([`${u} viewer t -`]);
  });

  it('a request naming a resource but no instance is granted tenant-wide', async () => {
    const u = await aRequester();
    const r = await aRequest(s, u, { role: 'viewer', resource: 'doc' });
    ok(await as(s, 'mod').approve(r.id));
    expect(await assignmentsOf(s, { user: u })).toEqual([`${u} viewer t -`]);
  });

  it('an override role that does not exist is 404 naming it, and nothing changes', async () => {
    const u = await aRequester();
    const r = await aRequest(s, u, { role: 'editor' });
    const res = await as(s, 'mod').approve(r.id, { role: 'no-such-role' });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body.message).toContain("'no-such-role'");
    expect(ok(await as(s, u).get(r.id))).toEqual(r);
    expect(await assignmentsOf(s, { user: u })).toEqual([]);
  });

  it('when the requester already holds the role: 200, approved, still exactly one assignment', async () => {
    const u = await aRequester();
    await assign(s, { user: u, role: 'viewer', tenant: 't' });
    const r = await aRequest(s, u, { role: 'viewer' });
    expect(ok(await as(s, 'mod').approve(r.id)).status).toBe('approved');
    expect(await assignmentsOf(s, { user: u, role: 'viewer' })).toEqual([`${u} viewer t -`]);
  });

  it('when the requested role was deleted meanwhile: 404, the request stays pending, nothing granted', async () => {
    const u = await aRequester();
    await role(s, 'temp-role');
    const r = await aRequest(s, u, { role: 'temp-role' });
    ok(await s.schema('DELETE', '/roles/temp-role'));
    expectError(await as(s, 'mod').approve(r.id), 404, 'NOT_FOUND');
    expect(ok(await as(s, u).get(r.id)).status).toBeNull();
  });

  it('when the requested instance was deleted meanwhile: 404, the request stays pending', async () => {
    const u = await aRequester();
    ok(await s.facts('POST', '/resource_instances', { key: 'gone', resource: 'doc', tenant: 't' }));
    const r = await aRequest(s, u, { role: 'viewer', resource_instance: 'doc:gone' });
    ok(await s.facts('DELETE', '/resource_instances/doc:gone'));
    expectError(await as(s, 'mod').approve(r.id), 404, 'NOT_FOUND');
    expect(ok(await as(s, u).get(r.id)).status).toBeNull();
    expect(await assignmentsOf(s, { user: u })).toEqual([]);
  });

  it('deny and cancel grant nothing', async () => {
    const u = await aRequester();
    ok(await as(s, 'mod').deny((await aRequest(s, u, { role: 'editor' })).id));
    ok(await as(s, u).cancel((await aRequest(s, u, { role: 'editor' })).id));
    expect(await assignmentsOf(s, { user: u })).toEqual([]);
  });
});

describe('bodies: absent, {} and null are accepted by approve, deny and cancel', () => {
  it.each([
    ['absent', undefined],
    ['{}', {}],
    ['null', 'null'],
  ])('%s', async (_, body) => {
    const [a, d, c] = [await aRequest(s, 'alice'), await aRequest(s, 'alice'), await aRequest(s, 'alice')];
    expect(ok(await as(s, 'mod').approve(a.id, body)).status).toBe('approved');
    expect(ok(await as(s, 'mod').deny(d.id, body)).status).toBe('deny');
    expect(ok(await as(s, 'alice').cancel(c.id, body)).status).toBe('cancel');
  });

  it('unknown fields are 422 and change nothing (deny takes no role, cancel takes only reason)', async () => {
    const r = await aRequest(s, 'alice');
    expectInvalid(await as(s, 'mod').deny(r.id, { role: 'editor' }), ['body', 'role']);
    expectInvalid(await as(s, 'mod').approve(r.id, { comment: 'typo' }), ['body', 'comment']);
    expectInvalid(await as(s, 'alice').cancel(r.id, { reviewer_comment: 'x' }), ['body', 'reviewer_comment']);
    expect(ok(await as(s, 'alice').get(r.id))).toEqual(r);
  });
});

describe('update reviewer details (PATCH .../reviewer)', () => {
  it('changes the comment and the role while pending, keeps the status, and approve then grants that role', async () => {
    const u = await aRequester();
    const r = await aRequest(s, u, { role: 'editor' });
    const at = clock.tick();
    const p = ok(await as(s, 'mod').review(r.id, { reviewer_comment: 'viewer first', role: 'viewer' }));
    expect(p).toMatchObject({
      status: null,
      reviewer_comment: 'viewer first',
      reviewer_user_id: null,
      reviewed_at: null,
      updated_at: at,
    });
    expect(p.access_request_details.role).toBe('viewer');
    // Approve without a comment keeps the one set by the update.
    const a = ok(await as(s, 'mgr').approve(r.id));
    expect(a).toMatchObject({ status: 'approved', reviewer_comment: 'viewer first', reviewer_user_id: ids.mgr });
    expect(await assignmentsOf(s, { user: u })).toEqual([`${u} viewer t -`]);
  });

  it('comment alone, role alone; a comment is cleared with \'\': null is "not given" (api-notes, Conventions)', async () => {
    const r = await aRequest(s, 'alice', { role: 'editor' });
    expect(ok(await as(s, 'mod').review(r.id, { reviewer_comment: 'hm' }))).toMatchObject({
      reviewer_comment: 'hm',
      access_request_details: { role: 'editor' },
    });
    expect(ok(await as(s, 'mod').review(r.id, { role: 'viewer' }))).toMatchObject({
      reviewer_comment: 'hm',
      access_request_details: { role: 'viewer' },
    });
    expect(ok(await as(s, 'mod').review(r.id, { reviewer_comment: null })).reviewer_comment).toBe('hm');
    expect(ok(await as(s, 'mod').review(r.id, { reviewer_comment: '' })).reviewer_comment).toBe('');
  });

  it('an empty update changes nothing, not even updated_at', async () => {
    const r = await aRequest(s, 'alice');
    clock.tick();
    expect(ok(await as(s, 'mod').review(r.id, {}))).toEqual(r);
    expect(ok(await as(s, 'mod').review(r.id))).toEqual(r);
  });

  it('a role that does not exist is 404 and changes nothing', async () => {
    const r = await aRequest(s, 'alice');
    expectError(await as(s, 'mod').review(r.id, { role: 'ghost', reviewer_comment: 'x' }), 404, 'NOT_FOUND');
    expect(ok(await as(s, 'alice').get(r.id))).toEqual(r);
  });
});

describe('updated_at moves on every change, created_at never', () => {
  it('create, update, approve', async () => {
    const t0 = clock.tick();
    const r = await aRequest(s, 'alice');
    const t1 = clock.tick(60_000);
    const p = ok(await as(s, 'mod').review(r.id, { reviewer_comment: 'x' }));
    const t2 = clock.tick(60_000);
    const a = ok(await as(s, 'mod').approve(r.id));
    expect([r.created_at, r.updated_at, p.created_at, p.updated_at, a.created_at, a.updated_at, a.reviewed_at]).toEqual(
      [t0, t0, t0, t1, t0, t2, t2],
    );
  });

  it('a refused transition does not move it', async () => {
    const r = await aRequest(s, 'alice');
    clock.tick();
    expectError(await as(s, 'alice').approve(r.id), 403, 'FORBIDDEN_ACCESS');
    expect(ok(await as(s, 'alice').get(r.id)).updated_at).toBe(r.updated_at);
  });
});
