import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  assign,
  expectError,
  expectInvalid,
  grantGroup,
  group,
  ok,
  role,
  tenant,
  user,
} from './builders.js';

/**
 * The decision point's list queries (routes/decision-lists.ts, docs/server.md "Who can do what") over
 * HTTP, on one world: documents inside folders (`doc#viewer|editor <- folder#viewer|editor via parent`),
 * a team holding `viewer` on the folder, a tenant-wide `auditor`, a direct role on the document.
 */
let s: TestServer;
const ROLES = {
  viewer: { name: 'viewer', permissions: ['read'] },
  editor: { name: 'editor', permissions: ['write'], extends: ['viewer'] },
};
beforeAll(async () => {
  s = await startTestServer();
  const resource = (key: string, extra: object) =>
    s
      .schema('POST', '/resources', { key, name: key, actions: { read: {}, write: {} }, roles: ROLES, ...extra })
      .then(ok);
  await resource('folder', {});
  await resource('doc', { relations: { parent: 'folder' } });
  for (const r of ['viewer', 'editor'])
    ok(
      await s.schema('POST', `/resources/doc/roles/${r}/implicit_grants`, {
        role: r,
        on_resource: 'folder',
        linked_by_relation: 'parent',
      }),
    );
  await role(s, 'auditor', ['doc:read']);
  await tenant(s, 't');
  await tenant(s, 'u');
  for (const u of ['alice', 'bob', 'carol', 'dave', 'erin']) await user(s, u);
  for (const [key, t] of [
    ['folder:f1', 't'],
    ['doc:d1', 't'],
    ['doc:d2', 't'],
    ['doc:d3', 'u'],
  ])
    ok(
      await s.facts('POST', '/resource_instances', { key: key.split(':')[1], resource: key.split(':')[0], tenant: t }),
    );
  ok(
    await s.facts('POST', '/relationship_tuples', {
      subject: 'folder:f1',
      relation: 'parent',
      object: 'doc:d1',
      tenant: 't',
    }),
  );
  await assign(s, { user: 'alice', role: 'editor', resource_instance: 'folder:f1', tenant: 't' });
  await group(s, 'team:a', 't');
  await addMember(s, 'team:a', 'bob', 't');
  await grantGroup(s, 'team:a', { role: 'viewer', resource: 'folder', resource_instance: 'f1', tenant: 't' });
  await assign(s, { user: 'carol', role: 'auditor', tenant: 't' });
  await assign(s, { user: 'erin', role: 'viewer', resource_instance: 'doc:d1', tenant: 't' });
  await assign(s, { user: 'dave', role: 'auditor', tenant: 'u' });
});
afterAll(() => s.close());

const post = (path: string, body: unknown) => s.call('POST', path, body, { key: ENV_KEY });
const entry = (user: string, resource: string, role: string, tenant = 't') => ({ user, tenant, resource, role });

describe('POST /authorized_users', () => {
  it('lists tenant-wide holders, direct holders, and holders through derivations and groups, each with the root of its way in', async () => {
    const r = ok(
      await post('/authorized_users', { action: 'read', resource: { type: 'doc', key: 'd1', tenant: 't' } }),
    );
    expect(r).toEqual({
      resource: 'doc:d1',
      tenant: 't',
      users: {
        alice: [entry('alice', 'folder:f1', 'folder#editor')],
        bob: [entry('bob', 'folder:f1', 'folder#viewer')],
        carol: [entry('carol', '__tenant:t', 'auditor')],
        erin: [entry('erin', 'doc:d1', 'doc#viewer')],
      },
    });
    const write = ok(
      await post('/authorized_users', { action: 'write', resource: { type: 'doc', key: 'd1', tenant: 't' } }),
    );
    expect(Object.keys(write.users)).toEqual(['alice']);
  });

  it('without a key: the tenant-wide holders of the tenant named, or of default', async () => {
    expect(ok(await post('/authorized_users', { action: 'read', resource: { type: 'doc', tenant: 'u' } }))).toEqual({
      resource: 'doc:*',
      tenant: 'u',
      users: { dave: [entry('dave', '__tenant:u', 'auditor', 'u')] },
    });
    expect(ok(await post('/authorized_users', { action: 'read', resource: { type: 'doc' } }))).toEqual({
      resource: 'doc:*',
      tenant: 'default',
      users: {},
    });
  });

  it('an unknown type, instance or action lists nobody', async () => {
    for (const resource of [
      { type: 'ghost', key: 'd1', tenant: 't' },
      { type: 'doc', key: 'ghost', tenant: 't' },
    ])
      expect(ok(await post('/authorized_users', { action: 'read', resource })).users).toEqual({});
    expect(ok(await post('/authorized_users', { action: 'fly', resource: { type: 'doc', key: 'd1' } })).users).toEqual(
      {},
    );
  });

  it('refuses a body it cannot read with a 422 naming the field', async () => {
    expectInvalid(await post('/authorized_users', { resource: { type: 'doc' } }), ['body', 'action']);
    expectInvalid(await post('/authorized_users', { action: 'read', resource: 'doc:d1' }), ['body', 'resource']);
    expectInvalid(await post('/authorized_users', { action: 'read', resource: { key: 'd1' } }), [
      'body',
      'resource',
      'type',
    ]);
    expectInvalid(await post('/authorized_users', [1]));
  });

  it('with the organisation key, the environment must be named', async () => {
    const r = await s.call('POST', '/authorized_users', { action: 'read', resource: { type: 'doc' } });
    expectError(r, 400, 'ENVIRONMENT_REQUIRED');
    const named = await s.call('POST', '/authorized_users?project=p&environment=e', {
      action: 'read',
      resource: { type: 'doc', tenant: 'u' },
    });
    expect(ok(named).users).toHaveProperty('dave');
  });
});

describe('POST /user-permissions: roles', () => {
  it('lists the top-level roles of a tenant entry and the roles held on an instance, without the type prefix', async () => {
    const carol = ok(await post('/user-permissions', { user: { key: 'carol' } }));
    expect(carol['__tenant:t']).toMatchObject({ permissions: ['doc:read'], roles: ['auditor'] });
    const alice = ok(await post('/user-permissions', { user: { key: 'alice' } }));
    expect(alice['doc:d1']).toMatchObject({ permissions: ['doc:read', 'doc:write'], roles: ['editor'] });
    expect(alice['folder:f1']).toMatchObject({ roles: ['editor'] });
    expect(alice['__tenant:t']).toMatchObject({ permissions: [], roles: [] });
    const bob = ok(await post('/user-permissions', { user: 'bob' }));
    expect(bob['doc:d1']).toMatchObject({ permissions: ['doc:read'], roles: ['viewer'] });
  });
});

describe('POST /allowed/all-tenants and /user-tenants', () => {
  it('lists the tenants where the check is allowed, with their attributes', async () => {
    const r = ok(
      await post('/allowed/all-tenants', { user: { key: 'carol' }, action: 'read', resource: { type: 'doc' } }),
    );
    expect(r).toEqual({ allowed_tenants: [{ allow: true, result: true, tenant: { key: 't', attributes: {} } }] });
    const none = ok(await post('/allowed/all-tenants', { user: 'erin', action: 'read', resource: { type: 'doc' } }));
    expect(none).toEqual({ allowed_tenants: [] });
    expectInvalid(await post('/allowed/all-tenants', { user: 'erin', resource: { type: 'doc' } }), ['body', 'action']);
  });

  it('/user-tenants: the tenants where the user holds a role', async () => {
    expect(ok(await post('/user-tenants', { user: { key: 'alice' } }))).toEqual([{ key: 't', attributes: {} }]);
    expect(ok(await post('/user-tenants', { user: 'nobody' }))).toEqual([]);
    expectInvalid(await post('/user-tenants', {}), ['body', 'user']);
  });
});

describe('GET /local/role_assignments', () => {
  const get = (query: string) => s.call('GET', `/local/role_assignments${query}`, undefined, { key: ENV_KEY });
  it('lists assignments in the PDP shape, filtered and paged', async () => {
    expect(ok(await get('?user=erin'))).toEqual([
      { user: 'erin', role: 'viewer', tenant: 't', resource_instance: 'doc:d1' },
    ]);
    expect(ok(await get('?role=auditor&tenant=u'))).toEqual([{ user: 'dave', role: 'auditor', tenant: 'u' }]);
    expect(ok(await get('?resource_instance=folder:f1')).map((a: { user: string }) => a.user)).toEqual(['alice']);
    const all = ok(await get('?per_page=100'));
    const firstTwo = ok(await get('?per_page=2&page=1'));
    const next = ok(await get('?per_page=2&page=2'));
    expect([...firstTwo, ...next]).toEqual(all.slice(0, 4));
  });

  it('refuses a page over 100 and a malformed instance', async () => {
    expectError(await get('?per_page=101'), 422, 'PAGINATION_SIZE_OVERREACHED');
    expectInvalid(await get('?resource_instance=nocolon'), ['query', 'resource_instance']);
    expectInvalid(await get('?page=0'));
  });
});

describe('AuthZEN 1.0', () => {
  const subject = (id: string) => ({ type: 'user', id });
  const doc = (id: string) => ({ type: 'doc', id, properties: { tenant: 't' } });
  it('evaluation and evaluations decide as /allowed', async () => {
    const one = (id: string, name: string) =>
      post('/access/v1/evaluation', { subject: subject(id), action: { name }, resource: doc('d1') });
    expect(ok(await one('bob', 'read'))).toEqual({ decision: true });
    expect(ok(await one('bob', 'write'))).toEqual({ decision: false });
    const many = await post('/access/v1/evaluations', {
      subject: subject('alice'),
      resource: doc('d1'),
      evaluations: [{ action: { name: 'write' } }, { action: { name: 'write' }, subject: subject('erin') }],
    });
    expect(ok(many)).toEqual({ evaluations: [{ decision: true }, { decision: false }] });
  });

  it('search/subject, search/resource and search/action list what /allowed allows', async () => {
    const subjects = ok(
      await post('/access/v1/search/subject', {
        subject: { type: 'user' },
        action: { name: 'read' },
        resource: doc('d1'),
      }),
    );
    expect(subjects).toEqual({
      results: ['alice', 'bob', 'carol', 'erin'].map((id) => ({ type: 'user', id })),
      page: { next_token: null },
    });
    const resources = ok(
      await post('/access/v1/search/resource', {
        subject: subject('carol'),
        action: { name: 'read' },
        resource: { type: 'doc' },
      }),
    );
    expect(resources.results).toEqual([
      { type: 'doc', id: 'd1' },
      { type: 'doc', id: 'd2' },
    ]);
    const actions = ok(await post('/access/v1/search/action', { subject: subject('alice'), resource: doc('d1') }));
    expect(actions.results).toEqual([{ name: 'doc:read' }, { name: 'doc:write' }]);
  });

  it('refuses bodies it cannot read with a 422 saying where', async () => {
    expectInvalid(await post('/access/v1/evaluation', { subject: subject('bob'), resource: doc('d1') }), [
      'body',
      'action',
    ]);
    expectInvalid(
      await post('/access/v1/evaluation', {
        subject: { type: 'group', id: 'x' },
        action: { name: 'read' },
        resource: doc('d1'),
      }),
    );
    expectInvalid(await post('/access/v1/evaluations', { evaluations: [{ action: { name: 'read' } }] }), [
      'body',
      'evaluations',
      0,
      'subject',
    ]);
    expectInvalid(await post('/access/v1/search/resource', { subject: subject('bob'), action: { name: 'read' } }), [
      'body',
      'resource',
    ]);
    expectInvalid(await post('/access/v1/search/action', { subject: subject('bob'), resource: { id: 'd1' } }), [
      'body',
      'resource',
      'type',
    ]);
  });
});
