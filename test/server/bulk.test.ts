import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { assign, expectError, expectInvalid, ok, resource, role, seedDocs, tenant, user } from './builders.js';

/**
 * The public bulk calls (`/v2/facts/{p}/{e}/bulk/{users,tenants,resource_instances}`,
 * `/v2/schema/{p}/{e}/bulk/roles`): each applied whole or not at all, within the public item limits.
 * And the public paths take precedence: `/users/bulk` is the user whose key is `bulk`.
 */
let s: TestServer;
let x: Awaited<ReturnType<typeof seedDocs>>;
beforeAll(async () => {
  s = await startTestServer();
  x = await seedDocs(s, 'b');
});
afterAll(() => s.close());

const userKeys = async (search: string) =>
  ok(await s.facts('GET', `/users?search=${search}&per_page=100`))
    .data.map((u: { key: string }) => u.key)
    .sort();

describe('bulk users', () => {
  it('POST creates them all, with their role assignments; one that exists fails the whole call (409)', async () => {
    const body = {
      operations: [
        { key: 'bu1', email: 'bu1@x.io' },
        { key: 'bu2', role_assignments: [{ role: x.viewer, tenant: x.tenant }] },
      ],
    };
    expect(ok(await s.facts('POST', '/bulk/users', body))).toEqual({});
    expect(await userKeys('bu')).toEqual(['bu1', 'bu2']);
    expect(ok(await s.facts('GET', '/users/bu2')).roles).toEqual([{ role: x.viewer, tenant: x.tenant }]);
    expectError(
      await s.facts('POST', '/bulk/users', { operations: [{ key: 'bu3' }, { key: 'bu1' }] }),
      409,
      'DUPLICATE_ENTITY',
    );
    expect(await userKeys('bu')).toEqual(['bu1', 'bu2']);
    expectInvalid(await s.facts('POST', '/bulk/users', { operations: [{ key: 'bu4' }, { key: 'bu4' }] }), [
      'body',
      'operations',
    ]);
  });

  it('PUT creates or replaces each one, and converges when repeated', async () => {
    const body = {
      operations: [
        { key: 'bu1', first_name: 'One' },
        { key: 'bu5', email: 'bu5@x.io' },
      ],
    };
    expect(ok(await s.facts('PUT', '/bulk/users', body))).toEqual({});
    expect(ok(await s.facts('PUT', '/bulk/users', body))).toEqual({});
    const one = ok(await s.facts('GET', '/users/bu1'));
    // Replaced: the e-mail it was created with is gone.
    expect(one).toMatchObject({ key: 'bu1', first_name: 'One' });
    expect(one).not.toHaveProperty('email');
    expect(await userKeys('bu')).toEqual(['bu1', 'bu2', 'bu5']);
  });

  it('a bad item anywhere leaves nothing behind', async () => {
    const r = await s.facts('PUT', '/bulk/users', {
      operations: [{ key: 'bu6' }, { key: 'bu7', role_assignments: [{ role: 'ghost', tenant: x.tenant }] }],
    });
    expectError(r, 404, 'NOT_FOUND');
    expect(await userKeys('bu')).toEqual(['bu1', 'bu2', 'bu5']);
  });

  it('an existing user stays as it was when its bulk call fails', async () => {
    await user(s, 'kept-user', { email: 'keep@x.io' });
    expectError(
      await s.facts('PUT', '/bulk/users', {
        operations: [{ key: 'kept-user' }, { key: 'kx', role_assignments: [{ role: 'ghost' }] }],
      }),
      404,
      'NOT_FOUND',
    );
    expect(ok(await s.facts('GET', '/users/kept-user')).email).toBe('keep@x.io');
  });

  it('DELETE removes them by key or id, skipping missing ones, with their assignments', async () => {
    const id = ok(await s.facts('GET', '/users/bu5')).id;
    expect(ok(await s.facts('DELETE', '/bulk/users', { idents: ['bu2', id, 'nobody'] }))).toEqual({});
    expect(await userKeys('bu')).toEqual(['bu1']);
    expect(ok(await s.facts('GET', '/role_assignments?user=bu2'))).toEqual([]);
    expect(ok(await s.facts('DELETE', '/bulk/users', { idents: ['bu2'] }))).toEqual({});
  });

  it('takes at most 3,000 users a call', async () => {
    const ops = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `cap${i}` }));
    expect(ok(await s.facts('PUT', '/bulk/users', { operations: ops(3000) }))).toEqual({});
    expectInvalid(await s.facts('PUT', '/bulk/users', { operations: ops(3001) }));
    expectInvalid(await s.facts('DELETE', '/bulk/users', { idents: ops(3001).map((u) => u.key) }));
    expect(ok(await s.facts('DELETE', '/bulk/users', { idents: ops(3000).map((u) => u.key) }))).toEqual({});
    expect(ok(await s.facts('GET', '/users?search=cap')).total_count).toBe(0);
  });
});

describe('the public paths take precedence', () => {
  it('PUT and DELETE /users/bulk upsert and delete the user whose key is "bulk"', async () => {
    expect((await s.facts('PUT', '/users/bulk', { key: 'bulk', first_name: 'Bulk' })).status).toBe(201);
    expect(ok(await s.facts('GET', '/users/bulk'))).toMatchObject({ key: 'bulk', first_name: 'Bulk' });
    // A body meant for the old bulk extension is no user.
    expectInvalid(await s.facts('PUT', '/users/bulk', { operations: [{ key: 'someone' }] }), ['body', 'operations']);
    expect((await s.facts('DELETE', '/users/bulk')).status).toBe(204);
    expectError(await s.facts('GET', '/users/bulk'), 404, 'NOT_FOUND');
  });

  it('DELETE /resource_instances/{type}:bulk deletes the instance "bulk"; /resource_instances/bulk is no bulk call', async () => {
    ok(await s.facts('POST', '/resource_instances', { key: 'bulk', resource: x.doc, tenant: x.tenant }));
    expect((await s.facts('DELETE', `/resource_instances/${x.doc}:bulk`)).status).toBe(204);
    expectError(await s.facts('DELETE', '/resource_instances/bulk', { idents: [x.d1] }), 404, 'NOT_FOUND');
    expectError(await s.facts('PUT', '/resource_instances/bulk', { operations: [] }), 405, 'METHOD_NOT_ALLOWED');
    ok(await s.facts('GET', `/resource_instances/${x.d1}`));
  });
});

describe('bulk tenants', () => {
  it('POST creates them all; one that exists fails the whole call (409)', async () => {
    expect(
      ok(
        await s.facts('POST', '/bulk/tenants', {
          operations: [
            { key: 'bt1', name: 'One', description: 'first' },
            { key: 'bt2', name: 'Two', attributes: { tier: 'gold' } },
          ],
        }),
      ),
    ).toEqual({});
    expect(ok(await s.facts('GET', '/tenants/bt1'))).toMatchObject({ name: 'One', description: 'first' });
    expect(ok(await s.facts('GET', '/tenants/bt2')).attributes).toEqual({ tier: 'gold' });
    expectError(
      await s.facts('POST', '/bulk/tenants', {
        operations: [
          { key: 'bt3', name: 'Three' },
          { key: 'bt1', name: 'again' },
        ],
      }),
      409,
      'DUPLICATE_ENTITY',
    );
    expectError(await s.facts('GET', '/tenants/bt3'), 404, 'NOT_FOUND');
  });

  it('DELETE removes them by key or id with everything in them, skipping missing ones', async () => {
    await resource(s, 'btdoc');
    ok(await s.facts('POST', '/resource_instances', { key: 'i', resource: 'btdoc', tenant: 'bt1' }));
    const id = ok(await s.facts('GET', '/tenants/bt2')).id;
    expect(ok(await s.facts('DELETE', '/bulk/tenants', { idents: ['bt1', id, 'nothing'] }))).toEqual({});
    expectError(await s.facts('GET', '/tenants/bt1'), 404, 'NOT_FOUND');
    expectError(await s.facts('GET', '/tenants/bt2'), 404, 'NOT_FOUND');
    expectError(await s.facts('GET', '/resource_instances/btdoc:i'), 404, 'NOT_FOUND');
  });

  it('takes at most 2,000 tenants a call', async () => {
    const ops = Array.from({ length: 2001 }, (_, i) => ({ key: `btcap${i}`, name: 'x' }));
    expectInvalid(await s.facts('POST', '/bulk/tenants', { operations: ops }));
    expect(ok(await s.facts('POST', '/bulk/tenants', { operations: ops.slice(0, 2000) }))).toEqual({});
    expectInvalid(await s.facts('DELETE', '/bulk/tenants', { idents: ops.map((t) => t.key) }));
    expect(ok(await s.facts('DELETE', '/bulk/tenants', { idents: ops.slice(0, 2000).map((t) => t.key) }))).toEqual({});
  });
});

describe('bulk resource instances', () => {
  it('PUT creates or replaces each; an instance never changes tenant (422), and then nothing is written', async () => {
    const body = {
      operations: [
        { key: 'bi1', resource: x.doc, tenant: x.tenant, attributes: { a: 1 } },
        { key: 'd1', resource: x.doc, tenant: x.tenant, attributes: { b: 2 } },
      ],
    };
    expect(ok(await s.facts('PUT', '/bulk/resource_instances', body))).toEqual({});
    expect(ok(await s.facts('GET', `/resource_instances/${x.doc}:bi1`)).attributes).toEqual({ a: 1 });
    expect(ok(await s.facts('GET', `/resource_instances/${x.d1}`)).attributes).toEqual({ b: 2 });
    await tenant(s, 'biother');
    const moved = await s.facts('PUT', '/bulk/resource_instances', {
      operations: [
        { key: 'bi2', resource: x.doc, tenant: x.tenant },
        { key: 'bi1', resource: x.doc, tenant: 'biother' },
      ],
    });
    expectError(moved, 422, 'MISMATCH_RESOURCE_INSTANCES_TENANTS');
    expectError(await s.facts('GET', `/resource_instances/${x.doc}:bi2`), 404, 'NOT_FOUND');
  });

  it('DELETE removes them by type:key or id with their assignments, skipping missing ones', async () => {
    await assign(s, { user: x.alice, role: x.viewer, resource_instance: `${x.doc}:bi1` });
    const d2 = ok(await s.facts('GET', `/resource_instances/${x.d2}`)).id;
    expect(
      ok(await s.facts('DELETE', '/bulk/resource_instances', { idents: [`${x.doc}:bi1`, d2, `${x.doc}:ghost`] })),
    ).toEqual({});
    expectError(await s.facts('GET', `/resource_instances/${x.doc}:bi1`), 404, 'NOT_FOUND');
    expectError(await s.facts('GET', `/resource_instances/${x.d2}`), 404, 'NOT_FOUND');
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
  });

  it('takes at most 3,000 instances a call', async () => {
    const ops = Array.from({ length: 3001 }, (_, i) => ({ key: `cap${i}`, resource: x.doc, tenant: x.tenant }));
    expectInvalid(await s.facts('PUT', '/bulk/resource_instances', { operations: ops }));
    expectInvalid(
      await s.facts('DELETE', '/bulk/resource_instances', { idents: ops.map((i) => `${i.resource}:${i.key}`) }),
    );
  });
});

describe('bulk roles', () => {
  it('PUT creates or replaces each role, in any order of extension, and says which', async () => {
    await role(s, 'brold', [`${x.doc}:read`]);
    const r = ok(
      await s.schema('PUT', '/bulk/roles', {
        operations: [
          { key: 'brtop', name: 'Top', extends: ['brmid'] },
          { key: 'brmid', name: 'Mid', description: 'middle', permissions: [`${x.doc}:write`], extends: ['brold'] },
          { key: 'brold', name: 'Old' },
        ],
      }),
    );
    expect(r).toEqual({ created: ['brtop', 'brmid'], updated: ['brold'] });
    expect(ok(await s.schema('GET', '/roles/brtop'))).toMatchObject({
      name: 'Top',
      extends: ['brmid'],
      permissions: [],
    });
    expect(ok(await s.schema('GET', '/roles/brmid'))).toMatchObject({
      description: 'middle',
      permissions: [`${x.doc}:write`],
      extends: ['brold'],
    });
    // Replaced: the permission it had is gone.
    expect(ok(await s.schema('GET', '/roles/brold')).permissions).toEqual([]);
  });

  it('is whole or nothing: a cycle, an unknown permission or role writes nothing', async () => {
    const cases = [
      {
        body: [
          { key: 'brnew', name: 'New' },
          { key: 'brold', name: 'Old', extends: ['brtop'] },
        ],
        status: 422,
        code: 'INVALID_INPUT',
      },
      { body: [{ key: 'brnew', name: 'New', permissions: [`${x.doc}:fly`] }], status: 404, code: 'NOT_FOUND' },
      { body: [{ key: 'brnew', name: 'New', extends: ['ghost'] }], status: 404, code: 'NOT_FOUND' },
    ];
    for (const c of cases) {
      expectError(await s.schema('PUT', '/bulk/roles', { operations: c.body }), c.status, c.code);
      expectError(await s.schema('GET', '/roles/brnew'), 404, 'NOT_FOUND');
    }
    expect(ok(await s.schema('GET', '/roles/brold')).extends).toEqual([]);
    expectInvalid(
      await s.schema('PUT', '/bulk/roles', {
        operations: [
          { key: 'brnew', name: 'a' },
          { key: 'brnew', name: 'b' },
        ],
      }),
      ['body', 'operations'],
    );
    // Resource roles and derived grants are not roles of this server: refused, never dropped.
    expectInvalid(
      await s.schema('PUT', '/bulk/roles', { operations: [{ key: 'brnew', name: 'New', resource: x.doc }] }),
    );
  });

  it('takes at most 2,000 roles a call', async () => {
    const ops = Array.from({ length: 2001 }, (_, i) => ({ key: `brcap${i}`, name: 'x' }));
    expectInvalid(await s.schema('PUT', '/bulk/roles', { operations: ops }));
    expect(ok(await s.schema('PUT', '/bulk/roles', { operations: ops.slice(0, 2000) })).created).toHaveLength(2000);
  });
});
