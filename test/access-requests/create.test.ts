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
  ok,
  seedWorld,
  startWithClock,
  user,
  type Clock,
} from './builders.js';

let s: TestServer;
let clock: Clock;
beforeAll(async () => {
  ({ s, clock } = await startWithClock());
  await seedWorld(s);
});
afterAll(() => s.close());

/** How many requests the moderator `mod` of tenant t sees under `um`: a cheap "nothing stored" probe. */
const seenByMod = async () => ok(await as(s, 'mod').list()).total_count as number;

const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);

describe('the read model', () => {
  it('carries every field of the specification, both id spellings, and null reviewer fields, and nothing else', async () => {
    const scope = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: 'test-env-key-abcdefghij' }));
    const alice = ok(await s.facts('GET', '/users/alice'));
    const at = clock.tick();
    const r = ok(
      await as(s, 'alice').create({ role: 'viewer', resource: 'doc', resource_instance: 'd1' }, 'need to read'),
    );
    expect(r).toEqual({
      id: UUID,
      requesting_user_id: alice.id,
      access_request_details: { tenant: 't', resource: 'doc', resource_instance: 'd1', role: 'viewer' },
      reason: 'need to read',
      org_id: scope.organization_id,
      organization_id: scope.organization_id,
      project_id: scope.project_id,
      env_id: scope.environment_id,
      environment_id: scope.environment_id,
      created_at: at,
      updated_at: at,
      status: null,
      reviewer_user_id: null,
      reviewed_at: null,
      reviewer_comment: null,
    });
    // GET answers the same model.
    expect(ok(await as(s, 'alice').get(r.id))).toEqual(r);
  });

  it('reason is optional, a string when given (null is "not given"): a request without one has none', async () => {
    expect(ok(await as(s, 'alice').create({ role: 'viewer' }))).not.toHaveProperty('reason');
    expect(ok(await as(s, 'alice').create({ role: 'viewer' }, null))).not.toHaveProperty('reason');
  });

  it('details.tenant is required (as on the public service) and names the path tenant by key or id', async () => {
    const t = ok(await s.facts('GET', '/tenants/t'));
    expectInvalid(await as(s, 'alice').createRaw({ access_request_details: { role: 'viewer' } }), [
      'body',
      'access_request_details',
      'tenant',
    ]);
    expect(ok(await as(s, 'alice').create({ role: 'viewer', tenant: t.id })).access_request_details.tenant).toBe('t');
    // The path tenant may be an id as well.
    expect(
      ok(await as(s, 'alice', { tenant: t.id }).create({ role: 'viewer', tenant: 't' })).access_request_details.tenant,
    ).toBe('t');
  });

  it('roles and resources named by id are recorded by key', async () => {
    const viewer = ok(await s.schema('GET', '/roles/viewer'));
    const doc = ok(await s.schema('GET', '/resources/doc'));
    const r = ok(await as(s, 'alice').create({ role: viewer.id, resource: doc.id }));
    expect(r.access_request_details).toMatchObject({ role: 'viewer', resource: 'doc' });
  });

  it('a user key in e-mail form works in the path', async () => {
    await user(s, 'carol+x@example.com');
    await addToTenant(s, 't', 'carol+x@example.com');
    const r = ok(await as(s, encodeURIComponent('carol+x@example.com')).create({ role: 'viewer' }));
    expect(r.requesting_user_id).toBe(
      ok(await s.facts('GET', `/users/${encodeURIComponent('carol+x@example.com')}`)).id,
    );
    expect(ok(await as(s, encodeURIComponent('carol+x@example.com')).get(r.id)).id).toBe(r.id);
  });

  it('the configuration and the acting user in the path may be ids', async () => {
    const um = ok(await s.call('GET', '/v2/elements/p/e/config/um'));
    const alice = ok(await s.facts('GET', '/users/alice'));
    const r = ok(await as(s, alice.id, { config: um.id }).create({ role: 'viewer' }));
    expect(r).toMatchObject({ requesting_user_id: alice.id });
    expect(ok(await as(s, 'alice').get(r.id)).id).toBe(r.id);
  });
});

describe('resource instances', () => {
  it.each([
    ['key with its resource', { resource: 'doc', resource_instance: 'd1' }],
    ['type:key alone (the resource is inferred)', { resource_instance: 'doc:d1' }],
    ['type:key with its resource', { resource: 'doc', resource_instance: 'doc:d1' }],
  ])('%s', async (_, details) => {
    const r = ok(await as(s, 'alice').create({ role: 'editor', ...details }));
    expect(r.access_request_details).toEqual({ tenant: 't', role: 'editor', resource: 'doc', resource_instance: 'd1' });
  });

  it('an instance id, alone or with its resource, is recorded by key', async () => {
    const d1 = ok(await s.facts('GET', '/resource_instances/doc:d1'));
    for (const details of [{ resource_instance: d1.id }, { resource: 'doc', resource_instance: d1.id }]) {
      expect(ok(await as(s, 'alice').create({ role: 'editor', ...details })).access_request_details).toEqual({
        tenant: 't',
        role: 'editor',
        resource: 'doc',
        resource_instance: 'd1',
      });
    }
  });

  it('a resource without an instance is recorded (the grant will be tenant-wide); details name no instance', async () => {
    expect(ok(await as(s, 'alice').create({ role: 'editor', resource: 'doc' })).access_request_details).toEqual({
      tenant: 't',
      role: 'editor',
      resource: 'doc',
    });
    expect(ok(await as(s, 'alice').create({ role: 'editor' })).access_request_details).toEqual({
      tenant: 't',
      role: 'editor',
    });
  });

  it('a bare instance key without a resource is 422, nothing stored', async () => {
    const before = await seenByMod();
    expectInvalid(await as(s, 'alice').create({ role: 'editor', resource_instance: 'd1' }), [
      'body',
      'access_request_details',
      'resource',
    ]);
    expect(await seenByMod()).toBe(before);
  });

  it('an instance of another resource than the one named is 422 INVALID_INPUT', async () => {
    await s.schema('POST', '/resources', { key: 'sheet', name: 'sheet', actions: {} }).then(ok);
    expectError(
      await as(s, 'alice').create({ role: 'editor', resource: 'sheet', resource_instance: 'doc:d1' }),
      422,
      'INVALID_INPUT',
    );
  });

  it('an instance in another tenant is 422 MISMATCH_RESOURCE_INSTANCES_TENANTS, nothing stored', async () => {
    const before = await seenByMod();
    expectError(
      await as(s, 'alice').create({ role: 'editor', resource_instance: 'doc:x1' }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
    expect(await seenByMod()).toBe(before);
  });
});

describe('references must exist: 404 naming what is missing, nothing stored', () => {
  it.each([
    ['role', { role: 'nope-role' }, {}, 'nope-role'],
    ['resource', { role: 'viewer', resource: 'nope-res' }, {}, 'nope-res'],
    ['resource instance', { role: 'viewer', resource: 'doc', resource_instance: 'nope-inst' }, {}, 'doc:nope-inst'],
    ['resource instance (type:key)', { role: 'viewer', resource_instance: 'doc:nope-inst' }, {}, 'doc:nope-inst'],
    ['tenant (path)', { role: 'viewer', tenant: 'nope-tenant' }, { tenant: 'nope-tenant' }, 'nope-tenant'],
    ['element configuration', { role: 'viewer' }, { config: 'nope-config' }, 'nope-config'],
    ['acting user', { role: 'viewer' }, { user: 'nope-user' }, 'nope-user'],
  ])('%s', async (what, details, ctx: { tenant?: string; config?: string; user?: string }, name) => {
    const before = await seenByMod();
    const r = await as(s, ctx.user ?? 'alice', ctx).create(details);
    expectError(r, 404, 'NOT_FOUND');
    expect(r.body.message).toContain(`${what.replace(/ \(.*\)$/, '').replace('acting ', '')} '${name}'`);
    expect(await seenByMod()).toBe(before);
  });
});

describe('the creator must be in the request tenant', () => {
  it('someone in no tenant gets 422 USER_NOT_IN_TENANT and nothing is stored', async () => {
    const before = await seenByMod();
    const r = await as(s, 'outsider').create({ role: 'viewer' });
    expectError(r, 422, 'USER_NOT_IN_TENANT');
    expect(r.body.message).toMatch(/outsider.*not in tenant 't'/);
    expect(await seenByMod()).toBe(before);
    expect(ok(await as(s, 'outsider').list()).total_count).toBe(0);
  });

  it('a member of another tenant cannot request in this one', async () => {
    expectError(await as(s, 'mod2').create({ role: 'viewer' }), 422, 'USER_NOT_IN_TENANT');
  });

  it('a role assignment in the tenant (even on one instance) makes a user "in" it', async () => {
    await user(s, 'inst-holder');
    await assign(s, { user: 'inst-holder', role: 'viewer', resource_instance: 'doc:d1' });
    expect(ok(await as(s, 'inst-holder').create({ role: 'editor' })).status).toBeNull();
  });

  it('details.tenant that differs from the path tenant is 422 INVALID_INPUT, nothing stored', async () => {
    const before = await seenByMod();
    const r = await as(s, 'alice').create({ role: 'viewer', tenant: 't2' });
    expectError(r, 422, 'INVALID_INPUT');
    expect(r.body.message).toContain("'t2'");
    expect(await seenByMod()).toBe(before);
  });
});

describe('body validation (422 in the validation shape)', () => {
  it.each([
    ['no body', undefined, ['body']],
    ['no details', { reason: 'x' }, ['body', 'access_request_details']],
    ['no role', { access_request_details: { tenant: 't' } }, ['body', 'access_request_details', 'role']],
    ['unknown field', { access_request_details: { role: 'viewer' }, extra: 1 }, ['body', 'extra']],
    [
      'unknown detail field',
      { access_request_details: { role: 'viewer', colour: 'red' } },
      ['body', 'access_request_details', 'colour'],
    ],
    ['bad role key', { access_request_details: { role: 'a b' } }, ['body', 'access_request_details', 'role']],
    ['reason not a string', { access_request_details: { role: 'viewer' }, reason: 3 }, undefined],
  ])('%s', async (_, body, loc) => {
    expectInvalid(await as(s, 'alice').createRaw(body), loc as (string | number)[] | undefined);
  });
});

describe('moderators are computed and recorded at creation', () => {
  /** Whether each user (none of them the requester) sees the request: only its moderators do. */
  async function reviewers(id: string, users: string[]) {
    const out: Record<string, boolean | undefined> = {};
    for (const u of users) {
      const r = await as(s, u).get(id);
      out[u] = r.status === 200 ? true : undefined;
    }
    return out;
  }

  it('tenant-wide holders of LEVEL_1 and LEVEL_2 roles in the tenant moderate; LEVEL_3, LEVEL_4 and other tenants do not', async () => {
    const r = await aRequest(s, 'alice');
    expect(await reviewers(r.id, ['mod', 'mgr', 'aud', 'lvl4', 'mod2', 'bob'])).toEqual({
      mod: true,
      mgr: true,
      aud: undefined,
      lvl4: undefined,
      mod2: undefined,
      bob: undefined,
    });
  });

  it('a LEVEL_1 role held only on an instance does not make a moderator', async () => {
    await user(s, 'inst-admin');
    await assign(s, { user: 'inst-admin', role: 'admin', resource_instance: 'doc:d1' });
    const r = await aRequest(s, 'alice', { role: 'viewer', resource_instance: 'doc:d1' });
    expect(await reviewers(r.id, ['inst-admin'])).toEqual({ 'inst-admin': undefined });
  });

  it('someone who gains the role after creation does not moderate earlier requests, but does moderate later ones', async () => {
    await user(s, 'late');
    await addToTenant(s, 't', 'late');
    const before = await aRequest(s, 'alice');
    await assign(s, { user: 'late', role: 'manager', tenant: 't' });
    const after = await aRequest(s, 'alice');
    expect(await reviewers(before.id, ['late'])).toEqual({ late: undefined });
    expect(await reviewers(after.id, ['late'])).toEqual({ late: true });
    expectError(await as(s, 'late').approve(before.id), 404, 'NOT_FOUND');
    expect(ok(await as(s, 'late').approve(after.id)).status).toBe('approved');
  });

  it('someone who loses the role after creation still moderates the requests recorded for them', async () => {
    await user(s, 'leaver');
    await assign(s, { user: 'leaver', role: 'admin', tenant: 't' });
    const r = await aRequest(s, 'alice');
    await s.facts('DELETE', '/role_assignments', { user: 'leaver', role: 'admin', tenant: 't' });
    expect(await reviewers(r.id, ['leaver'])).toEqual({ leaver: true });
  });

  it('the reviewer levels are those of the configuration named in the path', async () => {
    await elementsConfig(s, 'um-aud', { LEVEL_1: ['auditor'], LEVEL_3: ['admin'] });
    const r = await aRequest(s, 'alice', { role: 'viewer' }, { config: 'um-aud' });
    const get = (u: string) => as(s, u, { config: 'um-aud' }).get(r.id);
    expect(ok(await get('aud')).id).toBe(r.id);
    expectError(await get('mod'), 404, 'NOT_FOUND');
  });

  it('a configuration with no reviewer levels records no moderators: only the requester sees the request', async () => {
    await elementsConfig(s, 'um-none', { LEVEL_3: ['admin'] });
    const r = await aRequest(s, 'alice', { role: 'viewer' }, { config: 'um-none' });
    expect(ok(await as(s, 'alice', { config: 'um-none' }).get(r.id)).id).toBe(r.id);
    expectError(await as(s, 'mod', { config: 'um-none' }).get(r.id), 404, 'NOT_FOUND');
  });
});
