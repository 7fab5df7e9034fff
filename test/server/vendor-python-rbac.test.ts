import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { vendorClient, type VendorClient } from './vendor-client.js';

/**
 * permit-python's own end-to-end RBAC test, `tests/test_rbac_e2e.py` (`setup_env` and
 * `test_permission_check_e2e`), run against `roster serve`. The Python SDK cannot be installed here (no
 * PyPI), so each SDK call is the HTTP request the SDK sends (permit/api/*.py, permit/enforcement/
 * enforcer.py, permit/pdp_api/role_assignments.py), in the test's order, with the test's assertions.
 * Differences from the Python file: no `asyncio.sleep` (roster serve's decision point reads the
 * environment directly) and no mocked-timeout tests (they test the SDK, not the service).
 */
const RESOURCE_KEY = 'document';
const RESOURCE_ACTIONS = ['create', 'read', 'update', 'delete'];
const ADMIN_ROLE_PERMISSIONS = ['document:create', 'document:read'];
const VIEWER_ROLE_PERMISSIONS = ['document:read'];
const TENANT_KEY = 'tesla';
const USER_KEY = 'auth0|elon';

let s: TestServer;
let sdk: VendorClient;
beforeAll(async () => {
  s = await startTestServer();
  sdk = await vendorClient(s.url, ENV_KEY);
});
afterAll(() => s.close());

describe('permit-python tests/test_rbac_e2e.py against roster serve', () => {
  it('setup_env, test_permission_check_e2e and both cleanups', async () => {
    // ---- setup_env
    const document = await sdk.schema('POST', '/resources', {
      key: RESOURCE_KEY,
      name: 'Document',
      urn: 'prn:gdrive:document',
      description: 'google drive document',
      actions: { create: {}, read: {}, update: {}, delete: {} },
      attributes: { private: { type: 'bool', description: 'whether the document is private' } },
    });
    expect(document.id).toBeTruthy();
    expect(document).toMatchObject({
      key: RESOURCE_KEY,
      name: 'Document',
      description: 'google drive document',
      urn: `prn:gdrive:${RESOURCE_KEY}`,
    });
    expect(Object.keys(document.actions ?? {})).toHaveLength(RESOURCE_ACTIONS.length);
    for (const action of RESOURCE_ACTIONS) expect(document.actions[action]).toBeTruthy();

    // resources.list(): pagination_params(1, 100)
    const resources = await sdk.schema('GET', '/resources?page=1&per_page=100');
    expect(resources).toHaveLength(1);
    expect(resources[0]).toMatchObject({
      id: document.id,
      key: document.key,
      name: document.name,
      description: document.description,
      urn: document.urn,
    });

    const admin = await sdk.schema('POST', '/roles', {
      key: 'admin',
      name: 'Admin',
      description: 'an admin role',
      permissions: ADMIN_ROLE_PERMISSIONS,
    });
    expect(admin).toMatchObject({ key: 'admin', name: 'Admin', description: 'an admin role' });
    expect([...admin.permissions].sort()).toEqual([...ADMIN_ROLE_PERMISSIONS].sort());

    const viewer = await sdk.schema('POST', '/roles', { key: 'viewer', name: 'Viewer', description: 'an viewer role' });
    expect(viewer).toMatchObject({ key: 'viewer', name: 'Viewer', description: 'an viewer role' });
    expect(viewer.permissions).toEqual([]);

    const assignedViewer = await sdk.schema('POST', '/roles/viewer/permissions', {
      permissions: VIEWER_ROLE_PERMISSIONS,
    });
    expect(assignedViewer.key).toBe('viewer');
    expect(assignedViewer.permissions).toEqual(VIEWER_ROLE_PERMISSIONS);

    // ---- test_permission_check_e2e
    const tenant = await sdk.facts('POST', '/tenants', {
      key: TENANT_KEY,
      name: 'Tesla Inc',
      description: 'The car company',
    });
    expect(tenant).toMatchObject({ key: TENANT_KEY, name: 'Tesla Inc', description: 'The car company' });
    expect(Object.keys(tenant.attributes ?? {})).toHaveLength(0);

    // users.sync: PUT /users/{key} with the whole user
    const user = await sdk.facts('PUT', `/users/${encodeURIComponent(USER_KEY)}`, {
      key: USER_KEY,
      email: 'elonmusk@tesla.com',
      first_name: 'Elon',
      last_name: 'Musk',
      attributes: { age: 50, favoriteColor: 'red' },
    });
    expect(user).toMatchObject({
      key: USER_KEY,
      email: 'elonmusk@tesla.com',
      first_name: 'Elon',
      last_name: 'Musk',
      attributes: { age: 50, favoriteColor: 'red' },
    });
    expect(Object.keys(user.attributes)).toHaveLength(2);

    // users.assign_role: POST /users/{user}/roles with the assignment without `user`
    const ra = await sdk.facts('POST', `/users/${encodeURIComponent(USER_KEY)}/roles`, {
      role: 'viewer',
      tenant: TENANT_KEY,
    });
    expect(ra).toMatchObject({ user_id: user.id, role_id: viewer.id, tenant_id: tenant.id, role: 'viewer' });
    expect([user.email, user.key]).toContain(ra.user);
    expect(ra.tenant).toBe(tenant.key);

    // permit.check(USER_KEY, 'read', {type, tenant, attributes}): the resource is normalised with context.tenant
    const resourceAttributes = { secret: true };
    const readWithAttributes = {
      type: RESOURCE_KEY,
      tenant: TENANT_KEY,
      attributes: resourceAttributes,
      context: { tenant: TENANT_KEY },
    };
    const document_ = { type: document.key, tenant: tenant.key, context: { tenant: tenant.key } };
    expect(await sdk.check({ key: USER_KEY }, 'read', readWithAttributes)).toBe(true);
    // permit.check(user.dict(), ...): the whole user object, as UserInput keeps it
    const userInput = {
      key: user.key,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      roles: (user.roles ?? []).map((r: { role: string; tenant: string }) => ({ role: r.role, tenant: r.tenant })),
      attributes: user.attributes,
    };
    expect(await sdk.check(userInput, 'read', document_)).toBe(true);
    expect(await sdk.check({ key: user.key }, 'create', document_)).toBe(false);

    const bulk = await sdk.pdp('POST', '/allowed/bulk', [
      { user: { key: USER_KEY }, action: 'read', resource: readWithAttributes, context: {} },
      { user: userInput, action: 'read', resource: document_, context: {} },
      { user: { key: user.key }, action: 'create', resource: document_, context: {} },
    ]);
    expect(bulk.allow.map((a: { allow: boolean }) => a.allow)).toEqual([true, true, false]);

    // permit.pdp_api.role_assignments.list(): GET /local/role_assignments?page=1&per_page=100
    const local = await sdk.pdp('GET', '/local/role_assignments?page=1&per_page=100');
    expect(local).toHaveLength(1);
    expect(local[0]).toMatchObject({ user: user.key, role: viewer.key, tenant: tenant.key });

    await sdk.facts('POST', `/users/${encodeURIComponent(user.key)}/roles`, { role: admin.key, tenant: tenant.key });
    await sdk.facts('DELETE', `/users/${encodeURIComponent(user.key)}/roles`, { role: viewer.key, tenant: tenant.key });

    // users.get_assigned_roles(user=...): GET /role_assignments?page=1&per_page=100&user=...
    const assigned = await sdk.facts(
      'GET',
      `/role_assignments?page=1&per_page=100&user=${encodeURIComponent(user.key)}`,
    );
    expect(assigned).toHaveLength(1);
    expect(assigned[0]).toMatchObject({ user_id: user.id, role_id: admin.id, tenant_id: tenant.id });

    expect(await sdk.check(userInput, 'create', document_)).toBe(true);

    // permit.authorized_users('create', {type, tenant}): POST /authorized_users {action, resource, context}
    const authorized = await sdk.pdp('POST', '/authorized_users', {
      action: 'create',
      resource: { type: document.key, tenant: tenant.key, context: { tenant: tenant.key } },
      context: {},
    });
    expect(authorized.tenant).toBe(tenant.key);
    expect(authorized.resource).toBe(`${document.key}:*`);
    expect(Object.keys(authorized.users)).toEqual([user.key]);
    expect(authorized.users[user.key]).toEqual([
      { user: user.key, role: admin.key, tenant: tenant.key, resource: `__tenant:${tenant.key}` },
    ]);

    // ---- test_permission_check_e2e's cleanup
    await sdk.facts('DELETE', `/tenants/${TENANT_KEY}`);
    await sdk.facts('DELETE', `/users/${encodeURIComponent(USER_KEY)}`);
    expect(await sdk.facts('GET', '/tenants?page=1&per_page=100')).toHaveLength(1); // the default tenant
    expect((await sdk.facts('GET', '/users?page=1&per_page=100')).data).toHaveLength(0);

    // ---- setup_env's cleanup
    await sdk.schema('DELETE', '/roles/admin');
    await sdk.schema('DELETE', '/roles/viewer');
    await sdk.schema('DELETE', `/resources/${RESOURCE_KEY}`);
    expect(await sdk.schema('GET', '/resources?page=1&per_page=100')).toHaveLength(0);
    expect(await sdk.schema('GET', '/roles?page=1&per_page=100')).toHaveLength(0);
  });
});
