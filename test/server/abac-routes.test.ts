import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok, resource, role } from './builders.js';

/** ABAC's public operations over HTTP: attribute definitions, condition sets, set rules; every refusal. */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await resource(s, 'document', ['read', 'sign', 'delete'], {
    attributes: { private: { type: 'bool', description: 'hidden' } },
  });
  await resource(s, 'folder', ['read']);
  await role(s, 'admin', ['document:read']);
});
afterAll(() => s.close());

const ENV_FIELDS = {
  organization_id: expect.any(String),
  project_id: expect.any(String),
  environment_id: expect.any(String),
  created_at: expect.any(String),
  updated_at: expect.any(String),
};

describe('attribute definitions', () => {
  it('users: built-ins first, create, read by key or id, update, delete; the same collection at /resources/__user', async () => {
    const list0 = ok(await s.schema('GET', '/users/attributes'));
    expect(list0.map((a: { key: string; built_in: boolean }) => [a.key, a.built_in])).toEqual([
      ['key', true],
      ['email', true],
      ['first_name', true],
      ['last_name', true],
      ['roles', true],
    ]);
    const age = ok(await s.schema('POST', '/users/attributes', { key: 'age', type: 'number', description: 'years' }));
    expect(age).toEqual({
      id: expect.any(String),
      key: 'age',
      type: 'number',
      description: 'years',
      resource_id: list0[0].resource_id,
      resource_key: '__user',
      built_in: false,
      ...ENV_FIELDS,
    });
    expect(ok(await s.schema('GET', `/users/attributes/${age.id}`))).toEqual(age);
    expect(ok(await s.schema('GET', '/resources/__user/attributes/age'))).toEqual(age);
    ok(await s.schema('POST', '/resources/__user/attributes', { key: 'level', type: 'string' }));
    expect(ok(await s.schema('GET', '/users/attributes?page=2&per_page=5')).map((a: { key: string }) => a.key)).toEqual(
      ['age', 'level'],
    );
    expect(ok(await s.schema('PATCH', '/users/attributes/level', { type: 'number' }))).toMatchObject({
      key: 'level',
      type: 'number',
    });
    expect((await s.schema('DELETE', '/users/attributes/level')).status).toBe(204);
    expectError(await s.schema('GET', '/users/attributes/level'), 404, 'NOT_FOUND');
  });

  it('refuses a duplicate (409), the key type (422), changing or deleting a built-in (422), a bad type or key (422), paging over 100', async () => {
    expectError(await s.schema('POST', '/users/attributes', { key: 'age', type: 'number' }), 409, 'DUPLICATE_ENTITY');
    expectError(
      await s.schema('POST', '/resources/document/attributes', { key: 'type', type: 'string' }),
      422,
      'INVALID_INPUT',
    );
    expectError(await s.schema('PATCH', '/users/attributes/email', { type: 'number' }), 422, 'INVALID_INPUT');
    expectError(await s.schema('DELETE', '/users/attributes/roles'), 422, 'INVALID_INPUT');
    expectInvalid(await s.schema('POST', '/users/attributes', { key: 'x', type: 'date' }), ['body', 'type']);
    expectInvalid(await s.schema('POST', '/users/attributes', { key: 'a.b', type: 'string' }));
    expectError(await s.schema('GET', '/users/attributes?per_page=101'), 422, 'PAGINATION_SIZE_OVERREACHED');
    expectError(await s.schema('GET', '/resources/nothing/attributes'), 404, 'NOT_FOUND');
  });

  it('resources: the inline definitions are the same collection, read back in ResourceRead', async () => {
    const listed = ok(await s.schema('GET', '/resources/document/attributes'));
    expect(listed).toEqual([
      expect.objectContaining({
        key: 'private',
        type: 'bool',
        description: 'hidden',
        resource_key: 'document',
        built_in: false,
      }),
    ]);
    ok(await s.schema('POST', '/resources/document/attributes', { key: 'owner', type: 'string' }));
    expect(ok(await s.schema('GET', '/resources/document')).attributes).toMatchObject({
      private: { type: 'bool' },
      owner: { type: 'string', id: expect.any(String) },
    });
    expect(ok(await s.schema('PATCH', '/resources/document/attributes/owner', { description: 'who' }))).toMatchObject({
      key: 'owner',
      type: 'string',
      description: 'who',
    });
    expect((await s.schema('DELETE', '/resources/document/attributes/owner')).status).toBe(204);
    expect(Object.keys(ok(await s.schema('GET', '/resources/document')).attributes)).toEqual(['private']);
  });

  it('tenants: on the built-in resource __tenant', async () => {
    expect(ok(await s.schema('POST', '/resources/__tenant/attributes', { key: 'tier', type: 'string' }))).toMatchObject(
      { key: 'tier', resource_key: '__tenant' },
    );
    expect(
      ok(await s.schema('GET', '/users/attributes?resource_id=__tenant')).map((a: { key: string }) => a.key),
    ).toEqual(['tier']);
  });
});

describe('condition sets', () => {
  it('create, read by key or id, list (filters, search, total, paging), update, family, delete', async () => {
    const us = ok(
      await s.schema('POST', '/condition_sets', {
        key: 'seniors',
        name: 'Seniors',
        conditions: { allOf: [{ 'user.age': { 'greater-than': 30 } }] },
      }),
    );
    expect(us).toEqual({
      id: expect.any(String),
      key: 'seniors',
      name: 'Seniors',
      type: 'userset',
      autogenerated: false,
      conditions: { allOf: [{ 'user.age': { 'greater-than': 30 } }] },
      ...ENV_FIELDS,
    });
    const rs = ok(
      await s.schema('POST', '/condition_sets', {
        key: 'public_docs',
        name: 'Public',
        type: 'resourceset',
        resource_id: 'document',
        description: 'not private',
        conditions: { allOf: [{ 'resource.private': { equals: false } }] },
      }),
    );
    expect(rs).toMatchObject({
      type: 'resourceset',
      resource_id: expect.any(String),
      resource: { key: 'document' },
      description: 'not private',
    });
    const child = ok(
      await s.schema('POST', '/condition_sets', {
        key: 'very_seniors',
        name: 'Very',
        parent_id: 'seniors',
        conditions: { 'user.age': { 'greater-than': 60 } },
      }),
    );
    expect(child.parent_id).toBe(us.id);
    const grand = ok(await s.schema('POST', '/condition_sets', { key: 'oldest', name: 'Oldest', parent_id: child.id }));
    expect(ok(await s.schema('GET', `/condition_sets/${us.id}`)).key).toBe('seniors');
    expect(ok(await s.schema('GET', '/condition_sets')).map((c: { key: string }) => c.key)).toEqual([
      'seniors',
      'public_docs',
      'very_seniors',
      'oldest',
    ]);
    expect(ok(await s.schema('GET', '/condition_sets?type=resourceset')).map((c: { key: string }) => c.key)).toEqual([
      'public_docs',
    ]);
    expect(ok(await s.schema('GET', '/condition_sets?search=senior')).map((c: { key: string }) => c.key)).toEqual([
      'seniors',
      'very_seniors',
    ]);
    expect(ok(await s.schema('GET', '/condition_sets?include_total_count=true&per_page=3&page=2'))).toMatchObject({
      total_count: 4,
      page_count: 2,
      data: [{ key: 'oldest' }],
    });
    expect(ok(await s.schema('GET', '/condition_sets/oldest/ancestors')).map((c: { key: string }) => c.key)).toEqual([
      'very_seniors',
      'seniors',
    ]);
    expect(ok(await s.schema('GET', '/condition_sets/seniors/descendants')).map((c: { key: string }) => c.key)).toEqual(
      ['very_seniors', 'oldest'],
    );
    expect(
      ok(await s.schema('GET', '/condition_sets/seniors/descendants?per_page=1&page=2')).map(
        (c: { key: string }) => c.key,
      ),
    ).toEqual(['oldest']);
    const patched = ok(
      await s.schema('PATCH', '/condition_sets/oldest', {
        name: 'The oldest',
        conditions: { 'user.age': { 'greater-than': 90 } },
        parent_id: 'seniors',
      }),
    );
    expect(patched).toMatchObject({
      name: 'The oldest',
      parent_id: us.id,
      conditions: { 'user.age': { 'greater-than': 90 } },
    });
    // null for an optional field is the field not given (docs/server.md): the parent stays.
    expect(ok(await s.schema('PATCH', '/condition_sets/oldest', { parent_id: null }))).toMatchObject({
      parent_id: us.id,
    });
    expectError(await s.schema('DELETE', '/condition_sets/seniors'), 409, 'CONFLICT');
    expect((await s.schema('DELETE', `/condition_sets/${grand.id}`)).status).toBe(204);
    expect((await s.schema('DELETE', '/condition_sets/very_seniors')).status).toBe(204);
    expectError(await s.schema('GET', '/condition_sets/very_seniors'), 404, 'NOT_FOUND');
  });

  it('refuses: bad conditions (422 naming the path), undefined attributes (400), resource_id rules, parents, duplicates, autogenerated keys', async () => {
    const bad = await s.schema('POST', '/condition_sets', {
      key: 'x',
      name: 'x',
      conditions: { allOf: [{ anyOf: [{ 'user.age': { between: [1, 2] } }] }] },
    });
    expectInvalid(bad, ['body', 'conditions']);
    expect(bad.body.detail[0].msg).toContain('conditions.allOf[0].anyOf[0]["user.age"]["between"]');
    expect(bad.body.detail[0].msg).toContain('greater-than');
    expectError(
      await s.schema('POST', '/condition_sets', {
        key: 'x',
        name: 'x',
        conditions: { 'user.clearance': { equals: 'top' } },
      }),
      400,
      'MISSING_RESOURCE_ATTRIBUTE',
    );
    expectError(
      await s.schema('POST', '/condition_sets', {
        key: 'x',
        name: 'x',
        type: 'resourceset',
        resource_id: 'folder',
        conditions: { 'resource.private': { equals: true } },
      }),
      400,
      'MISSING_RESOURCE_ATTRIBUTE',
    );
    expectError(
      await s.schema('POST', '/condition_sets', {
        key: 'x',
        name: 'x',
        conditions: { 'tenant.region': { equals: 'eu' } },
      }),
      400,
      'MISSING_RESOURCE_ATTRIBUTE',
    );
    expectError(
      await s.schema('POST', '/condition_sets', {
        key: 'x',
        name: 'x',
        conditions: { 'user.age': { equals: { ref: 'tenant.nothing' } } },
      }),
      400,
      'MISSING_RESOURCE_ATTRIBUTE',
    );
    // Built-ins, generated attributes, role.* and context.* need no definition; a user set may name any resource's attribute.
    ok(
      await s.schema('POST', '/condition_sets', {
        key: 'free',
        name: 'free',
        conditions: {
          allOf: [
            { 'user.email': { contains: '@' } },
            { 'tenant.key': { equals: 't' } },
            { 'role.x': { equals: 1 } },
            { 'context.ip': { equals: 'a' } },
            { 'resource.private': { equals: true } },
            { 'subject.roles': { array_contains: 'admin' } },
          ],
        },
      }),
    );
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'x', name: 'x', type: 'resourceset' }),
      422,
      'INVALID_INPUT',
    );
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'x', name: 'x', resource_id: 'document' }),
      422,
      'INVALID_INPUT',
    );
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'x', name: 'x', type: 'resourceset', resource_id: 'nothing' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'x', name: 'x', parent_id: 'public_docs' }),
      422,
      'INVALID_INPUT',
    );
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'x', name: 'x', parent_id: 'nothing' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'x', name: 'x', parent_id: '__autogen_admin' }),
      422,
      'INVALID_INPUT',
    );
    expectError(await s.schema('POST', '/condition_sets', { key: 'free', name: 'again' }), 409, 'DUPLICATE_ENTITY');
    expectError(await s.schema('POST', '/condition_sets', { key: '__autogen_x', name: 'x' }), 422, 'INVALID_INPUT');
    expectError(
      await s.schema('POST', '/condition_sets', { key: 'y', name: 'y', autogenerated: true }),
      422,
      'INVALID_INPUT',
    );
    expectInvalid(await s.schema('POST', '/condition_sets', { key: 'y', name: 'y', type: 'groupset' }), [
      'body',
      'type',
    ]);
    expectInvalid(await s.schema('POST', '/condition_sets', { key: 'y' }));
    ok(await s.schema('POST', '/condition_sets', { key: 'a1', name: 'a1' }));
    ok(await s.schema('POST', '/condition_sets', { key: 'a2', name: 'a2', parent_id: 'a1' }));
    expectError(await s.schema('PATCH', '/condition_sets/a1', { parent_id: 'a2' }), 422, 'INVALID_INPUT');
    expectError(await s.schema('PATCH', '/condition_sets/a1', { parent_id: 'a1' }), 422, 'INVALID_INPUT');
    expectError(
      await s.schema('PATCH', '/condition_sets/a1', { conditions: { 'user.nothing': { equals: 1 } } }),
      400,
      'MISSING_RESOURCE_ATTRIBUTE',
    );
    expectError(await s.schema('GET', '/condition_sets?per_page=101'), 422, 'PAGINATION_SIZE_OVERREACHED');
  });

  it('autogenerated sets: answered by key or id, never listed, never changed', async () => {
    const admin = ok(await s.schema('GET', '/condition_sets/__autogen_admin'));
    expect(admin).toMatchObject({
      key: '__autogen_admin',
      type: 'userset',
      autogenerated: true,
      conditions: { allOf: [{ 'user.roles': { array_contains: 'admin' } }] },
    });
    expect(ok(await s.schema('GET', `/condition_sets/${admin.id}`)).key).toBe('__autogen_admin');
    expect(ok(await s.schema('GET', '/condition_sets/__autogen_document'))).toMatchObject({
      type: 'resourceset',
      autogenerated: true,
      resource: { key: 'document' },
    });
    expect(
      ok(await s.schema('GET', '/condition_sets?per_page=100')).some((c: { key: string }) =>
        c.key.startsWith('__autogen_'),
      ),
    ).toBe(false);
    expectError(await s.schema('PATCH', '/condition_sets/__autogen_admin', { name: 'x' }), 422, 'INVALID_INPUT');
    expectError(await s.schema('DELETE', '/condition_sets/__autogen_document'), 422, 'INVALID_INPUT');
    expectError(await s.schema('GET', '/condition_sets/__autogen_nothing'), 404, 'NOT_FOUND');
  });
});

describe('set rules', () => {
  it('grant (an array, skipping an existing rule), list with filters in all three permission spellings, revoke (skipping an absent one)', async () => {
    const made = ok(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permission: 'document:sign',
        resource_set: 'public_docs',
      }),
    );
    expect(made).toEqual([
      {
        id: expect.any(String),
        key: 'seniors_can_document_sign_public_docs',
        user_set: 'seniors',
        permission: 'document:sign',
        resource_set: 'public_docs',
        ...ENV_FIELDS,
      },
    ]);
    expect(
      ok(
        await s.facts('POST', '/set_rules', {
          user_set: 'seniors',
          permission: 'document:sign',
          resource_set: 'public_docs',
        }),
      ),
    ).toEqual(made);
    const actionId = ok(await s.schema('GET', '/resources/document')).actions.read.id;
    ok(await s.facts('POST', '/set_rules', { user_set: 'seniors', permission: actionId, resource_set: 'public_docs' }));
    ok(
      await s.facts('POST', '/set_rules', {
        user_set: 'admin',
        is_role: true,
        permission: 'delete',
        resource_set: 'public_docs',
      }),
    );
    ok(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permission: 'folder:read',
        resource_set: 'folder',
        is_resource: true,
      }),
    );
    const keys = (q: string) =>
      s
        .facts('GET', `/set_rules${q}`)
        .then(ok)
        .then((rs: { key: string }[]) => rs.map((r) => r.key));
    expect(await keys('')).toEqual([
      'seniors_can_document_sign_public_docs',
      'seniors_can_document_read_public_docs',
      '__autogen_admin_can_document_delete_public_docs',
      'seniors_can_folder_read___autogen_folder',
    ]);
    expect(await keys('?permission=sign')).toEqual(['seniors_can_document_sign_public_docs']);
    expect(await keys('?permission=document:sign')).toEqual(['seniors_can_document_sign_public_docs']);
    expect(await keys(`?permission=${actionId}`)).toEqual(['seniors_can_document_read_public_docs']);
    expect(await keys('?user_set=__autogen_admin')).toEqual(['__autogen_admin_can_document_delete_public_docs']);
    expect(await keys('?resource_set=__autogen_folder&user_set=seniors')).toEqual([
      'seniors_can_folder_read___autogen_folder',
    ]);
    expect(await keys('?per_page=2&page=2')).toHaveLength(2);
    expect(
      (
        await s.facts('DELETE', '/set_rules', {
          user_set: 'seniors',
          permission: 'document:read',
          resource_set: 'public_docs',
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await s.facts('DELETE', '/set_rules', {
          user_set: 'seniors',
          permission: 'document:read',
          resource_set: 'public_docs',
        })
      ).status,
    ).toBe(204);
    expect(await keys('?permission=read&resource_set=public_docs')).toEqual([]);
  });

  it("refuses unknown names (404), sets of the wrong type and a permission off the resource set's resource (422), a missing body (422)", async () => {
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'nobody',
        permission: 'document:sign',
        resource_set: 'public_docs',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permission: 'document:fly',
        resource_set: 'public_docs',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permission: 'nothing:read',
        resource_set: 'public_docs',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'ghost',
        is_role: true,
        permission: 'document:sign',
        resource_set: 'public_docs',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'public_docs',
        permission: 'document:sign',
        resource_set: 'public_docs',
      }),
      422,
      'INVALID_INPUT',
    );
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permission: 'document:sign',
        resource_set: 'seniors',
      }),
      422,
      'INVALID_INPUT',
    );
    expectError(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permission: 'folder:read',
        resource_set: 'public_docs',
      }),
      422,
      'INVALID_INPUT',
    );
    expectInvalid(await s.facts('DELETE', '/set_rules'));
    expectInvalid(
      await s.facts('POST', '/set_rules', {
        user_set: 'seniors',
        permissions: ['document:sign'],
        resource_set: 'public_docs',
      }),
    );
  });

  it('cascades: deleting a set, a role, an action or a resource deletes the rules that need it', async () => {
    await role(s, 'temp', []);
    ok(
      await s.facts('POST', '/set_rules', {
        user_set: '__autogen_temp',
        permission: 'document:sign',
        resource_set: 'public_docs',
      }),
    );
    ok(await s.schema('POST', '/condition_sets', { key: 'gone', name: 'gone' }));
    ok(
      await s.facts('POST', '/set_rules', {
        user_set: 'gone',
        permission: 'document:sign',
        resource_set: 'public_docs',
      }),
    );
    const count = async (q: string) => ok(await s.facts('GET', `/set_rules${q}`)).length;
    expect(await count('?user_set=__autogen_temp')).toBe(1);
    ok(await s.schema('DELETE', '/roles/temp'));
    expect(await count('?user_set=__autogen_temp')).toBe(0);
    ok(await s.schema('DELETE', '/condition_sets/gone'));
    expect(await count('?user_set=gone')).toBe(0);
    expect(await count('?permission=delete')).toBe(1);
    ok(await s.schema('PATCH', '/resources/document', { actions: { read: {}, sign: {} } }));
    expect(await count('?permission=delete')).toBe(0);
    expect(await count('?resource_set=__autogen_folder')).toBe(1);
    ok(await s.schema('DELETE', '/resources/folder'));
    expect(await count('?resource_set=__autogen_folder')).toBe(0);
    expectError(await s.schema('GET', '/condition_sets/__autogen_folder'), 404, 'NOT_FOUND');
  });
});
