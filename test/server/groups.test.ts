import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  allowed,
  expectError,
  expectInvalid,
  grantGroup,
  group,
  link,
  ok,
  seedDocs,
  tenant,
  user,
} from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('creating and deleting groups', () => {
  let x: Awaited<ReturnType<typeof seedDocs>>;
  beforeAll(async () => {
    x = await seedDocs(s, 'gc');
    await tenant(s, 'gcother');
  });

  it.each([
    ['a bare key and no type: type "group"', { group_instance_key: 'gcplain' }, 'group:gcplain'],
    ['a bare key and a type', { group_instance_key: 'a', group_resource_type_key: 'gcteam' }, 'gcteam:a'],
    ['a type:key reference', { group_instance_key: 'gcteam:b' }, 'gcteam:b'],
    ['both, agreeing', { group_instance_key: 'gcteam:c', group_resource_type_key: 'gcteam' }, 'gcteam:c'],
  ])('from %s', async (_, body, ref) => {
    const g = ok(await s.schema('POST', '/groups', { ...body, group_tenant: x.tenant }));
    const [type, key] = ref.split(':');
    expect(g).toMatchObject({
      group_instance_key: key,
      group_resource_type_key: type,
      group_tenant: x.tenant,
      assigned_roles: [],
      users: [],
    });
    // A group is a resource instance of its type; the type is a resource.
    expect(ok(await s.facts('GET', `/resource_instances/${ref}`))).toMatchObject({
      key,
      resource: type,
      tenant: x.tenant,
    });
    expect(ok(await s.schema('GET', `/resources/${type}`)).key).toBe(type);
  });

  it('rejects a duplicate (409), an unknown tenant (404), disagreeing type (422 INVALID_INPUT)', async () => {
    expectError(
      await s.schema('POST', '/groups', { group_instance_key: 'gcteam:a', group_tenant: x.tenant }),
      409,
      'DUPLICATE_ENTITY',
    );
    expectError(
      await s.schema('POST', '/groups', { group_instance_key: 'gcteam:z', group_tenant: 'ghost' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.schema('POST', '/groups', {
        group_instance_key: 'gcteam:z',
        group_resource_type_key: 'other',
        group_tenant: x.tenant,
      }),
      422,
      'INVALID_INPUT',
    );
  });

  it.each([
    ['a key over 256 characters', { group_instance_key: 'k'.repeat(257) }],
    ['a type over 256 characters', { group_instance_key: `${'t'.repeat(257)}:k` }],
    ['a type:key whose key is over 256', { group_instance_key: `gcteam:${'k'.repeat(257)}` }],
    ['an empty key', { group_instance_key: 'gcteam:' }],
  ])('rejects %s with 422', async (_, body) => {
    expectInvalid(await s.schema('POST', '/groups', { ...body, group_tenant: x.tenant }), [
      'body',
      'group_instance_key',
    ]);
  });

  it('turns an existing instance into a group only in its own tenant', async () => {
    expectError(
      await s.schema('POST', '/groups', { group_instance_key: x.d1, group_tenant: 'gcother' }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
    expect(
      ok(await s.schema('POST', '/groups', { group_instance_key: x.d1, group_tenant: x.tenant }))
        .group_resource_type_key,
    ).toBe(x.doc);
  });

  it('delete answers 204 and removes memberships, grants and links; then 404', async () => {
    await group(s, 'gcteam:del', x.tenant);
    await group(s, 'gcteam:parent', x.tenant);
    await addMember(s, 'gcteam:del', x.alice, x.tenant);
    await grantGroup(s, 'gcteam:del', { role: x.viewer, resource: x.doc, resource_instance: 'd2', tenant: x.tenant });
    await link(s, 'gcteam:del', 'gcteam:parent');
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd2' })).toBe(true);

    expect((await s.schema('DELETE', '/groups/gcteam:del')).status).toBe(204);
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd2' })).toBe(false);
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
    expect(ok(await s.schema('GET', '/groups/gcteam:parent/children')).data).toEqual([]);
    expect(ok(await s.facts('GET', '/relationship_tuples?subject=gcteam:del'))).toEqual([]);
    expectError(await s.schema('DELETE', '/groups/gcteam:del'), 404, 'NOT_FOUND');
  });
});

describe('roles on groups', () => {
  let x: Awaited<ReturnType<typeof seedDocs>>;
  beforeAll(async () => {
    x = await seedDocs(s, 'gr');
    await group(s, 'grteam:a', x.tenant);
    await group(s, 'grteam:b', x.tenant);
  });

  // The specification's path is singular (`/group/...`); the public API's plural. Both are served.
  it.each([['/groups'], ['/group']])(
    'POST %s/{key}/roles grants the role to members, present and future',
    async (prefix) => {
      await addMember(s, 'grteam:a', x.alice, x.tenant);
      const g = ok(
        await s.schema('POST', `${prefix}/grteam:a/roles`, {
          role: x.viewer,
          resource: x.doc,
          resource_instance: 'd1',
          tenant: x.tenant,
        }),
      );
      expect(g.assigned_roles).toEqual([`${x.d1}#${x.viewer}`]);
      expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);
      expect(await allowed(s, x.bob, 'read', { type: x.doc, key: 'd1' })).toBe(false);
      await addMember(s, 'grteam:a', x.bob, x.tenant);
      expect(await allowed(s, x.bob, 'read', { type: x.doc, key: 'd1' })).toBe(true);
      expect(
        (
          await s.schema('DELETE', `${prefix}/grteam:a/roles`, {
            role: x.viewer,
            resource: x.doc,
            resource_instance: 'd1',
            tenant: x.tenant,
          })
        ).status,
      ).toBe(204);
      expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
      for (const u of [x.alice, x.bob])
        ok(await s.schema('DELETE', `/groups/grteam:a/users/${u}`, { tenant: x.tenant }));
    },
  );

  it('accepts resource_instance as type:key too', async () => {
    ok(
      await s.schema('POST', '/groups/grteam:b/roles', {
        role: x.viewer,
        resource: x.doc,
        resource_instance: x.d2,
        tenant: x.tenant,
      }),
    );
    expectError(
      await s.schema('POST', '/groups/grteam:b/roles', {
        role: x.viewer,
        resource: x.doc,
        resource_instance: 'other:d2',
        tenant: x.tenant,
      }),
      422,
      'INVALID_INPUT',
    );
  });

  it('creates the automatic records: relation <type>_group, the derivation from <type>#member, the tuple', async () => {
    await grantGroup(s, 'grteam:a', { role: x.editor, resource: x.doc, resource_instance: 'd2', tenant: x.tenant });
    const relations = ok(await s.schema('GET', `/resources/${x.doc}/relations`));
    expect(relations.data).toEqual([
      expect.objectContaining({ key: 'grteam_group', object_resource: x.doc, subject_resource: 'grteam' }),
    ]);
    expect(ok(await s.schema('GET', `/resources/${x.doc}/roles/${x.editor}/implicit_grants`))).toEqual([
      expect.objectContaining({
        role: 'member',
        on_resource: 'grteam',
        linked_by_relation: 'grteam_group',
        when: { no_direct_roles_on_object: false },
      }),
    ]);
    const tuples = ok(await s.facts('GET', `/relationship_tuples?subject=grteam:a&object=${x.d2}`));
    expect(tuples).toEqual([
      expect.objectContaining({ subject: 'grteam:a', relation: 'grteam_group', object: x.d2, tenant: x.tenant }),
    ]);
    // The group type's resource role `member` exists (as on the public service: `grteam#member`), no
    // top-level one; membership is that resource role on the group's instance.
    const member = ok(await s.schema('GET', '/resources/grteam/roles/member'));
    expect(member).toMatchObject({ key: 'member', resource: 'grteam' });
    expect((await s.schema('GET', '/roles/member')).status).toBe(404);
    await addMember(s, 'grteam:a', x.alice, x.tenant);
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}&resource_instance=grteam:a`))).toEqual([
      expect.objectContaining({ role: 'member', role_id: member.id, resource_instance: 'grteam:a' }),
    ]);
    // The derivation a group grant creates is from that resource role.
    expect(ok(await s.schema('GET', `/resources/${x.doc}/roles/${x.editor}/implicit_grants`))[0].role_id).toBe(
      member.id,
    );
  });

  it('lists the derivations on the resource read, as the public ResourceRead.roles[R].granted_to', async () => {
    await grantGroup(s, 'grteam:a', { role: x.editor, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
    const doc = ok(await s.schema('GET', `/resources/${x.doc}`));
    expect(doc.roles[x.editor]).toMatchObject({
      key: x.editor,
      resource: x.doc,
      resource_id: doc.id,
      granted_to: {
        id: expect.any(String),
        users_with_role: [
          expect.objectContaining({ role: 'member', on_resource: 'grteam', linked_by_relation: 'grteam_group' }),
        ],
      },
    });
    const listed = ok(await s.schema('GET', '/resources?per_page=100')).find((r: { key: string }) => r.key === x.doc);
    expect(listed.roles).toEqual(doc.roles);
  });

  it('a group role rests on its tuple and derivation: removing either removes the role', async () => {
    // A world of its own: deleting the derivation below takes every grteam role of that kind with it.
    const y = await seedDocs(s, 'gd');
    await group(s, 'gdteam:c', y.tenant);
    await addMember(s, 'gdteam:c', y.alice, y.tenant);
    const grant = { role: y.viewer, resource: y.doc, resource_instance: 'd1', tenant: y.tenant };
    await grantGroup(s, 'gdteam:c', grant);
    expect(await allowed(s, y.alice, 'read', { type: y.doc, key: 'd1' })).toBe(true);
    expect(
      (await s.facts('DELETE', '/relationship_tuples', { subject: 'gdteam:c', relation: 'gdteam_group', object: y.d1 }))
        .status,
    ).toBe(204);
    expect(ok(await s.schema('GET', '/groups/gdteam:c/roles')).data).toEqual([]);
    expect(await allowed(s, y.alice, 'read', { type: y.doc, key: 'd1' })).toBe(false);

    await grantGroup(s, 'gdteam:c', grant);
    const derivation = { role: 'member', on_resource: 'gdteam', linked_by_relation: 'gdteam_group' };
    expect((await s.schema('DELETE', `/resources/${y.doc}/roles/${y.viewer}/implicit_grants`, derivation)).status).toBe(
      204,
    );
    expect(ok(await s.schema('GET', '/groups/gdteam:c/roles')).data).toEqual([]);
    expect(ok(await s.facts('GET', `/relationship_tuples?subject=gdteam:c&object=${y.d1}`))).toEqual([]);
    expect(await allowed(s, y.alice, 'read', { type: y.doc, key: 'd1' })).toBe(false);
    // Granting again brings back the derivation, the tuple and the access.
    await grantGroup(s, 'gdteam:c', grant);
    expect(await allowed(s, y.alice, 'read', { type: y.doc, key: 'd1' })).toBe(true);
  });

  it('removing the last grant on an instance removes the tuple, not before', async () => {
    await grantGroup(s, 'grteam:b', { role: x.editor, resource: x.doc, resource_instance: 'd2', tenant: x.tenant });
    const body = { resource: x.doc, resource_instance: 'd2', tenant: x.tenant };
    ok(await s.schema('DELETE', '/groups/grteam:b/roles', { ...body, role: x.editor }));
    expect(ok(await s.facts('GET', `/relationship_tuples?subject=grteam:b&object=${x.d2}`))).toHaveLength(1);
    ok(await s.schema('DELETE', '/groups/grteam:b/roles', { ...body, role: x.viewer }));
    expect(ok(await s.facts('GET', `/relationship_tuples?subject=grteam:b&object=${x.d2}`))).toEqual([]);
    expectError(await s.schema('DELETE', '/groups/grteam:b/roles', { ...body, role: x.viewer }), 404, 'NOT_FOUND');
  });

  it('rejects unknown group, role or instance (404) and another tenant (422)', async () => {
    const body = { role: x.viewer, resource: x.doc, resource_instance: 'd1', tenant: x.tenant };
    expectError(await s.schema('POST', '/groups/grteam:ghost/roles', body), 404, 'NOT_FOUND');
    expectError(await s.schema('POST', '/groups/grteam:a/roles', { ...body, role: 'ghost' }), 404, 'NOT_FOUND');
    expectError(
      await s.schema('POST', '/groups/grteam:a/roles', { ...body, resource_instance: 'ghost' }),
      404,
      'NOT_FOUND',
    );
    await tenant(s, 'grother');
    await s.facts('POST', '/resource_instances', { key: 'far', resource: x.doc, tenant: 'grother' }).then(ok);
    expectError(
      await s.schema('POST', '/groups/grteam:a/roles', { ...body, resource_instance: 'far', tenant: 'grother' }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
    expectError(
      await s.schema('POST', '/groups/grteam:a/roles', { ...body, tenant: 'grother' }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
  });
});

describe('membership', () => {
  let x: Awaited<ReturnType<typeof seedDocs>>;
  beforeAll(async () => {
    x = await seedDocs(s, 'gm');
    await tenant(s, 'gmother');
    await group(s, 'gmteam:a', x.tenant);
    await grantGroup(s, 'gmteam:a', { role: x.editor, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
  });

  it('PUT adds (idempotently), DELETE removes (204, then 404); access follows', async () => {
    const g = await addMember(s, 'gmteam:a', x.alice, x.tenant);
    expect(g.users).toEqual([ok(await s.facts('GET', `/users/${x.alice}`)).id]);
    await addMember(s, 'gmteam:a', x.alice, x.tenant);
    // editor extends viewer: write directly, read through the extension.
    expect(await allowed(s, x.alice, 'write', { type: x.doc, key: 'd1' })).toBe(true);
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);
    expect(await allowed(s, x.alice, 'write', { type: x.doc, key: 'd2' })).toBe(false);
    expect((await s.schema('DELETE', `/groups/gmteam:a/users/${x.alice}`, { tenant: x.tenant })).status).toBe(204);
    expect(await allowed(s, x.alice, 'write', { type: x.doc, key: 'd1' })).toBe(false);
    expectError(await s.schema('DELETE', `/groups/gmteam:a/users/${x.alice}`, { tenant: x.tenant }), 404, 'NOT_FOUND');
  });

  it('rejects an unknown user or group (404) and another tenant (422)', async () => {
    expectError(await s.schema('PUT', '/groups/gmteam:a/users/ghost', { tenant: x.tenant }), 404, 'NOT_FOUND');
    expectError(await s.schema('PUT', `/groups/gmteam:ghost/users/${x.bob}`, { tenant: x.tenant }), 404, 'NOT_FOUND');
    expectError(
      await s.schema('PUT', `/groups/gmteam:a/users/${x.bob}`, { tenant: 'gmother' }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
    expectError(await s.schema('PUT', `/groups/gmteam:a/users/${x.bob}`, { tenant: 'ghost' }), 404, 'NOT_FOUND');
  });
});

describe("the role member (the group type's resource role)", () => {
  it('deleting it ends every membership; the next membership brings it back', async () => {
    const srv = await startTestServer();
    try {
      const x = await seedDocs(srv);
      await group(srv, 'team:a', x.tenant);
      await grantGroup(srv, 'team:a', { role: x.viewer, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
      await addMember(srv, 'team:a', x.alice, x.tenant);
      ok(await srv.schema('DELETE', '/resources/team/roles/member'));
      expect(ok(await srv.schema('GET', '/groups/team:a/users')).total_count).toBe(0);
      expect(await allowed(srv, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
      await addMember(srv, 'team:a', x.bob, x.tenant);
      expect(ok(await srv.schema('GET', '/resources/team/roles/member')).key).toBe('member');
      expect(await allowed(srv, x.bob, 'read', { type: x.doc, key: 'd1' })).toBe(true);
    } finally {
      await srv.close();
    }
  });
});

describe('groups of groups', () => {
  let x: Awaited<ReturnType<typeof seedDocs>>;
  beforeAll(async () => {
    x = await seedDocs(s, 'gg');
    await tenant(s, 'ggother');
    for (const g of ['a', 'b', 'c', 'd']) await group(s, `ggteam:${g}`, x.tenant);
    await group(s, 'ggdept:x', x.tenant);
    await group(s, 'ggteam:far', 'ggother');
  });

  it('PUT assign_group makes the child’s members members of the parent, with the automatic records', async () => {
    await addMember(s, 'ggteam:a', x.alice, x.tenant);
    await grantGroup(s, 'ggteam:b', { role: x.viewer, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
    await link(s, 'ggteam:a', 'ggteam:b');
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);
    // Idempotent.
    await link(s, 'ggteam:a', 'ggteam:b');

    expect(ok(await s.schema('GET', '/resources/ggteam/relations')).data).toEqual([
      expect.objectContaining({ key: 'group', object_resource: 'ggteam', subject_resource: 'ggteam' }),
    ]);
    expect(ok(await s.schema('GET', '/resources/ggteam/roles/member/implicit_grants'))).toEqual([
      expect.objectContaining({ role: 'member', on_resource: 'ggteam', linked_by_relation: 'group' }),
    ]);
    expect(ok(await s.facts('GET', '/relationship_tuples?subject=ggteam:a&relation=group'))).toEqual([
      expect.objectContaining({ object: 'ggteam:b' }),
    ]);
    expect(ok(await s.schema('GET', '/groups/ggteam:b/children')).data).toEqual([
      expect.objectContaining({ group_resource_type_key: 'ggteam', group_instance_key: 'a' }),
    ]);
    expect(ok(await s.schema('GET', '/groups/ggteam:a/parents')).data).toEqual([
      expect.objectContaining({ group_resource_type_key: 'ggteam', group_instance_key: 'b' }),
    ]);

    expect((await s.schema('DELETE', '/groups/ggteam:a/assign_group', { group_instance_key: 'ggteam:b' })).status).toBe(
      204,
    );
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
    expect(ok(await s.facts('GET', '/relationship_tuples?subject=ggteam:a&relation=group'))).toEqual([]);
    expectError(
      await s.schema('DELETE', '/groups/ggteam:a/assign_group', { group_instance_key: 'ggteam:b' }),
      404,
      'NOT_FOUND',
    );
  });

  it('the same-type rule: groups of different types cannot be linked (422 MISMATCH_GROUP_TYPE)', async () => {
    expectError(
      await s.schema('PUT', '/groups/ggteam:a/assign_group', { group_instance_key: 'ggdept:x' }),
      422,
      'MISMATCH_GROUP_TYPE',
    );
    expect(ok(await s.schema('GET', '/groups/ggteam:a/parents')).data).toEqual([]);
  });

  it('groups of different tenants cannot be linked (422 MISMATCH_RESOURCE_INSTANCES_TENANTS)', async () => {
    expectError(
      await s.schema('PUT', '/groups/ggteam:a/assign_group', { group_instance_key: 'ggteam:far' }),
      422,
      'MISMATCH_RESOURCE_INSTANCES_TENANTS',
    );
  });

  it('the cycle rule: a link that would close a cycle is 422 GROUP_CYCLE, naming the cycle', async () => {
    expectError(
      await s.schema('PUT', '/groups/ggteam:a/assign_group', { group_instance_key: 'ggteam:a' }),
      422,
      'GROUP_CYCLE',
    );
    await link(s, 'ggteam:b', 'ggteam:c');
    await link(s, 'ggteam:c', 'ggteam:d');
    const r = await s.schema('PUT', '/groups/ggteam:d/assign_group', { group_instance_key: 'ggteam:b' });
    expectError(r, 422, 'GROUP_CYCLE');
    expect(r.body.cycle).toEqual(['ggteam:d', 'ggteam:b', 'ggteam:c', 'ggteam:d']);
    expect(r.body.message).toContain('ggteam:d → ggteam:b → ggteam:c → ggteam:d');
    expectError(
      await s.schema('PUT', '/groups/ggteam:c/assign_group', { group_instance_key: 'ggteam:b' }),
      422,
      'GROUP_CYCLE',
    );
    // A diamond is not a cycle.
    await link(s, 'ggteam:b', 'ggteam:d');
  });

  it('two opposite links sent at once: exactly one wins, the other is a cycle', async () => {
    await group(s, 'ggteam:p', x.tenant);
    await group(s, 'ggteam:q', x.tenant);
    const answers = await Promise.all([
      s.schema('PUT', '/groups/ggteam:p/assign_group', { group_instance_key: 'ggteam:q' }),
      s.schema('PUT', '/groups/ggteam:q/assign_group', { group_instance_key: 'ggteam:p' }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(answers.find((r) => r.status === 422)!.body.error_code).toBe('GROUP_CYCLE');
  });

  it('unknown groups are 404', async () => {
    expectError(
      await s.schema('PUT', '/groups/ggteam:ghost/assign_group', { group_instance_key: 'ggteam:a' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.schema('PUT', '/groups/ggteam:a/assign_group', { group_instance_key: 'ggteam:ghost' }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('the precise-grant rule', () => {
  it('team A editor on d1 and team B viewer on d2 do not make A’s members viewers of d1 through B', async () => {
    const x = await seedDocs(s, 'pg');
    await resource3(x);
    await group(s, 'pgteam:a', x.tenant);
    await group(s, 'pgteam:b', x.tenant);
    await grantGroup(s, 'pgteam:a', { role: 'pgwriter', resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
    await grantGroup(s, 'pgteam:b', { role: x.viewer, resource: x.doc, resource_instance: 'd2', tenant: x.tenant });
    await addMember(s, 'pgteam:a', x.alice, x.tenant);
    await addMember(s, 'pgteam:b', x.bob, x.tenant);

    expect(await allowed(s, x.alice, 'write', { type: x.doc, key: 'd1' })).toBe(true);
    // The type-level derivation "pgteam#member → viewer on doc" exists (from B), yet A's member does not
    // read d1, nor d2; B's member reads d2 only.
    expect(ok(await s.schema('GET', `/resources/${x.doc}/roles/${x.viewer}/implicit_grants`))).toHaveLength(1);
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd2' })).toBe(false);
    expect(await allowed(s, x.bob, 'read', { type: x.doc, key: 'd2' })).toBe(true);
    expect(await allowed(s, x.bob, 'read', { type: x.doc, key: 'd1' })).toBe(false);
    expect(await allowed(s, x.bob, 'write', { type: x.doc, key: 'd1' })).toBe(false);
  });

  /** A role with write but no read, so that "reads d1" can only come from a viewer grant. */
  async function resource3(x: { doc: string }) {
    ok(await s.schema('POST', '/roles', { key: 'pgwriter', name: 'writer', permissions: [`${x.doc}:write`] }));
  }
});

describe('transitive membership', () => {
  it('reaches through 20 levels of nesting, and stops when a link is removed', async () => {
    const x = await seedDocs(s, 'tr');
    const depth = 20;
    for (let i = 0; i <= depth; i++) await group(s, `trteam:g${i}`, x.tenant);
    // g(i+1) is a child of g(i): members of g20 are members of every group up to g0.
    for (let i = 0; i < depth; i++) await link(s, `trteam:g${i + 1}`, `trteam:g${i}`);
    await grantGroup(s, 'trteam:g0', { role: x.viewer, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
    await addMember(s, `trteam:g${depth}`, x.alice, x.tenant);
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);

    const nested = ok(await s.schema('GET', '/groups/trteam:g0/users?nested=true'));
    expect(nested.data).toEqual([{ id: expect.any(String), key: x.alice }]);
    expect(ok(await s.schema('GET', '/groups/trteam:g0/users')).data).toEqual([]);

    ok(await s.schema('DELETE', '/groups/trteam:g10/assign_group', { group_instance_key: 'trteam:g9' }));
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
    // A cycle through the whole chain is still caught.
    ok(await s.schema('PUT', '/groups/trteam:g10/assign_group', { group_instance_key: 'trteam:g9' }));
    expectError(
      await s.schema('PUT', '/groups/trteam:g0/assign_group', { group_instance_key: `trteam:g${depth}` }),
      422,
      'GROUP_CYCLE',
    );
  });

  it('a user added later to a nested group gains access at once', async () => {
    await user(s, 'trlate');
    ok(await s.facts('POST', '/tenants/trt/users', { key: 'trlate' }));
    await addMember(s, 'trteam:g15', 'trlate', 'trt');
    expect(await allowed(s, 'trlate', 'read', { type: 'trdoc', key: 'd1' })).toBe(true);
  });
});

describe('membership granted as a role', () => {
  it('a group given `member` on another group makes its members members there, with that group’s grants', async () => {
    const x = await seedDocs(s, 'mg');
    await group(s, 'mgteam:a', x.tenant);
    await group(s, 'mgteam:b', x.tenant);
    await grantGroup(s, 'mgteam:b', { role: x.viewer, resource: x.doc, resource_instance: 'd1', tenant: x.tenant });
    await addMember(s, 'mgteam:a', x.alice, x.tenant);
    // "A role assigned to a group instance is derived to the group's members": here the role is
    // `member` and the instance is group B, so A's members are B's members.
    await grantGroup(s, 'mgteam:a', { role: 'member', resource: 'mgteam', resource_instance: 'b', tenant: x.tenant });
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);
    ok(
      await s.schema('DELETE', '/groups/mgteam:a/roles', {
        role: 'member',
        resource: 'mgteam',
        resource_instance: 'b',
        tenant: x.tenant,
      }),
    );
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(false);
  });
});

describe('a tenant named by id in group bodies', () => {
  it('is the same tenant as its key', async () => {
    const x = await seedDocs(s, 'tid');
    const t = ok(await s.facts('GET', `/tenants/${x.tenant}`));
    await group(s, 'tidteam:a', t.id);
    await addMember(s, 'tidteam:a', x.alice, t.id);
    await grantGroup(s, 'tidteam:a', { role: x.viewer, resource: x.doc, resource_instance: 'd1', tenant: t.id });
    expect(await allowed(s, x.alice, 'read', { type: x.doc, key: 'd1' })).toBe(true);
    expect(ok(await s.schema('GET', '/groups/direct/tidteam:a')).group_tenant).toBe(x.tenant);
  });
});
