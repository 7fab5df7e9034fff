import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addMember, allowed, expectError, expectInvalid, grantGroup, group, ok, tenant, user } from './builders.js';

/**
 * Relations, role derivations (implicit grants) and relationship tuples, and /allowed following them
 * (docs/server.md, "Relations, derivations and tuples").
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ROLES = {
  viewer: { name: 'viewer', permissions: ['read'] },
  editor: { name: 'editor', permissions: ['write'], extends: ['viewer'] },
};

/**
 * Under a prefix `x`: resources `<x>folder` (a folder's `parent` is a folder) and `<x>doc` (its `parent`
 * is a folder), each with resource roles viewer (read) and editor (write, extends viewer); tenant `<x>t`;
 * users `<x>alice`, `<x>bob`. With `derive`, editor and viewer flow from a parent folder to its folders
 * and documents.
 */
async function world(x: string, { derive = true } = {}) {
  const n = { folder: `${x}folder`, doc: `${x}doc`, t: `${x}t`, alice: `${x}alice`, bob: `${x}bob` };
  ok(
    await s.schema('POST', '/resources', {
      key: n.folder,
      name: n.folder,
      actions: { read: {}, write: {} },
      roles: ROLES,
    }),
  );
  ok(
    await s.schema('POST', `/resources/${n.folder}/relations`, {
      key: 'parent',
      name: 'parent',
      subject_resource: n.folder,
    }),
  );
  ok(
    await s.schema('POST', '/resources', {
      key: n.doc,
      name: n.doc,
      actions: { read: {}, write: {} },
      roles: ROLES,
      relations: { parent: n.folder },
    }),
  );
  await tenant(s, n.t);
  await user(s, n.alice);
  await user(s, n.bob);
  if (derive) {
    for (const target of [n.folder, n.doc]) {
      for (const r of ['viewer', 'editor'])
        await derive_(target, r, { role: r, on_resource: n.folder, linked_by_relation: 'parent' });
    }
  }
  return n;
}
const derive_ = async (resource: string, role: string, body: object) =>
  ok(await s.schema('POST', `/resources/${resource}/roles/${role}/implicit_grants`, body));
const tuple = async (subject: string, object: string, t: string, relation = 'parent') =>
  ok(await s.facts('POST', '/relationship_tuples', { subject, relation, object, tenant: t }));
const assignOn = async (u: string, role: string, instance: string, t: string) =>
  ok(await s.facts('POST', '/role_assignments', { user: u, role, resource_instance: instance, tenant: t }));
const can = (u: string, action: string, ref: string) => {
  const [type, key] = ref.split(':');
  return allowed(s, u, action, { type, key });
};

describe('relations', () => {
  it('create, read by key and id, list, inside ResourceCreate and ResourceRead, delete with their tuples', async () => {
    const n = await world('rl', { derive: false });
    const parent = ok(await s.schema('GET', `/resources/${n.doc}/relations/parent`));
    expect(parent).toMatchObject({ key: 'parent', name: 'parent', object_resource: n.doc, subject_resource: n.folder });
    expect(ok(await s.schema('GET', `/resources/${n.doc}/relations/${parent.id}`))).toEqual(parent);
    expect(ok(await s.schema('GET', `/resources/${n.doc}/relations`)).data).toEqual([parent]);
    const folderRead = ok(await s.schema('GET', `/resources/${n.doc}`));
    expect(folderRead.relations).toEqual({
      parent: { resource_id: parent.subject_resource_id, resource: n.folder, relation_name: 'parent' },
    });
    expectError(
      await s.schema('POST', `/resources/${n.doc}/relations`, { key: 'parent', name: 'p', subject_resource: n.folder }),
      409,
      'DUPLICATE_ENTITY',
    );
    expectError(
      await s.schema('POST', `/resources/${n.doc}/relations`, { key: 'owner', name: 'o', subject_resource: 'ghost' }),
      404,
      'NOT_FOUND',
    );
    expectInvalid(await s.schema('POST', `/resources/${n.doc}/relations`, { key: 'owner', name: 'o' }), [
      'body',
      'subject_resource',
    ]);
    // A PATCH naming the relation with another subject would strand its tuples: refused, nothing changed.
    expectError(
      await s.schema('PATCH', `/resources/${n.doc}`, { relations: { parent: n.doc } }),
      422,
      'MISMATCH_RELATION_TYPE',
    );
    // A PUT makes `relations` the resource's relations.
    ok(
      await s.schema('PUT', `/resources/${n.doc}`, {
        name: n.doc,
        actions: { read: {}, write: {} },
        relations: { owner: n.folder },
      }),
    );
    expect(Object.keys(ok(await s.schema('GET', `/resources/${n.doc}`)).relations)).toEqual(['owner']);
    ok(await s.schema('PATCH', `/resources/${n.doc}`, { relations: { parent: n.folder } }));
    await tuple(`${n.folder}:f`, `${n.doc}:d`, n.t);
    expect((await s.schema('DELETE', `/resources/${n.doc}/relations/parent`)).status).toBe(204);
    expectError(await s.schema('GET', `/resources/${n.doc}/relations/parent`), 404, 'NOT_FOUND');
    expect(ok(await s.facts('GET', `/relationship_tuples?object=${n.doc}:d`))).toEqual([]);
  });
});

describe('implicit grants and tuples', () => {
  it('stores `when` and reads it back; refuses a relation that does not link the two resources', async () => {
    const n = await world('ig', { derive: false });
    const rule = { role: 'editor', on_resource: n.folder, linked_by_relation: 'parent' };
    expect(await derive_(n.doc, 'editor', rule)).toMatchObject({ ...rule, when: { no_direct_roles_on_object: false } });
    expect(await derive_(n.doc, 'editor', { ...rule, when: { no_direct_roles_on_object: true } })).toMatchObject({
      when: { no_direct_roles_on_object: true },
    });
    expect(ok(await s.schema('GET', `/resources/${n.doc}/roles/editor/implicit_grants`))).toEqual([
      expect.objectContaining({ ...rule, when: { no_direct_roles_on_object: true } }),
    ]);
    const granted = ok(await s.schema('GET', `/resources/${n.doc}`)).roles.editor.granted_to;
    expect(granted).toMatchObject({
      when: { no_direct_roles_on_object: false },
      users_with_role: [expect.objectContaining({ ...rule, when: { no_direct_roles_on_object: true } })],
    });
    expect(
      ok(
        await s.schema('PUT', `/resources/${n.doc}/roles/editor/implicit_grants/conditions`, {
          no_direct_roles_on_object: true,
        }),
      ),
    ).toEqual({ no_direct_roles_on_object: true });
    expect(ok(await s.schema('GET', `/resources/${n.doc}`)).roles.editor.granted_to.when).toEqual({
      no_direct_roles_on_object: true,
    });
    expectInvalid(
      await s.schema('PUT', `/resources/${n.doc}/roles/editor/implicit_grants/conditions`, {
        no_direct_roles_on_object: 'yes',
      }),
    );
    // doc#parent relates folders: a derivation from doc#viewer through it is refused.
    expectError(
      await s.schema('POST', `/resources/${n.doc}/roles/editor/implicit_grants`, {
        ...rule,
        on_resource: n.doc,
        role: 'viewer',
      }),
      422,
      'MISMATCH_RELATION_TYPE',
    );
    expectError(
      await s.schema('POST', `/resources/${n.doc}/roles/editor/implicit_grants`, {
        ...rule,
        linked_by_relation: 'nope',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.schema('POST', `/resources/${n.doc}/roles/editor/implicit_grants`, { ...rule, role: 'nope' }),
      404,
      'NOT_FOUND',
    );
    expectInvalid(
      await s.schema('POST', `/resources/${n.doc}/roles/editor/implicit_grants`, { ...rule, when: { other: true } }),
    );
    expect(
      (
        await s.schema('DELETE', `/resources/${n.doc}/roles/editor/implicit_grants`, {
          ...rule,
          when: { no_direct_roles_on_object: true },
        })
      ).status,
    ).toBe(204);
    expect(ok(await s.schema('GET', `/resources/${n.doc}/roles/editor/implicit_grants`))).toEqual([]);
  });

  it('refuses a tuple whose subject is not of the relation subject type (MISMATCH_RELATION_TYPE), single and bulk, writing nothing', async () => {
    const n = await world('tm', { derive: false });
    expectError(
      await s.facts('POST', '/relationship_tuples', {
        subject: `${n.doc}:x`,
        relation: 'parent',
        object: `${n.doc}:y`,
        tenant: n.t,
      }),
      422,
      'MISMATCH_RELATION_TYPE',
    );
    const bulk = {
      operations: [
        { subject: `${n.folder}:a`, relation: 'parent', object: `${n.doc}:b`, tenant: n.t },
        { subject: `${n.doc}:c`, relation: 'parent', object: `${n.folder}:a`, tenant: n.t },
      ],
    };
    expectError(await s.facts('POST', '/relationship_tuples/bulk', bulk), 422, 'MISMATCH_RELATION_TYPE');
    expect(ok(await s.facts('GET', `/relationship_tuples?object_type=${n.doc}`))).toEqual([]);
  });
});

describe('/allowed follows derivations over tuples', () => {
  let n: Awaited<ReturnType<typeof world>>;
  beforeAll(async () => {
    n = await world('al');
    // root > f1 > f2 > f3 > doc:deep; f1 > doc:near; and a cycle c1 <-> c2 above doc:loop.
    await tuple(`${n.folder}:root`, `${n.folder}:f1`, n.t);
    await tuple(`${n.folder}:f1`, `${n.folder}:f2`, n.t);
    await tuple(`${n.folder}:f2`, `${n.folder}:f3`, n.t);
    await tuple(`${n.folder}:f3`, `${n.doc}:deep`, n.t);
    await tuple(`${n.folder}:f1`, `${n.doc}:near`, n.t);
    await tuple(`${n.folder}:f1`, `${n.doc}:mid`, n.t);
    await tuple(`${n.folder}:c1`, `${n.folder}:c2`, n.t);
    await tuple(`${n.folder}:c2`, `${n.folder}:c1`, n.t);
    await tuple(`${n.folder}:c2`, `${n.doc}:loop`, n.t);
  });

  it('through 1, 2 and 4 levels of folders, with extends', async () => {
    expect(await can(n.alice, 'write', `${n.doc}:near`)).toBe(false);
    await assignOn(n.alice, 'editor', `${n.folder}:f1`, n.t);
    expect(await can(n.alice, 'write', `${n.doc}:near`)).toBe(true);
    expect(await can(n.alice, 'read', `${n.doc}:near`)).toBe(true);
    expect(await can(n.alice, 'write', `${n.folder}:f3`)).toBe(true);
    expect(await can(n.alice, 'write', `${n.doc}:deep`)).toBe(true);
    // Not upwards: editing f1 says nothing of root.
    expect(await can(n.alice, 'read', `${n.folder}:root`)).toBe(false);
    await assignOn(n.bob, 'viewer', `${n.folder}:root`, n.t);
    expect(await can(n.bob, 'read', `${n.doc}:deep`)).toBe(true);
    expect(await can(n.bob, 'write', `${n.doc}:deep`)).toBe(false);
    // Removing a tuple on the path removes the derived access.
    expect(
      (
        await s.facts('DELETE', '/relationship_tuples', {
          subject: `${n.folder}:f2`,
          relation: 'parent',
          object: `${n.folder}:f3`,
        })
      ).status,
    ).toBe(204);
    expect(await can(n.bob, 'read', `${n.doc}:deep`)).toBe(false);
    expect(await can(n.bob, 'read', `${n.folder}:f2`)).toBe(true);
    await tuple(`${n.folder}:f2`, `${n.folder}:f3`, n.t);
    expect(await can(n.bob, 'read', `${n.doc}:deep`)).toBe(true);
  });

  it('a cycle of tuples ends, and grants what it carries', async () => {
    expect(await can(n.bob, 'read', `${n.doc}:loop`)).toBe(false);
    await assignOn(n.bob, 'viewer', `${n.folder}:c1`, n.t);
    expect(await can(n.bob, 'read', `${n.doc}:loop`)).toBe(true);
    expect(await can(n.bob, 'write', `${n.doc}:loop`)).toBe(false);
    const checks = [`${n.doc}:loop`, `${n.doc}:deep`, `${n.doc}:near`].map((ref) => ({
      user: { key: n.bob },
      action: 'read',
      resource: { type: n.doc, key: ref.split(':')[1] },
    }));
    const bulk = ok(
      await s.call('POST', '/allowed/bulk', { checks }, { key: (await import('../helpers/server.js')).ENV_KEY }),
    );
    expect(bulk.allow.map((a: { allow: boolean }) => a.allow)).toEqual([true, true, true]);
  });

  it("a group's members derive through the folder the group holds a role on", async () => {
    await group(s, `${n.folder}team:eng`, n.t);
    await user(s, `${n.folder}carol`);
    await addMember(s, `${n.folder}team:eng`, `${n.folder}carol`, n.t);
    expect(await can(`${n.folder}carol`, 'write', `${n.doc}:deep`)).toBe(false);
    await grantGroup(s, `${n.folder}team:eng`, {
      role: 'editor',
      resource: n.folder,
      resource_instance: 'f2',
      tenant: n.t,
    });
    expect(await can(`${n.folder}carol`, 'write', `${n.doc}:deep`)).toBe(true);
    expect(await can(`${n.folder}carol`, 'write', `${n.doc}:near`)).toBe(false);
  });

  it('when.no_direct_roles_on_object: a role assigned on the object itself stops the rule; otherwise the rule applies', async () => {
    await user(s, `${n.doc}dan`);
    const dan = `${n.doc}dan`;
    await assignOn(dan, 'editor', `${n.folder}:f1`, n.t);
    await assignOn(dan, 'viewer', `${n.doc}:mid`, n.t);
    // Without `when`: the direct viewer role and the derived editor role both hold.
    expect(await can(dan, 'write', `${n.doc}:mid`)).toBe(true);
    await derive_(n.doc, 'editor', {
      role: 'editor',
      on_resource: n.folder,
      linked_by_relation: 'parent',
      when: { no_direct_roles_on_object: true },
    });
    expect(await can(dan, 'write', `${n.doc}:mid`)).toBe(false);
    expect(await can(dan, 'read', `${n.doc}:mid`)).toBe(true);
    // No direct role on doc:near: the rule still applies there.
    expect(await can(dan, 'write', `${n.doc}:near`)).toBe(true);
    await derive_(n.doc, 'editor', { role: 'editor', on_resource: n.folder, linked_by_relation: 'parent' });
    expect(await can(dan, 'write', `${n.doc}:mid`)).toBe(true);
    // The derived role's own `when` (PUT .../conditions) applies to all its rules.
    ok(
      await s.schema('PUT', `/resources/${n.doc}/roles/editor/implicit_grants/conditions`, {
        no_direct_roles_on_object: true,
      }),
    );
    expect(await can(dan, 'write', `${n.doc}:mid`)).toBe(false);
    expect(await can(dan, 'write', `${n.doc}:near`)).toBe(true);
    ok(
      await s.schema('PUT', `/resources/${n.doc}/roles/editor/implicit_grants/conditions`, {
        no_direct_roles_on_object: false,
      }),
    );
    expect(await can(dan, 'write', `${n.doc}:mid`)).toBe(true);
  });
});

describe('groups stay precise', () => {
  it("team A viewer on doc1 and team B editor on doc2 do not make A's members editors of doc1 (nor give either anything on the other's document)", async () => {
    const n = await world('gp', { derive: false });
    for (const d of ['doc1', 'doc2'])
      ok(await s.facts('POST', '/resource_instances', { key: d, resource: n.doc, tenant: n.t }));
    for (const [g, u] of [
      [`${n.doc}team:a`, n.alice],
      [`${n.doc}team:b`, n.bob],
    ]) {
      await group(s, g, n.t);
      await addMember(s, g, u, n.t);
    }
    await grantGroup(s, `${n.doc}team:a`, { role: 'viewer', resource: n.doc, resource_instance: 'doc1', tenant: n.t });
    await grantGroup(s, `${n.doc}team:b`, { role: 'editor', resource: n.doc, resource_instance: 'doc2', tenant: n.t });
    // The group machinery's derivations (doc#viewer and doc#editor from team#member via <type>_group) and
    // the tuple team:a -> doc1 are there: evaluated naively, they would make A's members editors of doc1.
    expect(ok(await s.schema('GET', `/resources/${n.doc}/roles/editor/implicit_grants`))).toEqual([
      expect.objectContaining({ role: 'member', linked_by_relation: `${n.doc}team_group` }),
    ]);
    expect(await can(n.alice, 'read', `${n.doc}:doc1`)).toBe(true);
    expect(await can(n.alice, 'write', `${n.doc}:doc1`)).toBe(false);
    expect(await can(n.alice, 'read', `${n.doc}:doc2`)).toBe(false);
    expect(await can(n.bob, 'write', `${n.doc}:doc2`)).toBe(true);
    expect(await can(n.bob, 'read', `${n.doc}:doc1`)).toBe(false);
    // A generic derivation on the same resource does not open the group's path either.
    await derive_(n.doc, 'viewer', { role: 'viewer', on_resource: n.folder, linked_by_relation: 'parent' });
    expect(await can(n.alice, 'write', `${n.doc}:doc1`)).toBe(false);
    expect(await can(n.alice, 'read', `${n.doc}:doc2`)).toBe(false);
    expect(await can(n.bob, 'read', `${n.doc}:doc1`)).toBe(false);
  });
});
