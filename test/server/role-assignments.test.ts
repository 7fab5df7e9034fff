import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assign, expectError, expectInvalid, ok, seedDocs, tenant, user } from './builders.js';

let s: TestServer;
let x: Awaited<ReturnType<typeof seedDocs>>;
beforeAll(async () => {
  s = await startTestServer();
  x = await seedDocs(s);
  await tenant(s, 'other');
});
afterAll(() => s.close());

const brief = (items: { user: string; role: string; tenant: string; resource_instance?: string }[]) =>
  items.map((a) => `${a.user} ${a.role} ${a.resource_instance ?? a.tenant}`).sort();

describe('role assignments', () => {
  it('assigns tenant-wide and on an instance, with the read model', async () => {
    const wide = await assign(s, { user: 'alice', role: 'viewer', tenant: 't' });
    expect(wide).toEqual({
      id: expect.any(String),
      user: 'alice',
      role: 'viewer',
      tenant: 't',
      user_id: expect.any(String),
      role_id: expect.any(String),
      tenant_id: expect.any(String),
      organization_id: expect.any(String),
      project_id: expect.any(String),
      environment_id: expect.any(String),
      created_at: expect.any(String),
    });
    // The instance names its tenant; `tenant` may be omitted.
    const onDoc = await assign(s, { user: 'alice', role: 'editor', resource_instance: 'doc:d1' });
    expect(onDoc).toMatchObject({ tenant: 't', resource_instance: 'doc:d1', resource_instance_id: expect.any(String) });
  });

  it('a repeated assignment is 409; references must exist (404)', async () => {
    expectError(
      await s.facts('POST', '/role_assignments', { user: 'alice', role: 'viewer', tenant: 't' }),
      409,
      'DUPLICATE_ENTITY',
    );
    for (const a of [
      { user: 'ghost', role: 'viewer', tenant: 't' },
      { user: 'alice', role: 'ghost', tenant: 't' },
      { user: 'alice', role: 'viewer', tenant: 'ghost' },
      { user: 'alice', role: 'viewer', resource_instance: 'doc:ghost' },
      { user: 'alice', role: 'viewer', resource_instance: 'ghost:d1' },
    ]) {
      expectError(await s.facts('POST', '/role_assignments', a), 404, 'NOT_FOUND');
    }
  });

  it('an instance in another tenant than the one named is 422 MISMATCH_RESOURCE_INSTANCES_TENANTS', async () => {
    expectError(
      await s.facts('POST', '/role_assignments', {
        user: 'bob',
        role: 'viewer',
        tenant: 'other',
        resource_instance: 'doc:d1',
      }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
  });

  it.each([
    ['user=alice', ['alice editor doc:d1', 'alice viewer t']],
    ['role=editor', ['alice editor doc:d1']],
    ['tenant=t', ['alice editor doc:d1', 'alice viewer t']],
    ['resource=doc', ['alice editor doc:d1']],
    ['resource_instance=doc:d1', ['alice editor doc:d1']],
    ['resource_instance=doc:d2', []],
    ['user=bob', []],
  ])('lists filtered by %s', async (query, expected) => {
    expect(brief(ok(await s.facts('GET', `/role_assignments?${query}`)))).toEqual(expected);
  });

  it('lists in the detailed read model, at /detailed or with detailed=true', async () => {
    const detailed = ok(await s.facts('GET', '/role_assignments/detailed?user=alice&per_page=1000'));
    expect(detailed.total_count).toBe(2);
    const ids = {
      alice: ok(await s.facts('GET', '/users/alice')).id,
      t: ok(await s.facts('GET', '/tenants/t')).id,
      d1: ok(await s.facts('GET', '/resource_instances/doc:d1')).id,
    };
    const onDoc = detailed.data.find((a: { resource_instance?: unknown }) => a.resource_instance);
    expect(onDoc).toMatchObject({
      role: { id: expect.any(String), key: 'editor', name: 'editor', permissions: ['doc:write'] },
      user: { id: ids.alice, key: 'alice', attributes: {} },
      tenant: { id: ids.t, key: 't', name: 't', attributes: {} },
      resource_instance: { id: ids.d1, key: 'd1', resource: 'doc', attributes: {} },
    });
    expect(detailed.data.find((a: { resource_instance?: unknown }) => !a.resource_instance)).not.toHaveProperty(
      'resource_instance',
    );
    expect(ok(await s.facts('GET', '/role_assignments?user=alice&detailed=true'))).toEqual(detailed.data);
    expect(ok(await s.facts('GET', '/role_assignments/detailed?role=editor')).data).toHaveLength(1);
    expectError(await s.facts('GET', '/role_assignments/detailed?per_page=1001'), 422, 'PAGINATION_SIZE_OVERREACHED');
  });

  it('a resource_instance filter that is not type:key is 422', async () => {
    expectInvalid(await s.facts('GET', '/role_assignments?resource_instance=d1'), ['query', 'resource_instance']);
  });

  it('unassigns by body: 204, then 404', async () => {
    await assign(s, { user: 'bob', role: 'viewer', resource_instance: 'doc:d2' });
    // Removal names the tenant, as the public `RoleAssignmentRemove` requires.
    expectInvalid(
      await s.facts('DELETE', '/role_assignments', { user: 'bob', role: 'viewer', resource_instance: 'doc:d2' }),
      ['body', 'tenant'],
    );
    expect(
      (
        await s.facts('DELETE', '/role_assignments', {
          user: 'bob',
          role: 'viewer',
          resource_instance: 'doc:d2',
          tenant: 't',
        })
      ).status,
    ).toBe(204);
    expectError(
      await s.facts('DELETE', '/role_assignments', {
        user: 'bob',
        role: 'viewer',
        resource_instance: 'doc:d2',
        tenant: 't',
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('bulk role assignments', () => {
  it('creates many, skipping existing ones, and reports what it created and removed', async () => {
    await user(s, 'bulk1');
    await user(s, 'bulk2');
    const items = [
      { user: 'bulk1', role: 'viewer', tenant: 't' },
      { user: 'bulk2', role: 'viewer', resource_instance: 'doc:d2', tenant: 't' },
    ];
    expect(ok(await s.facts('POST', '/role_assignments/bulk', items))).toEqual({ assignments_created: 2 });
    expect(ok(await s.facts('POST', '/role_assignments/bulk', items))).toEqual({ assignments_created: 0 });
    expect(ok(await s.facts('DELETE', '/role_assignments/bulk', items))).toEqual({ assignments_removed: 2 });
    expect(ok(await s.facts('DELETE', '/role_assignments/bulk', items))).toEqual({ assignments_removed: 0 });
  });

  it('one call naming the same user (by key and by id) and instance several times creates each assignment once; a missing instance named with its tenant is made', async () => {
    const bulk4 = ok(await s.facts('PUT', '/users/bulk4', { key: 'bulk4' }));
    const items = [
      { user: 'bulk4', role: 'editor', resource_instance: 'doc:d2' },
      { user: bulk4.id, role: 'editor', resource_instance: 'doc:d2' },
      { user: 'bulk4', role: 'viewer', resource_instance: 'doc:d2', tenant: 't' },
      { user: 'bulk4', role: 'viewer', resource_instance: 'doc:made-by-bulk', tenant: 't' },
      { user: 'bulk4', role: 'editor', resource_instance: 'doc:made-by-bulk', tenant: 't' },
      { user: 'bulk4', role: 'viewer', tenant: 't' },
      { user: 'bulk4', role: 'viewer', tenant: 't' },
    ];
    expect(ok(await s.facts('POST', '/role_assignments/bulk', items))).toEqual({ assignments_created: 5 });
    expect(brief(ok(await s.facts('GET', '/role_assignments?user=bulk4')))).toEqual([
      'bulk4 editor doc:d2',
      'bulk4 editor doc:made-by-bulk',
      'bulk4 viewer doc:d2',
      'bulk4 viewer doc:made-by-bulk',
      'bulk4 viewer t',
    ]);
    // In another tenant than the one named: refused, and nothing of the call stays.
    const refused = await s.facts('POST', '/role_assignments/bulk', [
      { user: 'bulk4', role: 'viewer', tenant: 'other' },
      { user: 'bulk4', role: 'editor', resource_instance: 'doc:d2', tenant: 'other' },
    ]);
    expect(refused.body.error_code).toBe('MISMATCH_RESOURCE_INSTANCES_TENANTS');
    expect(ok(await s.facts('GET', '/role_assignments?user=bulk4'))).toHaveLength(5);
    expect(
      ok(
        await s.facts(
          'DELETE',
          '/role_assignments/bulk',
          items.map((a) => ({ ...a, tenant: 't' })),
        ),
      ),
    ).toEqual({ assignments_removed: 5 });
  });

  it('is whole or nothing: one bad item leaves nothing behind', async () => {
    await user(s, 'bulk3');
    const r = await s.facts('POST', '/role_assignments/bulk', [
      { user: 'bulk3', role: 'viewer', tenant: 't' },
      { user: 'bulk3', role: 'ghost', tenant: 't' },
    ]);
    expectError(r, 404, 'NOT_FOUND');
    expect(ok(await s.facts('GET', '/role_assignments?user=bulk3'))).toEqual([]);
  });

  it('takes at most 2,000 items (the public limit); each is validated like a single assignment', async () => {
    const many = (n: number) => Array.from({ length: n }, () => ({ user: 'alice', role: 'viewer', tenant: 't' }));
    expect(ok(await s.facts('POST', '/role_assignments/bulk', many(2000)))).toEqual({ assignments_created: 0 });
    expectInvalid(await s.facts('POST', '/role_assignments/bulk', many(2001)));
    expectInvalid(await s.facts('POST', '/role_assignments/bulk', [{ user: 'alice', role: 'viewer', extra: 1 }]), [
      'body',
      0,
      'extra',
    ]);
    expectInvalid(await s.facts('POST', '/role_assignments/bulk', { user: 'alice' }));
  });
});

describe('a tenant named by id', () => {
  it('is the same tenant as its key', async () => {
    const t = ok(await s.facts('GET', '/tenants/t'));
    await user(s, 'byid');
    expect(await assign(s, { user: 'byid', role: 'viewer', tenant: t.id, resource_instance: 'doc:d2' })).toMatchObject({
      tenant: 't',
      resource_instance: 'doc:d2',
    });
    expect(await assign(s, { user: 'byid', role: 'editor', tenant: t.id })).toMatchObject({ tenant: 't' });
  });
});
