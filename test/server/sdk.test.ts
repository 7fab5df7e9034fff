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
    const permit = new Permit({ token: ENV_KEY, apiUrl: s.url, pdp: s.url, throwOnError: true, log: { level: 'error' } });

    const resource = await permit.api.resources.create({ key: 'doc', name: 'Document', actions: { read: {}, write: {} } });
    expect(resource).toMatchObject({ key: 'doc', name: 'Document' });
    await permit.api.roles.create({ key: 'viewer', name: 'Viewer', permissions: ['doc:read'] });
    // This SDK's RoleCreate type has no `extends`: the editor lists both permissions.
    await permit.api.roles.create({ key: 'editor', name: 'Editor', permissions: ['doc:read', 'doc:write'] });
    expect(await permit.api.tenants.create({ key: 'acme', name: 'Acme' })).toMatchObject({ key: 'acme' });
    await permit.api.tenants.create({ key: 'default', name: 'Default' });

    const synced = await permit.api.users.sync({ key: 'alice', email: 'alice@example.com', first_name: 'Alice' });
    expect(synced).toMatchObject({ created: true, user: { key: 'alice', email: 'alice@example.com' } });
    expect(await permit.api.users.sync({ key: 'alice', email: 'alice@acme.example' })).toMatchObject({ created: false });
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

    // What the SDK wrote is what the API reads.
    // `sync` replaces the user: the first name it did not send is gone (absent, as the public API answers).
    const alice = ok(await s.facts('GET', '/users/alice'));
    expect(alice).toMatchObject({ email: 'alice@acme.example', associated_tenants: [{ tenant: 'acme', roles: ['editor'] }] });
    expect(alice).not.toHaveProperty('first_name');
  });
});
