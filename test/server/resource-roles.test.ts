import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  allowed,
  assign,
  expectError,
  expectInvalid,
  grantGroup,
  group,
  instance,
  ok,
  resource,
  role,
  tenant,
  user,
} from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const rrole = (res: string, key: string, body: object = {}) =>
  s.schema('POST', `/resources/${res}/roles`, { key, name: key, ...body });

/** A resource `<x>doc` (read, write, share) with roles viewer (read) and editor (write, extends viewer), a tenant, users, instance d1. */
async function world(x: string) {
  await resource(s, `${x}doc`, ['read', 'write', 'share']);
  ok(await rrole(`${x}doc`, 'viewer', { permissions: ['read'] }));
  ok(await rrole(`${x}doc`, 'editor', { permissions: [`${x}doc:write`], extends: ['viewer'] }));
  await tenant(s, `${x}t`);
  await user(s, `${x}alice`);
  await user(s, `${x}bob`);
  await instance(s, `${x}doc`, 'd1', `${x}t`);
  return { doc: `${x}doc`, t: `${x}t`, alice: `${x}alice`, bob: `${x}bob`, d1: `${x}doc:d1` };
}

describe('resource roles: the public operations', () => {
  it('create, read, list, patch and delete, in the public ResourceRoleRead shape', async () => {
    const res = await resource(s, 'file', ['read', 'write']);
    const created = ok(
      await rrole('file', 'reader', { description: 'reads', permissions: ['file:read', 'read'], attributes: { x: 1 } }),
    );
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: 'reader',
      name: 'reader',
      description: 'reads',
      // One stored form, the bare action key, whichever form was sent.
      permissions: ['read'],
      extends: [],
      resource_id: res.id,
      resource: 'file',
      organization_id: expect.any(String),
      project_id: expect.any(String),
      environment_id: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(ok(await s.schema('GET', '/resources/file/roles/reader'))).toEqual(created);
    expect(ok(await s.schema('GET', `/resources/${res.id}/roles/${created.id}`))).toEqual(created);
    expect(ok(await s.schema('GET', '/resources/file/roles'))).toEqual([created]);
    // The resource's read carries its roles, keyed by role key.
    expect(ok(await s.schema('GET', '/resources/file')).roles).toEqual({ reader: created });

    const patched = ok(
      await s.schema('PATCH', '/resources/file/roles/reader', { name: 'Reader', permissions: ['read', 'write'] }),
    );
    expect(patched).toMatchObject({ name: 'Reader', description: 'reads', permissions: ['read', 'write'] });
    // A resource role is not a top-level role.
    expectError(await s.schema('GET', '/roles/reader'), 404, 'NOT_FOUND');
    expect(ok(await s.schema('GET', '/roles')).map((r: { key: string }) => r.key)).not.toContain('reader');

    expect((await s.schema('DELETE', '/resources/file/roles/reader')).status).toBe(204);
    expectError(await s.schema('GET', '/resources/file/roles/reader'), 404, 'NOT_FOUND');
    expectError(await s.schema('DELETE', '/resources/file/roles/reader'), 404, 'NOT_FOUND');
    expectError(await s.schema('GET', '/resources/nope/roles'), 404, 'NOT_FOUND');
  });

  it('the same key on two resources and at the top level are three roles', async () => {
    await resource(s, 'k1', ['read']);
    await resource(s, 'k2', ['read']);
    await role(s, 'kr');
    const a = ok(await rrole('k1', 'kr', { permissions: ['read'] }));
    const b = ok(await rrole('k2', 'kr'));
    expect(a.id).not.toBe(b.id);
    expectError(await rrole('k1', 'kr'), 409, 'DUPLICATE_ENTITY');
  });

  it('refuses a permission of another resource (422), an unknown action (404), unknown or cyclic extends, and bad bodies', async () => {
    await resource(s, 'bad', ['read']);
    await resource(s, 'other', ['read']);
    expectError(await rrole('bad', 'r1', { permissions: ['other:read'] }), 422, 'INVALID_INPUT');
    const unknown = await rrole('bad', 'r1', { permissions: ['fly'] });
    expectError(unknown, 404, 'NOT_FOUND');
    expect(unknown.body.message).toContain("action 'fly' of resource 'bad'");
    expectError(await rrole('bad', 'r1', { extends: ['ghost'] }), 404, 'NOT_FOUND');
    ok(await rrole('bad', 'a'));
    ok(await rrole('bad', 'b', { extends: ['a'] }));
    const cycle = await s.schema('PATCH', '/resources/bad/roles/a', { extends: ['b'] });
    expectError(cycle, 422, 'INVALID_INPUT');
    expect(cycle.body.message).toContain('bad#a -> bad#b -> bad#a');
    expectError(await s.schema('PATCH', '/resources/bad/roles/a', { extends: ['a'] }), 422, 'INVALID_INPUT');
    // A top-level role is not a role of the resource, so it cannot be extended from one.
    await role(s, 'toplevel');
    expectError(await rrole('bad', 'r2', { extends: ['toplevel'] }), 404, 'NOT_FOUND');
    // `granted_to` is served (test/server/granted-to.test.ts): a malformed one is 422.
    expectInvalid(await rrole('bad', 'r3', { granted_to: { users_with_role: [{ role: 'a' }] } }), [
      'body',
      'granted_to',
      'users_with_role',
      0,
      'on_resource',
    ]);
    expectInvalid(await s.schema('POST', '/resources/bad/roles', { name: 'no key' }), ['body', 'key']);
    expectInvalid(await rrole('bad', 'r4', { permissions: ['a:b:c'] }));
  });

  it('adds and removes permissions by key, by resource:action and by action id; unknown ones 404 on add, skipped on remove', async () => {
    const res = await resource(s, 'perm', ['read', 'write', 'share']);
    ok(await rrole('perm', 'r'));
    const added = ok(
      await s.schema('POST', '/resources/perm/roles/r/permissions', {
        permissions: ['read', 'perm:write', res.actions.share.id],
      }),
    );
    expect(added.permissions).toEqual(['read', 'share', 'write']);
    expectError(
      await s.schema('POST', '/resources/perm/roles/r/permissions', { permissions: ['fly'] }),
      404,
      'NOT_FOUND',
    );
    const removed = ok(
      await s.schema('DELETE', '/resources/perm/roles/r/permissions', {
        permissions: ['perm:read', 'fly', res.actions.share.id],
      }),
    );
    expect(removed.permissions).toEqual(['write']);
    // Removing an action from the resource takes it out of its roles.
    ok(await s.schema('PATCH', '/resources/perm', { actions: { read: {}, share: {} } }));
    expect(ok(await s.schema('GET', '/resources/perm/roles/r')).permissions).toEqual([]);
  });

  it('ancestors are the roles a role extends, descendants those that extend it, transitively', async () => {
    await resource(s, 'tree', ['read']);
    for (const [k, ext] of [
      ['viewer', []],
      ['commenter', ['viewer']],
      ['editor', ['commenter']],
      ['owner', ['editor']],
    ] as const) {
      ok(await rrole('tree', k, { extends: [...ext] }));
    }
    const keys = (b: { roles: { key: string }[] }) => b.roles.map((r) => r.key).sort();
    expect(keys(ok(await s.schema('GET', '/resources/tree/roles/editor/ancestors')))).toEqual(['commenter', 'viewer']);
    expect(keys(ok(await s.schema('GET', '/resources/tree/roles/commenter/descendants')))).toEqual(['editor', 'owner']);
    expect(ok(await s.schema('GET', '/resources/tree/roles/viewer/ancestors'))).toEqual({ roles: [] });
    // Deleting a role takes it out of the others' extends.
    expect((await s.schema('DELETE', '/resources/tree/roles/commenter')).status).toBe(204);
    expect(ok(await s.schema('GET', '/resources/tree/roles/editor')).extends).toEqual([]);
  });
});

describe('resources with roles, urn and type_attributes', () => {
  it('POST /resources with roles (extends in any order), read back; PUT replaces the set; PATCH upserts', async () => {
    const created = ok(
      await s.schema('POST', '/resources', {
        key: 'repo',
        name: 'Repo',
        urn: 'urn:example:repo',
        type_attributes: { team: 'core' },
        actions: { read: {}, push: {} },
        roles: {
          maintainer: { name: 'Maintainer', permissions: ['push'], extends: ['contributor'] },
          contributor: { name: 'Contributor', permissions: ['repo:read'] },
        },
      }),
    );
    expect(created).toMatchObject({ urn: 'urn:example:repo', type_attributes: { team: 'core' } });
    expect(created.roles.maintainer).toMatchObject({
      key: 'maintainer',
      name: 'Maintainer',
      permissions: ['push'],
      extends: ['contributor'],
      resource: 'repo',
      resource_id: created.id,
    });
    expect(created.roles.contributor).toMatchObject({ permissions: ['read'], extends: [] });

    const patched = ok(
      await s.schema('PATCH', '/resources/repo', {
        urn: 'urn:example:repo2',
        roles: { admin: { name: 'Admin', extends: ['maintainer'] } },
      }),
    );
    expect(Object.keys(patched.roles).sort()).toEqual(['admin', 'contributor', 'maintainer']);
    expect(patched.urn).toBe('urn:example:repo2');

    const replaced = ok(
      await s.schema('PUT', '/resources/repo', {
        name: 'Repo',
        actions: { read: {}, push: {} },
        roles: { contributor: { name: 'C' } },
      }),
    );
    expect(Object.keys(replaced.roles)).toEqual(['contributor']);
    // A replace resets what it leaves out.
    expect(replaced.roles.contributor).toMatchObject({ name: 'C', permissions: [] });
    expect(replaced).not.toHaveProperty('urn');
    // Leaving `roles` out of a replace leaves the roles alone.
    expect(
      Object.keys(ok(await s.schema('PUT', '/resources/repo', { name: 'Repo', actions: { read: {} } })).roles),
    ).toEqual(['contributor']);
  });

  it('a resource with a bad role is not created at all; relations inside a resource name existing resources', async () => {
    expectError(
      await s.schema('POST', '/resources', {
        key: 'half',
        name: 'h',
        actions: { read: {} },
        roles: { r: { name: 'r', permissions: ['fly'] } },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(await s.schema('GET', '/resources/half'), 404, 'NOT_FOUND');
    expectError(
      await s.schema('POST', '/resources', {
        key: 'cyc',
        name: 'c',
        actions: {},
        roles: { a: { name: 'a', extends: ['b'] }, b: { name: 'b', extends: ['a'] } },
      }),
      422,
      'INVALID_INPUT',
    );
    // Relations inside a resource (test/server/rebac.test.ts): a subject resource that does not exist is a 404, and nothing is written.
    expectError(
      await s.schema('POST', '/resources', {
        key: 'rel',
        name: 'r',
        actions: {},
        relations: { parent: 'no-such-folder' },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(await s.schema('GET', '/resources/rel'), 404, 'NOT_FOUND');
    expectInvalid(
      await s.schema('POST', '/resources', { key: 'rel', name: 'r', actions: {}, relations: { 'bad key!': 'rel' } }),
    );
    expectInvalid(
      await s.schema('POST', '/resources', { key: 'rr', name: 'r', actions: {}, roles: { 'bad key!': { name: 'x' } } }),
    );
  });
});

describe('a role named on an instance', () => {
  it("is the instance type's resource role; reads keep the public shape; tenant-wide names a top-level role", async () => {
    const w = await world('a');
    const read = ok(
      await s.facts('POST', '/role_assignments', { user: w.alice, role: 'editor', resource_instance: w.d1 }),
    );
    expect(read).toMatchObject({ user: w.alice, role: 'editor', tenant: w.t, resource_instance: w.d1 });
    const editor = ok(await s.schema('GET', `/resources/${w.doc}/roles/editor`));
    expect(read.role_id).toBe(editor.id);
    // `editor` exists only as a resource role: no tenant-wide assignment of it.
    expectError(
      await s.facts('POST', '/role_assignments', { user: w.alice, role: 'editor', tenant: w.t }),
      404,
      'NOT_FOUND',
    );
    expect(
      (
        await s.facts('DELETE', '/role_assignments', {
          user: w.alice,
          role: 'editor',
          resource_instance: w.d1,
          tenant: w.t,
        })
      ).status,
    ).toBe(204);
  });

  it('falls back to the top-level role of that key when the type has none', async () => {
    const w = await world('b');
    await role(s, 'bauditor', [`${w.doc}:share`]);
    const read = ok(
      await s.facts('POST', '/role_assignments', { user: w.bob, role: 'bauditor', resource_instance: w.d1 }),
    );
    expect(read.role_id).toBe(ok(await s.schema('GET', '/roles/bauditor')).id);
    expect(await allowed(s, w.bob, 'share', { type: w.doc, key: 'd1' })).toBe(true);
    expect(await allowed(s, w.bob, 'read', { type: w.doc, key: 'd1' })).toBe(false);
    expectError(
      await s.facts('POST', '/role_assignments', { user: w.bob, role: 'nobody', resource_instance: w.d1 }),
      404,
      'NOT_FOUND',
    );
  });

  it('/allowed: a resource role allows its actions and those of the roles it extends, on its own instances only', async () => {
    const w = await world('c');
    await assign(s, { user: w.alice, role: 'editor', resource_instance: w.d1 });
    await instance(s, w.doc, 'd2', w.t);
    expect(await allowed(s, w.alice, 'write', { type: w.doc, key: 'd1' })).toBe(true);
    expect(await allowed(s, w.alice, 'read', { type: w.doc, key: 'd1' })).toBe(true);
    expect(await allowed(s, w.alice, 'share', { type: w.doc, key: 'd1' })).toBe(false);
    expect(await allowed(s, w.alice, 'read', { type: w.doc, key: 'd2' })).toBe(false);
    expect(await allowed(s, w.alice, 'read', { type: w.doc, tenant: w.t })).toBe(false);
    // The same extends chain through bulk checks.
    const bulk = ok(
      await s.call(
        'POST',
        '/allowed/bulk',
        [
          { user: { key: w.alice }, action: 'read', resource: { type: w.doc, key: 'd1' } },
          { user: { key: w.bob }, action: 'read', resource: { type: w.doc, key: 'd1' } },
        ],
        { key: 'test-env-key-abcdefghij' },
      ),
    );
    expect(bulk.allow.map((a: { allow: boolean }) => a.allow)).toEqual([true, false]);
    // Changing the extended role changes the decision.
    ok(await s.schema('DELETE', `/resources/${w.doc}/roles/viewer/permissions`, { permissions: ['read'] }));
    expect(await allowed(s, w.alice, 'read', { type: w.doc, key: 'd1' })).toBe(false);
    // A top-level role with the same key as another resource's role grants nothing on this one's actions by key.
    await resource(s, 'cfolder', ['read']);
    ok(await rrole('cfolder', 'editor', { permissions: ['read'] }));
    expect(await allowed(s, w.alice, 'read', { type: 'cfolder', tenant: w.t })).toBe(false);
  });

  it('group roles resolve the same way, and reach the group members', async () => {
    const w = await world('d');
    await group(s, 'team:d', w.t);
    await addMember(s, 'team:d', w.bob, w.t);
    const g = await grantGroup(s, 'team:d', { role: 'editor', resource: w.doc, resource_instance: 'd1', tenant: w.t });
    expect(JSON.stringify(g)).toContain('editor');
    expect(await allowed(s, w.bob, 'read', { type: w.doc, key: 'd1' })).toBe(true);
    expect(ok(await s.schema('GET', '/groups/team:d/roles')).data).toEqual([
      expect.objectContaining({ key: 'editor', resource_instance: expect.objectContaining({ key: 'd1' }) }),
    ]);
    expect(
      (
        await s.schema('DELETE', '/groups/team:d/roles', {
          role: 'editor',
          resource: w.doc,
          resource_instance: 'd1',
          tenant: w.t,
        })
      ).status,
    ).toBe(204);
    expect(await allowed(s, w.bob, 'read', { type: w.doc, key: 'd1' })).toBe(false);
  });

  it('access requests record the role; approval grants the resource role; a reviewer may change it', async () => {
    const w = await world('e');
    ok(await rrole(w.doc, 'owner', { permissions: ['share'], extends: ['editor'] }));
    ok(
      await s.call('POST', '/v2/elements/p/e/config', {
        key: 'eum',
        name: 'eum',
        elements_type: 'user_management',
        settings: {},
        roles_to_levels: {},
      }),
    );
    ok(await s.facts('POST', `/tenants/${w.t}/users`, { key: w.alice }));
    const base = `/access_requests/eum/user/${w.alice}/tenant/${w.t}`;
    const created = ok(
      await s.facts('POST', base, {
        access_request_details: { tenant: w.t, resource: w.doc, resource_instance: 'd1', role: 'editor' },
        reason: 'work',
      }),
    );
    expectError(
      await s.facts('POST', base, {
        access_request_details: { tenant: w.t, resource: w.doc, resource_instance: 'd1', role: 'ghost' },
      }),
      404,
      'NOT_FOUND',
    );
    // The administrator (the organisation key, through the elements path) decides.
    const approved = ok(
      await s.call('PUT', `/v2/elements/p/e/config/eum/access_requests/${created.id}/approve`, { role: 'owner' }),
    );
    expect(approved.access_request_details.role).toBe('owner');
    expect(await allowed(s, w.alice, 'share', { type: w.doc, key: 'd1' })).toBe(true);
    expect(await allowed(s, w.alice, 'read', { type: w.doc, key: 'd1' })).toBe(true);
  });
});

describe("the public API's other differences", () => {
  it('an assignment naming a missing instance with a tenant creates it; without a tenant it is 404', async () => {
    const w = await world('f');
    expectError(
      await s.facts('POST', '/role_assignments', { user: w.alice, role: 'viewer', resource_instance: `${w.doc}:new1` }),
      404,
      'NOT_FOUND',
    );
    const read = ok(
      await s.facts('POST', '/role_assignments', {
        user: w.alice,
        role: 'viewer',
        resource_instance: `${w.doc}:new1`,
        tenant: w.t,
      }),
    );
    expect(read).toMatchObject({ resource_instance: `${w.doc}:new1`, tenant: w.t });
    expect(ok(await s.facts('GET', `/resource_instances/${w.doc}:new1`))).toMatchObject({ key: 'new1', tenant: w.t });
    ok(
      await s.facts('POST', '/role_assignments/bulk', [
        { user: w.bob, role: 'viewer', resource_instance: `${w.doc}:new2`, tenant: w.t },
      ]),
    );
    ok(
      await s.facts('POST', `/users/${w.bob}/roles`, {
        role: 'editor',
        resource_instance: `${w.doc}:new3`,
        tenant: w.t,
      }),
    );
    expect(await allowed(s, w.bob, 'write', { type: w.doc, key: 'new3' })).toBe(true);
    // The type must exist; a failed bulk creates nothing.
    expectError(
      await s.facts('POST', '/role_assignments', {
        user: w.alice,
        role: 'viewer',
        resource_instance: 'fghost:x',
        tenant: w.t,
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.facts('POST', '/role_assignments/bulk', [
        { user: w.bob, role: 'viewer', resource_instance: `${w.doc}:new4`, tenant: w.t },
        { user: 'nobody', role: 'viewer', resource_instance: `${w.doc}:new5`, tenant: w.t },
      ]),
      404,
      'NOT_FOUND',
    );
    expectError(await s.facts('GET', `/resource_instances/${w.doc}:new4`), 404, 'NOT_FOUND');
  });

  it('GET role_assignments takes several values of user, role and tenant', async () => {
    const w = await world('g');
    await role(s, 'gtop', []);
    await assign(s, { user: w.alice, role: 'viewer', resource_instance: w.d1 });
    await assign(s, { user: w.bob, role: 'editor', resource_instance: w.d1 });
    await assign(s, { user: w.bob, role: 'gtop', tenant: w.t });
    const list = async (query: string) =>
      (ok(await s.facts('GET', `/role_assignments?${query}`)) as { user: string; role: string }[])
        .map((a) => `${a.user}/${a.role}`)
        .sort();
    expect(await list(`tenant=${w.t}&role=viewer&role=editor`)).toEqual([`${w.alice}/viewer`, `${w.bob}/editor`]);
    expect(await list(`user=${w.alice}&user=${w.bob}&tenant=${w.t}&tenant=nope`)).toEqual([
      `${w.alice}/viewer`,
      `${w.bob}/editor`,
      `${w.bob}/gtop`,
    ]);
    expect(await list(`user=${w.bob}&role=gtop`)).toEqual([`${w.bob}/gtop`]);
  });
});
