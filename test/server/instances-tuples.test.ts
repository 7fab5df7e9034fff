import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  assign,
  expectError,
  grantGroup,
  group,
  instance,
  ok,
  resource,
  seedDocs,
  tenant,
} from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

// The specification places resource instances under /v2/schema, the public API under /v2/facts: both
// are served with the same behaviour.
describe.each([['facts'], ['schema']] as const)('resource instances under /v2/%s', (base) => {
  const x = `ri${base}`;
  const at = (method: string, path: string, body?: unknown) => s[base](method, path, body);

  it('create, read (by type:key and by id), list with filters, patch and delete; no PUT', async () => {
    await resource(s, `${x}doc`);
    await resource(s, `${x}img`);
    await tenant(s, `${x}t`);
    await tenant(s, `${x}u`);
    const created = ok(
      await at('POST', '/resource_instances', {
        key: 'i1',
        resource: `${x}doc`,
        tenant: `${x}t`,
        attributes: { a: 1 },
      }),
    );
    expect(created).toMatchObject({
      key: 'i1',
      resource: `${x}doc`,
      tenant: `${x}t`,
      attributes: { a: 1 },
      resource_id: expect.any(String),
      tenant_id: expect.any(String),
    });
    ok(await at('POST', '/resource_instances', { key: 'i2', resource: `${x}img`, tenant: `${x}u` }));
    // The same key under another resource is another instance.
    ok(await at('POST', '/resource_instances', { key: 'i1', resource: `${x}img`, tenant: `${x}t` }));

    expect(ok(await at('GET', `/resource_instances/${x}doc:i1`))).toEqual(created);
    expect(ok(await at('GET', `/resource_instances/${created.id}`)).key).toBe('i1');
    const refs = (items: { resource: string; key: string }[]) => items.map((i) => `${i.resource}:${i.key}`);
    expect(refs(ok(await at('GET', `/resource_instances?tenant=${x}t`)))).toEqual([`${x}doc:i1`, `${x}img:i1`]);
    expect(refs(ok(await at('GET', `/resource_instances?resource=${x}img`)))).toEqual([`${x}img:i2`, `${x}img:i1`]);
    expect(refs(ok(await at('GET', `/resource_instances?resource=${x}img&tenant=${x}u`)))).toEqual([`${x}img:i2`]);

    expect(ok(await at('PATCH', `/resource_instances/${x}doc:i1`, { attributes: { a: 2 } })).attributes).toEqual({
      a: 2,
    });
    expect(ok(await at('PATCH', `/resource_instances/${created.id}`, { attributes: { b: 3 } })).attributes).toEqual({
      b: 3,
    });
    expectError(await at('PUT', `/resource_instances/${created.id}`, { attributes: {} }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await at('PATCH', `/resource_instances/${x}doc:ghost`, { attributes: {} }), 404, 'NOT_FOUND');
    expect((await at('DELETE', `/resource_instances/${x}doc:i1`)).status).toBe(204);
    expectError(await at('GET', `/resource_instances/${x}doc:i1`), 404, 'NOT_FOUND');
    expectError(await at('DELETE', `/resource_instances/${x}doc:i1`), 404, 'NOT_FOUND');
  });

  it('duplicate is 409; unknown resource or tenant is 404', async () => {
    expectError(
      await at('POST', '/resource_instances', { key: 'i2', resource: `${x}img`, tenant: `${x}u` }),
      409,
      'DUPLICATE_ENTITY',
    );
    expectError(
      await at('POST', '/resource_instances', { key: 'i9', resource: 'ghost', tenant: `${x}u` }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await at('POST', '/resource_instances', { key: 'i9', resource: `${x}img`, tenant: 'ghost' }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('deleting an instance', () => {
  it('removes its assignments, tuples and group grants', async () => {
    const x = await seedDocs(s, 'del');
    await resource(s, 'delfolder');
    await instance(s, 'delfolder', 'f1', x.tenant);
    ok(
      await s.schema('POST', `/resources/${x.doc}/relations`, {
        key: 'parent',
        name: 'parent',
        subject_resource: 'delfolder',
      }),
    );
    ok(await s.facts('POST', '/relationship_tuples', { subject: 'delfolder:f1', relation: 'parent', object: x.d1 }));
    await assign(s, { user: x.alice, role: x.viewer, resource_instance: x.d1 });
    await group(s, 'delteam:a', x.tenant);
    await grantGroup(s, 'delteam:a', { role: x.editor, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });

    ok(await s.facts('DELETE', `/resource_instances/${x.d1}`));
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
    expect(ok(await s.facts('GET', `/relationship_tuples?object=${x.d1}`))).toEqual([]);
    expect(ok(await s.facts('GET', '/relationship_tuples?subject=delteam:a'))).toEqual([]);
    expect(ok(await s.schema('GET', '/groups/delteam:a/roles')).data).toEqual([]);
    expect(ok(await s.schema('GET', '/groups/delteam:a')).assigned_roles).toEqual([]);
  });

  it('that is a group removes the group with its memberships and links', async () => {
    const x = await seedDocs(s, 'delg');
    await group(s, 'delgteam:a', x.tenant);
    await group(s, 'delgteam:b', x.tenant);
    await addMember(s, 'delgteam:a', x.alice, x.tenant);
    ok(await s.schema('PUT', '/groups/delgteam:a/assign_group', { group_instance_key: 'delgteam:b' }));
    ok(await s.facts('DELETE', '/resource_instances/delgteam:a'));
    expectError(await s.schema('GET', '/groups/direct/delgteam:a'), 404, 'NOT_FOUND');
    expect(ok(await s.schema('GET', '/groups/delgteam:b/children')).data).toEqual([]);
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
  });
});

describe('relationship tuples', () => {
  let x: Awaited<ReturnType<typeof seedDocs>>;
  beforeAll(async () => {
    x = await seedDocs(s, 'tp');
    await resource(s, 'tpfolder');
    await instance(s, 'tpfolder', 'f1', x.tenant);
    await instance(s, 'tpfolder', 'f2', x.tenant);
    await tenant(s, 'tpother');
    ok(
      await s.schema('POST', `/resources/${x.doc}/relations`, {
        key: 'parent',
        name: 'parent',
        subject_resource: 'tpfolder',
      }),
    );
  });

  it('create (idempotent), list with filters, delete', async () => {
    const t = ok(
      await s.facts('POST', '/relationship_tuples', { subject: 'tpfolder:f1', relation: 'parent', object: x.d1 }),
    );
    const relation = ok(await s.schema('GET', `/resources/${x.doc}/relations/parent`));
    expect(t).toMatchObject({
      subject: 'tpfolder:f1',
      relation: 'parent',
      relation_id: relation.id,
      object: x.d1,
      tenant: x.tenant,
    });
    // Tuples never change: updated when created.
    expect(t.updated_at).toBe(t.created_at);
    expect(
      ok(await s.facts('POST', '/relationship_tuples', { subject: 'tpfolder:f1', relation: 'parent', object: x.d1 }))
        .id,
    ).toBe(t.id);
    const tenantId = ok(await s.facts('GET', `/tenants/${x.tenant}`)).id;
    ok(
      await s.facts('POST', '/relationship_tuples', {
        subject: 'tpfolder:f2',
        relation: 'parent',
        object: x.d2,
        tenant: tenantId,
      }),
    );
    const pairs = (items: { subject: string; object: string }[]) => items.map((i) => `${i.subject}>${i.object}`);
    expect(pairs(ok(await s.facts('GET', '/relationship_tuples?subject=tpfolder:f1')))).toEqual([
      `tpfolder:f1>${x.d1}`,
    ]);
    expect(pairs(ok(await s.facts('GET', `/relationship_tuples?object=${x.d2}`)))).toEqual([`tpfolder:f2>${x.d2}`]);
    expect(pairs(ok(await s.facts('GET', '/relationship_tuples?subject_type=tpfolder&relation=parent')))).toHaveLength(
      2,
    );
    expect(
      pairs(ok(await s.facts('GET', `/relationship_tuples?object_type=${x.doc}&tenant=${x.tenant}`))),
    ).toHaveLength(2);
    expect(ok(await s.facts('GET', '/relationship_tuples?relation=nothing'))).toEqual([]);

    expect(
      (await s.facts('DELETE', '/relationship_tuples', { subject: 'tpfolder:f2', relation: 'parent', object: x.d2 }))
        .status,
    ).toBe(204);
    expectError(
      await s.facts('DELETE', '/relationship_tuples', { subject: 'tpfolder:f2', relation: 'parent', object: x.d2 }),
      404,
      'NOT_FOUND',
    );
  });

  it('needs the relation declared on the object type (404) for the subject type (422 MISMATCH_RELATION_TYPE)', async () => {
    expectError(
      await s.facts('POST', '/relationship_tuples', { subject: 'tpfolder:f1', relation: 'owner', object: x.d1 }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.facts('POST', '/relationship_tuples', { subject: x.d2, relation: 'parent', object: x.d1 }),
      422,
      'MISMATCH_RELATION_TYPE',
    );
    expectError(
      await s.facts('POST', '/relationship_tuples', { subject: 'tpfolder:ghost', relation: 'parent', object: x.d1 }),
      404,
      'NOT_FOUND',
    );
  });

  it('a tenant other than the instances’ own, or instances in two tenants, is 422 MISMATCH_RESOURCE_INSTANCES_TENANTS', async () => {
    const r = await s.facts('POST', '/relationship_tuples', {
      subject: 'tpfolder:f2',
      relation: 'parent',
      object: x.d1,
      tenant: 'tpother',
    });
    expectError(r, 422, 'MISMATCH_RESOURCE_INSTANCES_TENANTS');
    await instance(s, 'tpfolder', 'elsewhere', 'tpother');
    const across = await s.facts('POST', '/relationship_tuples', {
      subject: 'tpfolder:elsewhere',
      relation: 'parent',
      object: x.d1,
    });
    expectError(across, 422, 'MISMATCH_RESOURCE_INSTANCES_TENANTS');
    expectError(
      await s.facts('POST', '/relationship_tuples', {
        subject: 'tpfolder:f2',
        relation: 'parent',
        object: x.d1,
        tenant: 'ghost',
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('bulk create and delete, whole or nothing', async () => {
    const ops = [
      { subject: 'tpfolder:f1', relation: 'parent', object: x.d2 },
      { subject: 'tpfolder:f2', relation: 'parent', object: x.d2 },
    ];
    expect(ok(await s.facts('POST', '/relationship_tuples/bulk', { operations: ops }))).toEqual({});
    expect(ok(await s.facts('GET', `/relationship_tuples?object=${x.d2}`))).toHaveLength(2);
    const bad = await s.facts('POST', '/relationship_tuples/bulk', {
      operations: [
        { subject: 'tpfolder:f1', relation: 'parent', object: x.d1 },
        { subject: 'tpfolder:f1', relation: 'nope', object: x.d1 },
      ],
    });
    expectError(bad, 404, 'NOT_FOUND');
    // A tuple that is not there is skipped: a repeated delete converges.
    const missing = { subject: 'tpfolder:f2', relation: 'parent', object: x.d1 };
    expect(ok(await s.facts('DELETE', '/relationship_tuples/bulk', { idents: [...ops, missing] }))).toEqual({});
    expect(ok(await s.facts('GET', `/relationship_tuples?object=${x.d2}`))).toEqual([]);
  });
  it('lists in the detailed read model, at /detailed or with detailed=true', async () => {
    ok(await s.facts('POST', '/relationship_tuples', { subject: 'tpfolder:f2', relation: 'parent', object: x.d2 }));
    const detailed = ok(await s.facts('GET', `/relationship_tuples/detailed?object=${x.d2}`));
    expect(detailed).toEqual({ data: [expect.any(Object)], total_count: 1, page_count: 1 });
    expect(detailed.data[0]).toMatchObject({
      subject: 'tpfolder:f2',
      relation: 'parent',
      object: x.d2,
      subject_details: { key: 'f2', resource: 'tpfolder', tenant: x.tenant, attributes: {} },
      relation_details: { key: 'parent', name: 'parent' },
      object_details: { key: 'd2', resource: x.doc, tenant: x.tenant, attributes: {} },
      tenant_details: { key: x.tenant, name: x.tenant, attributes: {} },
    });
    expect(ok(await s.facts('GET', `/relationship_tuples?object=${x.d2}&detailed=true`))).toEqual(detailed.data);
  });

  it('deleting a relation deletes its tuples', async () => {
    ok(await s.facts('POST', '/relationship_tuples', { subject: 'tpfolder:f1', relation: 'parent', object: x.d1 }));
    ok(await s.schema('DELETE', `/resources/${x.doc}/relations/parent`));
    expect(ok(await s.facts('GET', '/relationship_tuples?relation=parent'))).toEqual([]);
  });
});
