import { Permit } from 'permitio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

// The official Node SDK, unchanged, pointed at `roster serve` for both the API and the PDP.
describe('the permitio Node SDK against roster serve', () => {
  it('creates a resource, roles, a tenant, syncs users, assigns roles and checks', async () => {
    const permit = new Permit({
      token: ENV_KEY,
      apiUrl: s.url,
      pdp: s.url,
      throwOnError: true,
      log: { level: 'error' },
    });

    const resource = await permit.api.resources.create({
      key: 'doc',
      name: 'Document',
      actions: { read: {}, write: {} },
    });
    expect(resource).toMatchObject({ key: 'doc', name: 'Document' });
    await permit.api.roles.create({ key: 'viewer', name: 'Viewer', permissions: ['doc:read'] });
    // This SDK's RoleCreate type has no `extends`: the editor lists both permissions.
    await permit.api.roles.create({ key: 'editor', name: 'Editor', permissions: ['doc:read', 'doc:write'] });
    expect(await permit.api.tenants.create({ key: 'acme', name: 'Acme' })).toMatchObject({ key: 'acme' });
    // The environment came with the tenant `default`, as on the public service.
    expect(await permit.api.tenants.get('default')).toMatchObject({ key: 'default' });

    const synced = await permit.api.users.sync({ key: 'alice', email: 'alice@example.com', first_name: 'Alice' });
    expect(synced).toMatchObject({ created: true, user: { key: 'alice', email: 'alice@example.com' } });
    expect(await permit.api.users.sync({ key: 'alice', email: 'alice@acme.example' })).toMatchObject({
      created: false,
    });
    await permit.api.users.sync({ key: 'bob' });

    await s.facts('POST', '/resource_instances', { key: 'd1', resource: 'doc', tenant: 'acme' }).then(ok);
    const ra = await permit.api.roleAssignments.assign({ user: 'alice', role: 'editor', tenant: 'acme' });
    expect(ra).toMatchObject({ user: 'alice', role: 'editor', tenant: 'acme' });
    await permit.api.roleAssignments.assign({ user: 'bob', role: 'viewer', tenant: 'default' });

    // Instance, tenant-wide and default-tenant checks; denials.
    expect(await permit.check('alice', 'write', 'doc:d1')).toBe(true);
    expect(await permit.check('alice', 'read', { type: 'doc', key: 'd1', tenant: 'acme' })).toBe(true);
    expect(await permit.check('alice', 'read', { type: 'doc', tenant: 'acme' })).toBe(true);
    expect(await permit.check('bob', 'read', 'doc')).toBe(true);
    expect(await permit.check('bob', 'write', 'doc')).toBe(false);
    expect(await permit.check('bob', 'read', 'doc:d1')).toBe(false);
    expect(await permit.check({ key: 'nobody' }, 'read', 'doc:d1')).toBe(false);
    expect(
      await permit.bulkCheck([
        { user: 'alice', action: 'write', resource: 'doc:d1' },
        { user: 'bob', action: 'write', resource: 'doc:d1' },
      ]),
    ).toEqual([true, false]);

    // getUserPermissions (the PDP's /user-permissions): tenant-level permissions by tenant.
    expect(await permit.getUserPermissions('alice')).toEqual({
      '__tenant:acme': {
        tenant: { key: 'acme', attributes: {} },
        permissions: ['doc:read', 'doc:write'],
        roles: ['editor'],
      },
    });

    // What the SDK wrote is what the API reads.
    // `sync` replaces the user: the first name it did not send is gone (absent, as the public API answers).
    const alice = ok(await s.facts('GET', '/users/alice'));
    expect(alice).toMatchObject({
      email: 'alice@acme.example',
      associated_tenants: [{ tenant: 'acme', roles: ['editor'] }],
    });
    expect(alice).not.toHaveProperty('first_name');
  });

  it('resource roles: a resource created with roles, roles one by one, assignments on instances, checks through extends', async () => {
    const permit = new Permit({
      token: ENV_KEY,
      apiUrl: s.url,
      pdp: s.url,
      throwOnError: true,
      log: { level: 'error' },
    });

    const repo = await permit.api.resources.create({
      key: 'repo',
      name: 'Repository',
      urn: 'urn:example:repo',
      actions: { read: {}, push: {}, delete: {} },
      roles: {
        reader: { name: 'Reader', permissions: ['read'] },
        writer: { name: 'Writer', permissions: ['push'], extends: ['reader'] },
      },
    });
    expect(repo).toMatchObject({
      key: 'repo',
      urn: 'urn:example:repo',
      roles: { reader: { key: 'reader', permissions: ['read'] }, writer: { extends: ['reader'] } },
    });
    // This SDK's ResourceRoleCreate type has no `extends` (the public schema has it): the body is sent as written.
    const ownerBody = { key: 'owner', name: 'Owner', permissions: ['repo:delete'], extends: ['writer'] };
    const owner = await permit.api.resourceRoles.create(
      'repo',
      ownerBody as Parameters<typeof permit.api.resourceRoles.create>[1],
    );
    expect(owner).toMatchObject({
      key: 'owner',
      resource: 'repo',
      resource_id: repo.id,
      permissions: ['delete'],
      extends: ['writer'],
    });
    expect((await permit.api.resourceRoles.list({ resourceKey: 'repo' })).map((r) => r.key).sort()).toEqual([
      'owner',
      'reader',
      'writer',
    ]);
    expect(await permit.api.resourceRoles.get('repo', 'owner')).toMatchObject({ key: 'owner' });
    await permit.api.resourceRoles.update('repo', 'owner', { description: 'owns it' });
    expect(await permit.api.resourceRoles.assignPermissions('repo', 'reader', ['repo:read'])).toMatchObject({
      permissions: ['read'],
    });

    await permit.api.tenants.create({ key: 'oss', name: 'Open source' });
    await permit.api.users.sync({ key: 'carol' });
    await permit.api.users.sync({ key: 'dan' });
    await permit.api.resourceInstances.create({ key: 'roster', resource: 'repo', tenant: 'oss' });
    const ra = await permit.api.roleAssignments.assign({
      user: 'carol',
      role: 'writer',
      resource_instance: 'repo:roster',
      tenant: 'oss',
    });
    expect(ra).toMatchObject({ user: 'carol', role: 'writer', tenant: 'oss', resource_instance: 'repo:roster' });
    // A missing instance named with a tenant is created.
    await permit.api.roleAssignments.assign({
      user: 'dan',
      role: 'owner',
      resource_instance: 'repo:fresh',
      tenant: 'oss',
    });

    expect(await permit.check('carol', 'push', 'repo:roster')).toBe(true);
    // Through `extends`: writer extends reader.
    expect(await permit.check('carol', 'read', { type: 'repo', key: 'roster', tenant: 'oss' })).toBe(true);
    expect(await permit.check('carol', 'delete', 'repo:roster')).toBe(false);
    expect(await permit.check('carol', 'read', 'repo:fresh')).toBe(false);
    // Two levels: owner extends writer extends reader.
    expect(await permit.check('dan', 'read', 'repo:fresh')).toBe(true);
    expect(await permit.check('dan', 'delete', 'repo:fresh')).toBe(true);
    // A resource role is held on instances, not tenant-wide.
    expect(await permit.check('carol', 'read', { type: 'repo', tenant: 'oss' })).toBe(false);

    await permit.api.resourceRoles.removePermissions('repo', 'reader', ['read']);
    expect(await permit.check('carol', 'read', 'repo:roster')).toBe(false);
    await permit.api.roleAssignments.unassign({
      user: 'carol',
      role: 'writer',
      resource_instance: 'repo:roster',
      tenant: 'oss',
    });
    expect(await permit.check('carol', 'push', 'repo:roster')).toBe(false);
    await permit.api.resourceRoles.delete('repo', 'owner');
    expect(await permit.check('dan', 'delete', 'repo:fresh')).toBe(false);
  });
  it('relations, role derivations and tuples: a derived check through a folder', async () => {
    const permit = new Permit({
      token: ENV_KEY,
      apiUrl: s.url,
      pdp: s.url,
      throwOnError: true,
      log: { level: 'error' },
    });
    const roles = {
      viewer: { name: 'Viewer', permissions: ['read'] },
      editor: { name: 'Editor', permissions: ['read', 'write'] },
    };
    await permit.api.resources.create({ key: 'folder', name: 'Folder', actions: { read: {}, write: {} }, roles });
    await permit.api.resources.create({ key: 'page', name: 'Page', actions: { read: {}, write: {} }, roles });
    const relation = await permit.api.resourceRelations.create('page', {
      key: 'parent',
      name: 'Parent',
      subject_resource: 'folder',
    });
    expect(relation).toMatchObject({ key: 'parent', object_resource: 'page', subject_resource: 'folder' });
    // This SDK types the list as an array; the public answer (PaginatedResult_RelationRead_) is an envelope, passed through.
    const listed = (await permit.api.resourceRelations.list({ resourceKey: 'page' })) as unknown as {
      data: { key: string }[];
    };
    expect(listed.data.map((r) => r.key)).toEqual(['parent']);
    expect(await permit.api.resourceRelations.get('page', 'parent')).toMatchObject({ id: relation.id });

    const rule = await permit.api.resourceRoles.createRoleDerivation('page', 'editor', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    expect(rule).toMatchObject({ role: 'editor', on_resource: 'folder', linked_by_relation: 'parent' });
    await permit.api.resourceRoles.updateRoleDerivationConditions('page', 'editor', {
      no_direct_roles_on_object: false,
    });

    await permit.api.tenants.create({ key: 'wiki', name: 'Wiki' });
    await permit.api.users.sync({ key: 'erin' });
    // With a tenant, both instances are created.
    const tuple = await permit.api.relationshipTuples.create({
      subject: 'folder:handbook',
      relation: 'parent',
      object: 'page:intro',
      tenant: 'wiki',
    });
    expect(tuple).toMatchObject({
      subject: 'folder:handbook',
      relation: 'parent',
      object: 'page:intro',
      tenant: 'wiki',
    });
    await permit.api.resourceInstances.create({ key: 'orphan', resource: 'page', tenant: 'wiki' });
    await permit.api.roleAssignments.assign({
      user: 'erin',
      role: 'editor',
      resource_instance: 'folder:handbook',
      tenant: 'wiki',
    });

    expect(await permit.check('erin', 'write', 'page:intro')).toBe(true);
    expect(await permit.check('erin', 'write', 'page:orphan')).toBe(false);
    await permit.api.relationshipTuples.delete({
      subject: 'folder:handbook',
      relation: 'parent',
      object: 'page:intro',
    });
    expect(await permit.check('erin', 'write', 'page:intro')).toBe(false);
    await permit.api.relationshipTuples.bulkRelationshipTuples([
      { subject: 'folder:handbook', relation: 'parent', object: 'page:orphan' },
    ]);
    expect(await permit.check('erin', 'write', 'page:orphan')).toBe(true);
    await permit.api.resourceRoles.deleteRoleDerivation('page', 'editor', {
      role: 'editor',
      on_resource: 'folder',
      linked_by_relation: 'parent',
    });
    expect(await permit.check('erin', 'write', 'page:orphan')).toBe(false);
  });
  // permit-node's own ABAC end-to-end spec (src/tests/e2e/condition-sets.e2e.spec.ts), against roster serve.
  it('ABAC: resource attributes, user attributes, condition sets, set rules and permit.check with attributes', async () => {
    const permit = new Permit({
      token: ENV_KEY,
      apiUrl: s.url,
      pdp: s.url,
      throwOnError: true,
      log: { level: 'error' },
    });
    const resource = await permit.api.resources.create({
      key: 'secret',
      name: 'secret',
      actions: { read: {} },
      attributes: { confidential: { type: 'bool', description: 'whether the document is confidential' } },
    });
    expect(resource.attributes).toMatchObject({ confidential: { type: 'bool' } });
    // A user-set condition on an undefined user attribute is refused (400 MISSING_RESOURCE_ATTRIBUTE, as the live service).
    await expect(
      permit.api.conditionSets.create({
        key: 'cleared',
        name: 'cleared',
        type: 'userset',
        conditions: { allOf: [{ 'user.clearance': { equals: 'top_secret' } }] },
      }),
    ).rejects.toThrow();
    const attribute = await permit.api.resourceAttributes.create('__user', { key: 'clearance', type: 'string' });
    expect(attribute).toMatchObject({ key: 'clearance', resource_key: '__user', built_in: false });
    expect((await permit.api.resourceAttributes.list({ resourceKey: '__user' })).map((a) => a.key)).toContain(
      'clearance',
    );
    expect(await permit.api.resourceAttributes.get('secret', 'confidential')).toMatchObject({ type: 'bool' });
    await permit.api.resourceAttributes.create('secret', { key: 'level', type: 'number' });
    expect(await permit.api.resourceAttributes.update('secret', 'level', { type: 'string' })).toMatchObject({
      type: 'string',
    });
    await permit.api.resourceAttributes.delete('secret', 'level');

    const userSet = await permit.api.conditionSets.create({
      key: 'cleared',
      name: 'cleared',
      type: 'userset',
      conditions: { allOf: [{ 'user.clearance': { equals: 'top_secret' } }] },
    });
    expect(userSet).toMatchObject({ key: 'cleared', type: 'userset' });
    const resourceSet = await permit.api.conditionSets.create({
      key: 'confidential_secrets',
      name: 'confidential',
      type: 'resourceset',
      resource_id: 'secret',
      conditions: { allOf: [{ 'resource.confidential': { equals: true } }] },
    });
    expect(resourceSet).toMatchObject({ key: 'confidential_secrets', type: 'resourceset' });
    expect(await permit.api.conditionSets.get('cleared')).toMatchObject({ id: userSet.id });
    expect(await permit.api.conditionSets.update('cleared', { name: 'Cleared users' })).toMatchObject({
      name: 'Cleared users',
    });
    expect((await permit.api.conditionSets.list()).map((c) => c.key)).toEqual(
      expect.arrayContaining(['cleared', 'confidential_secrets']),
    );

    const rule = await permit.api.conditionSetRules.create({
      user_set: 'cleared',
      permission: 'secret:read',
      resource_set: 'confidential_secrets',
    });
    expect(rule).toMatchObject({
      user_set: 'cleared',
      resource_set: 'confidential_secrets',
      permission: 'secret:read',
    });
    expect(
      await permit.api.conditionSetRules.list({
        userSetKey: 'cleared',
        permissionKey: 'read',
        resourceSetKey: 'confidential_secrets',
      }),
    ).toHaveLength(1);

    const { user } = await permit.api.users.sync({ key: 'matching', attributes: { clearance: 'top_secret' } });
    expect((user.attributes as Record<string, unknown>).clearance).toBe('top_secret');
    await permit.api.users.sync({ key: 'other', attributes: { clearance: 'public' } });
    const confidential = { type: 'secret', tenant: 'default', attributes: { confidential: true } };
    expect(await permit.check('matching', 'read', confidential)).toBe(true);
    expect(await permit.check('other', 'read', confidential)).toBe(false);
    expect(await permit.check('matching', 'read', { ...confidential, attributes: { confidential: false } })).toBe(
      false,
    );
    // Attributes passed in the check win over the stored ones.
    expect(await permit.check({ key: 'other', attributes: { clearance: 'top_secret' } }, 'read', confidential)).toBe(
      true,
    );

    await permit.api.conditionSetRules.delete({
      user_set: 'cleared',
      permission: 'secret:read',
      resource_set: 'confidential_secrets',
    });
    expect(await permit.check('matching', 'read', confidential)).toBe(false);
    await permit.api.conditionSets.delete('cleared');
    await permit.api.conditionSets.delete('confidential_secrets');
    await permit.api.resourceAttributes.delete('__user', 'clearance');
    const sets = await permit.api.conditionSets.list();
    expect(sets.some((c) => c.key === 'cleared' || c.key === 'confidential_secrets')).toBe(false);
  });
});
