import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { allowed, expectError, expectInvalid, instance, ok, resource, role, seedDocs, tenant } from './builders.js';

/**
 * Two public operations beyond the specification: a role's permissions changed one by one
 * (`POST`/`DELETE /v2/schema/{p}/{e}/roles/{role}/permissions`), and the detailed list of resource
 * instances (`GET /v2/facts/{p}/{e}/resource_instances/detailed`).
 */
let s: TestServer;
let x: Awaited<ReturnType<typeof seedDocs>>;
beforeAll(async () => {
  s = await startTestServer();
  x = await seedDocs(s);
  await resource(s, 'folder', ['read']);
  await tenant(s, 'other');
  await instance(s, 'folder', 'f1', x.tenant);
  await instance(s, 'folder', 'f2', 'other');
  ok(await s.schema('POST', '/resources/doc/relations', { key: 'parent', name: 'Parent', subject_resource: 'folder' }));
  ok(await s.facts('POST', '/relationship_tuples', { subject: 'folder:f1', relation: 'parent', object: 'doc:d1' }));
});
afterAll(() => s.close());

const perms = (key: string) => s.schema('GET', `/roles/${key}`).then((r) => ok(r).permissions as string[]);

describe('role permissions, one by one', () => {
  it('adds permissions, skipping those the role has, and answers the role', async () => {
    await role(s, 'p1', ['doc:read']);
    const r = ok(
      await s.schema('POST', '/roles/p1/permissions', { permissions: ['doc:write', 'doc:read', 'folder:read'] }),
    );
    expect(r).toMatchObject({ key: 'p1', permissions: ['doc:read', 'doc:write', 'folder:read'] });
    expect(await perms('p1')).toEqual(['doc:read', 'doc:write', 'folder:read']);
  });

  it('removes permissions, skipping those the role lacks or that do not exist', async () => {
    await role(s, 'p2', ['doc:read', 'doc:write']);
    const r = ok(
      await s.schema('DELETE', '/roles/p2/permissions', { permissions: ['doc:write', 'folder:read', 'ghost:act'] }),
    );
    expect(r.permissions).toEqual(['doc:read']);
    expect(await perms('p2')).toEqual(['doc:read']);
  });

  it('names a permission by the id of its action too', async () => {
    await role(s, 'p3');
    const doc = ok(await s.schema('GET', '/resources/doc'));
    ok(await s.schema('POST', '/roles/p3/permissions', { permissions: [doc.actions.delete.id] }));
    expect(await perms('p3')).toEqual(['doc:delete']);
    ok(await s.schema('DELETE', '/roles/p3/permissions', { permissions: [doc.actions.delete.id] }));
    expect(await perms('p3')).toEqual([]);
  });

  it('the role grants what it now lists', async () => {
    await role(s, 'p4');
    ok(await s.facts('POST', '/role_assignments', { user: x.alice, role: 'p4', tenant: x.tenant }));
    const check = () => allowed(s, x.alice, 'delete', { type: 'doc', key: 'd1', tenant: x.tenant });
    expect(await check()).toBe(false);
    ok(await s.schema('POST', '/roles/p4/permissions', { permissions: ['doc:delete'] }));
    expect(await check()).toBe(true);
    ok(await s.schema('DELETE', '/roles/p4/permissions', { permissions: ['doc:delete'] }));
    expect(await check()).toBe(false);
  });

  it('an unknown role, resource, action or action id is 404, and nothing changes', async () => {
    await role(s, 'p5', ['doc:read']);
    expectError(await s.schema('POST', '/roles/ghost/permissions', { permissions: ['doc:read'] }), 404, 'NOT_FOUND');
    expectError(await s.schema('DELETE', '/roles/ghost/permissions', { permissions: ['doc:read'] }), 404, 'NOT_FOUND');
    for (const p of ['ghost:read', 'doc:fly', '00000000-0000-4000-8000-000000000000']) {
      expectError(await s.schema('POST', '/roles/p5/permissions', { permissions: ['doc:write', p] }), 404, 'NOT_FOUND');
    }
    expect(await perms('p5')).toEqual(['doc:read']);
  });

  it.each([
    ['no body field', {}, ['body', 'permissions']],
    ['not a list', { permissions: 'doc:read' }, ['body', 'permissions']],
    ['null', { permissions: null }, ['body', 'permissions']],
    ['a malformed permission', { permissions: ['doc:read:more'] }, ['body', 'permissions', 0]],
    ['an unknown field', { permissions: [], extra: 1 }, ['body', 'extra']],
  ])('%s is 422', async (_, body, loc) => {
    expectInvalid(await s.schema('POST', '/roles/viewer/permissions', body), loc as (string | number)[]);
    expectInvalid(await s.schema('DELETE', '/roles/viewer/permissions', body), loc as (string | number)[]);
  });
});

describe('GET /resource_instances/detailed', () => {
  const detailed = (query = '') => s.facts('GET', `/resource_instances/detailed${query}`).then(ok);
  const keysOf = (body: { data: { resource: string; key: string }[] }) =>
    body.data.map((i) => `${i.resource}:${i.key}`);

  it('answers the envelope; each instance with the tuples that name it, as subject or object', async () => {
    const all = await detailed();
    expect(all).toMatchObject({ total_count: 4, page_count: 1 });
    expect(keysOf(all)).toEqual(['doc:d1', 'doc:d2', 'folder:f1', 'folder:f2']);
    const byKey = Object.fromEntries(
      all.data.map((i: { resource: string; key: string }) => [`${i.resource}:${i.key}`, i]),
    );
    const tuple = { subject: 'folder:f1', relation: 'parent', object: 'doc:d1' };
    expect(byKey['doc:d1']).toMatchObject({ key: 'd1', resource: 'doc', tenant: x.tenant, relationships: [tuple] });
    expect(byKey['folder:f1'].relationships).toEqual([tuple]);
    expect(byKey['doc:d2'].relationships).toEqual([]);
    const plain = ok(await s.facts('GET', '/resource_instances/doc:d1'));
    expect(byKey['doc:d1']).toEqual({ ...plain, relationships: [tuple] });
  });

  it('filters by tenant and resource (key or id) and by one or more instance keys or ids', async () => {
    const other = ok(await s.facts('GET', '/tenants/other'));
    const doc = ok(await s.schema('GET', '/resources/doc'));
    expect(keysOf(await detailed(`?tenant=other`))).toEqual(['folder:f2']);
    expect(keysOf(await detailed(`?tenant=${other.id}`))).toEqual(['folder:f2']);
    expect(keysOf(await detailed(`?resource=${doc.id}`))).toEqual(['doc:d1', 'doc:d2']);
    expect(keysOf(await detailed(`?resource=doc&tenant=other`))).toEqual([]);
    expect(keysOf(await detailed('?search=d2'))).toEqual(['doc:d2']);
    const f1 = ok(await s.facts('GET', '/resource_instances/folder:f1'));
    expect(keysOf(await detailed(`?search=d2&search=${f1.id}`))).toEqual(['doc:d2', 'folder:f1']);
  });

  it('pages in creation order, at most 100 a page', async () => {
    const page = await detailed('?per_page=3&page=2');
    expect(page).toMatchObject({ total_count: 4, page_count: 2 });
    expect(keysOf(page)).toEqual(['folder:f2']);
    expectError(await s.facts('GET', '/resource_instances/detailed?per_page=101'), 422, 'PAGINATION_SIZE_OVERREACHED');
    expectInvalid(await s.facts('GET', '/resource_instances/detailed?page=0'), ['query', 'page']);
  });
});
