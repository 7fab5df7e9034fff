import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  assign,
  expectError,
  expectInvalid,
  grantGroup,
  group,
  ok,
  resource,
  role,
  seedDocs,
  tenant,
  user,
} from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const READ_MODEL = {
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  organization_id: expect.any(String),
  project_id: expect.any(String),
  environment_id: expect.any(String),
  created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  updated_at: expect.stringMatching(/Z$/),
};

describe('resources', () => {
  it('create, read, list, patch, put and delete', async () => {
    const created = await resource(s, 'file', ['read'], { description: 'files' });
    expect(created).toEqual({
      ...READ_MODEL,
      key: 'file',
      name: 'file',
      description: 'files',
      attributes: {},
      roles: {},
      relations: {},
      actions: { read: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), key: 'read', name: 'read' } },
    });
    expect(ok(await s.schema('GET', '/resources/file'))).toEqual(created);
    expect(ok(await s.schema('GET', `/resources/${created.id}`)).key).toBe('file');
    expect(ok(await s.schema('GET', '/resources')).map((r: { key: string }) => r.key)).toContain('file');
    expect(ok(await s.schema('GET', '/resources?include_total_count=true'))).toMatchObject({
      data: expect.any(Array),
      total_count: expect.any(Number),
    });

    const patched = ok(
      await s.schema('PATCH', '/resources/file', {
        name: 'Files',
        actions: { read: { name: 'Read', description: 'look' }, share: {} },
      }),
    );
    expect(patched).toMatchObject({
      name: 'Files',
      description: 'files',
      actions: { read: { name: 'Read', description: 'look' }, share: { name: 'share' } },
    });
    // An action keeps its id for as long as it exists.
    expect(patched.actions.read.id).toBe(created.actions.read.id);

    const replaced = ok(await s.schema('PUT', '/resources/file', { name: 'F', actions: { read: {} } }));
    expect(replaced).toMatchObject({ name: 'F', actions: { read: { key: 'read', id: created.actions.read.id } } });
    expect(replaced).not.toHaveProperty('description');
    expect(Object.keys(replaced.actions)).toEqual(['read']);

    expect((await s.schema('DELETE', '/resources/file')).status).toBe(204);
    expectError(await s.schema('GET', '/resources/file'), 404, 'NOT_FOUND');
    expectError(await s.schema('DELETE', '/resources/file'), 404, 'NOT_FOUND');
  });

  it('declares typed attributes, each with an id; a free-form attribute is refused (422)', async () => {
    const r = await resource(s, 'repo', ['read'], { attributes: { private: { type: 'bool', description: 'hidden' } } });
    expect(r.attributes).toEqual({
      private: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), key: 'private', type: 'bool', description: 'hidden' },
    });
    const patched = ok(
      await s.schema('PATCH', '/resources/repo', {
        attributes: { private: { type: 'bool' }, stars: { type: 'number' } },
      }),
    );
    expect(patched.attributes.private.id).toBe(r.attributes.private.id);
    expect(Object.keys(patched.attributes)).toEqual(['private', 'stars']);
    expectInvalid(await s.schema('PATCH', '/resources/repo', { attributes: { owner: 'alice' } }));
    expectInvalid(await s.schema('PATCH', '/resources/repo', { attributes: { owner: { type: 'person' } } }));
  });

  it('a resource may have no actions', async () => {
    expect((await resource(s, 'empty', [])).actions).toEqual({});
  });

  it('a duplicate key is 409 DUPLICATE_ENTITY', async () => {
    await resource(s, 'dup');
    expectError(
      await s.schema('POST', '/resources', { key: 'dup', name: 'again', actions: {} }),
      409,
      'DUPLICATE_ENTITY',
    );
  });

  it.each([['PATCH'], ['PUT']])('%s of a missing resource is 404', async (method) => {
    expectError(await s.schema(method, '/resources/missing', { name: 'x', actions: {} }), 404, 'NOT_FOUND');
  });

  it('removing an action strips it from roles; deleting a resource strips all of its permissions', async () => {
    await resource(s, 'img', ['view', 'crop']);
    await resource(s, 'vid', ['play']);
    await role(s, 'imgrole', ['img:view', 'img:crop', 'vid:play']);
    ok(await s.schema('PUT', '/resources/img', { name: 'img', actions: { view: {} } }));
    expect(ok(await s.schema('GET', '/roles/imgrole')).permissions).toEqual(['img:view', 'vid:play']);
    ok(await s.schema('DELETE', '/resources/img'));
    expect(ok(await s.schema('GET', '/roles/imgrole')).permissions).toEqual(['vid:play']);
  });

  it('deleting a resource deletes its instances, their assignments and relations', async () => {
    const x = await seedDocs(s, 'rd');
    await assign(s, { user: x.alice, role: x.viewer, resource_instance: x.d1 });
    await resource(s, 'rdfolder');
    ok(
      await s.schema('POST', `/resources/${x.doc}/relations`, {
        key: 'parent',
        name: 'parent',
        subject_resource: 'rdfolder',
      }),
    );
    ok(await s.schema('DELETE', `/resources/${x.doc}`));
    expectError(await s.facts('GET', `/resource_instances/${x.d1}`), 404, 'NOT_FOUND');
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
    expectError(await s.schema('GET', `/resources/${x.doc}/relations`), 404, 'NOT_FOUND');
    // The role survives; only the deleted resource's permissions are gone.
    expect(ok(await s.schema('GET', `/roles/${x.editor}`))).toMatchObject({ permissions: [], extends: [x.viewer] });
  });
});

describe('roles', () => {
  it('create, read, list, patch and delete', async () => {
    await resource(s, 'page', ['read', 'edit']);
    const created = await role(s, 'reader', ['page:read']);
    expect(created).toEqual({ ...READ_MODEL, key: 'reader', name: 'reader', permissions: ['page:read'], extends: [] });
    expect(ok(await s.schema('GET', '/roles/reader'))).toEqual(created);
    expect(ok(await s.schema('GET', '/roles')).map((r: { key: string }) => r.key)).toContain('reader');
    const patched = ok(
      await s.schema('PATCH', '/roles/reader', { description: 'reads', permissions: ['page:read', 'page:edit'] }),
    );
    expect(patched).toMatchObject({ name: 'reader', description: 'reads', permissions: ['page:edit', 'page:read'] });
    // Roles have no PUT on the public service.
    expectError(await s.schema('PUT', '/roles/reader', { name: 'Reader' }), 405, 'METHOD_NOT_ALLOWED');
    expect((await s.schema('DELETE', '/roles/reader')).status).toBe(204);
    expectError(await s.schema('GET', '/roles/reader'), 404, 'NOT_FOUND');
  });

  it('a duplicate key is 409', async () => {
    await role(s, 'twice');
    expectError(await s.schema('POST', '/roles', { key: 'twice', name: 'x' }), 409, 'DUPLICATE_ENTITY');
  });

  it.each([
    ['an unknown resource', ['nosuch:read']],
    ['an unknown action', ['page:fly']],
    // Names found on Object.prototype are not actions of a resource.
    ['toString', ['page:toString']],
    ['constructor', ['page:constructor']],
    ['__proto__', ['page:__proto__']],
  ])('a permission naming %s is 404', async (_, permissions) => {
    expectError(await s.schema('POST', '/roles', { key: 'bad', name: 'bad', permissions }), 404, 'NOT_FOUND');
  });

  it('extends must name existing roles', async () => {
    expectError(await s.schema('POST', '/roles', { key: 'ext', name: 'ext', extends: ['ghost'] }), 404, 'NOT_FOUND');
  });

  it('a role may not extend itself, directly or through others (422 INVALID_INPUT)', async () => {
    await role(s, 'ra');
    await role(s, 'rb', [], ['ra']);
    expectError(await s.schema('PATCH', '/roles/ra', { extends: ['ra'] }), 422, 'INVALID_INPUT');
    expectError(await s.schema('PATCH', '/roles/ra', { extends: ['rb'] }), 422, 'INVALID_INPUT');
    expect(ok(await s.schema('GET', '/roles/ra')).extends).toEqual([]);
  });

  it('deleting a role removes its assignments, group grants, derivations and other roles’ extends', async () => {
    const x = await seedDocs(s, 'rl');
    await assign(s, { user: x.alice, role: x.viewer, resource_instance: x.d1 });
    await assign(s, { user: x.bob, role: x.viewer, tenant: x.tenant });
    await group(s, 'rlteam:a', x.tenant);
    await grantGroup(s, 'rlteam:a', { role: x.viewer, resource: x.doc, resource_instance: 'd2', tenant: x.tenant });
    ok(await s.schema('DELETE', `/roles/${x.viewer}`));
    expect(ok(await s.facts('GET', `/role_assignments?role=${x.viewer}`))).toEqual([]);
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
    expect(ok(await s.schema('GET', '/groups/rlteam:a/roles')).data).toEqual([]);
    expect(ok(await s.schema('GET', `/roles/${x.editor}`)).extends).toEqual([]);
  });
});

describe('relations and role derivations', () => {
  it('create, list, read and delete a relation', async () => {
    await resource(s, 'folder');
    await resource(s, 'note');
    const rel = ok(
      await s.schema('POST', '/resources/note/relations', {
        key: 'parent',
        name: 'Parent',
        subject_resource: 'folder',
      }),
    );
    expect(rel).toMatchObject({ key: 'parent', name: 'Parent', object_resource: 'note', subject_resource: 'folder' });
    expect(ok(await s.schema('GET', '/resources/note/relations'))).toEqual({
      data: [rel],
      total_count: 1,
      page_count: 1,
    });
    expect(ok(await s.schema('GET', '/resources/note/relations/parent')).id).toBe(rel.id);
    expectError(
      await s.schema('POST', '/resources/note/relations', { key: 'parent', name: 'x', subject_resource: 'folder' }),
      409,
      'DUPLICATE_ENTITY',
    );
    expectError(
      await s.schema('POST', '/resources/note/relations', { key: 'p2', name: 'x', subject_resource: 'nothing' }),
      404,
      'NOT_FOUND',
    );
    expect((await s.schema('DELETE', '/resources/note/relations/parent')).status).toBe(204);
    expectError(await s.schema('GET', '/resources/note/relations/parent'), 404, 'NOT_FOUND');
    expectError(await s.schema('DELETE', '/resources/note/relations/parent'), 404, 'NOT_FOUND');
  });

  it('create, list and delete an implicit grant (role derivation)', async () => {
    await resource(s, 'dir');
    await resource(s, 'entry');
    await role(s, 'dirowner');
    await role(s, 'entryowner');
    ok(await s.schema('POST', '/resources/entry/relations', { key: 'in', name: 'in', subject_resource: 'dir' }));
    const body = { role: 'dirowner', on_resource: 'dir', linked_by_relation: 'in' };
    const ids = {
      role_id: ok(await s.schema('GET', '/roles/dirowner')).id,
      resource_id: ok(await s.schema('GET', '/resources/dir')).id,
      relation_id: ok(await s.schema('GET', '/resources/entry/relations/in')).id,
    };
    // The public DerivedRoleRuleRead: the deriving role, the resource it is held on, the relation.
    expect(ok(await s.schema('POST', '/resources/entry/roles/entryowner/implicit_grants', body))).toEqual({
      ...body,
      ...ids,
      when: { no_direct_roles_on_object: false },
    });
    // Idempotent: the same derivation twice is one record.
    ok(await s.schema('POST', '/resources/entry/roles/entryowner/implicit_grants', body));
    expect(ok(await s.schema('GET', '/resources/entry/roles/entryowner/implicit_grants'))).toEqual([
      { ...body, ...ids, when: { no_direct_roles_on_object: false } },
    ]);
    expectError(
      await s.schema('POST', '/resources/entry/roles/entryowner/implicit_grants', {
        ...body,
        linked_by_relation: 'nope',
      }),
      404,
      'NOT_FOUND',
    );
    expect((await s.schema('DELETE', '/resources/entry/roles/entryowner/implicit_grants', body)).status).toBe(204);
    expect(ok(await s.schema('GET', '/resources/entry/roles/entryowner/implicit_grants'))).toEqual([]);
    expectError(await s.schema('DELETE', '/resources/entry/roles/entryowner/implicit_grants', body), 404, 'NOT_FOUND');
  });
});

describe('assignments without a tenant', () => {
  it('an assignment needs its tenant to exist ("default" when none is named)', async () => {
    await role(s, 'lonely');
    await user(s, 'lu');
    // The environment came with `default`: without it, an assignment without a tenant has nowhere to go.
    expect((await s.facts('DELETE', '/tenants/default')).status).toBe(204);
    expectError(await s.facts('POST', '/role_assignments', { user: 'lu', role: 'lonely' }), 404, 'NOT_FOUND');
    await tenant(s, 'default');
    const a = await assign(s, { user: 'lu', role: 'lonely' });
    expect(a).toMatchObject({ tenant: 'default' });
    expect(a).not.toHaveProperty('resource_instance');
  });
});
