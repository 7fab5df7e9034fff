import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { vendorClient, type VendorClient } from './vendor-client.js';

/**
 * permit-golang's own integration test, `pkg/tests/integration_test.go` (`TestIntegration` with its
 * `checkBulk`, and `TestFactsIntegration`), run against `roster serve`. Go modules cannot be fetched
 * here, so each SDK call is the HTTP request the SDK sends (pkg/api/*.go over the generated
 * pkg/openapi client, pkg/enforcement/*.go), in the test's order, with the test's assertions. The
 * `time.Sleep`s are left out (roster serve's decision point reads the environment directly).
 *
 * What roster serve does not serve, and the port leaves out: action groups (`ResourceActionGroups.Create`,
 * `ListByAttributes`: the test only creates one and lists it back, nothing later depends on it) and the
 * last step, a proxy config (`ProxyConfigs.Create`, `Update`: an API proxy is not part of an
 * authorization environment). docs/service-api.md lists both as not served.
 */
const RUN = 'run0test1';
const key = (postfix: string) => `${RUN}-${postfix}`;
const userKey = key('user');
const resourceKey = key('resource');
const roleKey = key('role');
const marker = key('marker');
const actionKey = key('action');
const tenantKey = key('tenant-1');
const secondTenantKey = key('tenant-2');
const resourceSetKey = key('resourceset');
const userSetKey = key('userset');

let s: TestServer;
let sdk: VendorClient;
beforeAll(async () => {
  s = await startTestServer();
  sdk = await vendorClient(s.url, ENV_KEY);
});
afterAll(() => s.close());

const page = 'page=1&per_page=100';
const q = encodeURIComponent;

describe('permit-golang pkg/tests/integration_test.go against roster serve', () => {
  it('TestIntegration (up to the proxy config, which roster serve does not serve)', async () => {
    const userCreate = { key: userKey, first_name: 'John', last_name: 'Doe', email: 'john@example.com' };
    await sdk.facts('POST', '/users', userCreate);
    // Users.GetAssignedRoles(user, tenant-1, 1, 100) before the tenant exists: none
    expect(await sdk.facts('GET', `/role_assignments?${page}&user=${userKey}&tenant=${tenantKey}`)).toHaveLength(0);
    // the same user again: 409 (PermitErrors.Conflict, API_ERROR)
    const again = await sdk.raw('POST', `/v2/facts/${sdk.projectId}/${sdk.environmentId}/users`, userCreate);
    expect(again.status).toBe(409);

    const actions = { read: { attributes: { marker } }, write: { attributes: { marker } } };
    const resourceRead = await sdk.schema('POST', '/resources', {
      key: resourceKey,
      name: resourceKey,
      actions,
      attributes: { secret: { type: 'bool' } },
    });
    await sdk.schema('POST', '/resources', { key: `${resourceKey}-2`, name: `${resourceKey}-2`, actions });

    // Resources.Search: `*` is a wildcard, `_` is not
    const search = async (text: string) => sdk.schema('GET', `/resources?${page}&search=${q(text)}`);
    expect(await search(resourceKey)).toHaveLength(2);
    expect(await search(`${resourceKey}*`)).toHaveLength(2);
    expect(await search(`${resourceKey}-*`)).toHaveLength(1);
    expect(await search(`${resourceKey}_*`)).toHaveLength(0);

    await sdk.schema('POST', `/resources/${resourceKey}/actions`, {
      key: actionKey,
      name: actionKey,
      attributes: { marker },
    });
    // ResourceActions.ListByAttributes: `attr_<name>=<value>` in the query
    const byMarker = await sdk.schema('GET', `/resources/${resourceKey}/actions?attr_marker=${marker}&${page}`);
    expect(byMarker).toHaveLength(3);
    for (const action of byMarker) expect(action.attributes.marker).toBe(marker);

    // ResourceActionGroups.Create / ListByAttributes: not served (see the header); the test goes on.

    const permissions = [`${resourceKey}:read`, `${resourceKey}:write`];
    await sdk.schema('POST', '/roles', { key: roleKey, name: roleKey, permissions });
    await sdk.schema('POST', '/roles', {
      key: `${roleKey}-private`,
      name: `${roleKey}-private`,
      extends: [roleKey],
      permissions,
      attributes: { marker },
    });
    const roles = await sdk.schema('GET', `/roles?${page}&attr_marker=${marker}`);
    expect(roles).toHaveLength(1);
    expect(roles[0].extends).toEqual([roleKey]);

    const tenantAttributes = { marker };
    await sdk.facts('POST', '/tenants', { key: tenantKey, name: tenantKey, attributes: tenantAttributes });
    await sdk.facts('POST', '/tenants', {
      key: secondTenantKey,
      name: secondTenantKey,
      attributes: { isSecond: true },
    });
    expect(await sdk.facts('GET', `/tenants?attr_marker=${marker}&${page}`)).toHaveLength(1);

    // Users.AssignRole(user, role, tenant-1)
    await sdk.facts('POST', `/users/${userKey}/roles`, { role: roleKey, tenant: tenantKey });

    // Tenants.ListTenantUsers(tenant-1, 1, 100): the page's data
    const tenantUsers = (await sdk.facts('GET', `/tenants/${tenantKey}/users?${page}`)).data;
    expect(tenantUsers).toHaveLength(1);
    expect(tenantUsers[0].key).toBe(userKey);

    // GetUserPermissions(user): POST /user-permissions {user}
    const userPermissions = await sdk.pdp('POST', '/user-permissions', { user: { key: userKey } });
    const inTenant = userPermissions[`__tenant:${tenantKey}`];
    expect(inTenant).toBeDefined();
    expect(inTenant.tenant.key).toBe(tenantKey);
    expect(inTenant.tenant.attributes).toEqual(tenantAttributes);
    expect([...inTenant.permissions].sort()).toEqual([...permissions].sort());

    // RoleAssignments.ListDetailed(1, 100, user, role, tenant-1)
    const detailed = await sdk.facts(
      'GET',
      `/role_assignments?${page}&user=${userKey}&role=${roleKey}&tenant=${tenantKey}&detailed=true`,
    );
    expect(detailed).toHaveLength(1);

    await checkBulk(sdk, 'read');

    await sdk.schema('POST', '/condition_sets', {
      key: userSetKey,
      name: userSetKey,
      type: 'userset',
      conditions: { allOf: [{ allOf: [{ 'subject.email': { contains: '@admin' } }] }] },
    });
    await sdk.schema('POST', '/condition_sets', {
      key: resourceSetKey,
      name: resourceSetKey,
      type: 'resourceset',
      resource_id: resourceRead.id,
      conditions: { allOf: [{ allOf: [{ 'resource.secret': { equals: true } }] }] },
    });
    const cs = await sdk.schema('PATCH', `/condition_sets/${resourceSetKey}`, { description: 'Top Secrets' });
    expect(cs.description).toBe('Top Secrets');

    // ConditionSets.AssignSetPermissions(userset, "resource:action", resourceset)
    await sdk.facts('POST', '/set_rules', {
      user_set: userSetKey,
      permission: `${resourceKey}:${actionKey}`,
      resource_set: resourceSetKey,
    });
    // ConditionSets.ListSetPermissions(userset, action, resourceset): the action alone as `permission`
    const rules = await sdk.facts(
      'GET',
      `/set_rules?user_set=${userSetKey}&permission=${actionKey}&resource_set=${resourceSetKey}`,
    );
    expect(rules).toHaveLength(1);

    const user = { key: userKey };
    expect(await sdk.check(user, 'read', { type: resourceKey, tenant: tenantKey })).toBe(true);

    // FilterObjects(user, "read", nil, ...): one bulk check; resources built with WithID (an `id`)
    const filtered = await sdk.pdp('POST', '/allowed/bulk', [
      { user, action: 'read', resource: { type: resourceKey, id: 'my-random-id', tenant: tenantKey } },
      { user, action: 'read', resource: { type: 'MyResource', id: 'my-random-id-2', tenant: tenantKey } },
    ]);
    expect(filtered.allow.map((a: { allow: boolean }) => a.allow)).toEqual([true, false]);

    // AllTenantsCheck(user, "read", resource without a tenant)
    const allTenants = await sdk.pdp('POST', '/allowed/all-tenants', {
      user,
      action: 'read',
      resource: { type: resourceKey },
    });
    expect(allTenants.allowed_tenants).toHaveLength(1);
    expect(allTenants.allowed_tenants[0].tenant).toEqual({ key: tenantKey, attributes: tenantAttributes });
  });

  it('TestFactsIntegration', async () => {
    const resource = key('facts-resource');
    const role = key('facts-role');
    const user = key('facts-user');
    await sdk.schema('POST', '/resources', {
      key: resource,
      name: resource,
      actions: { read: { attributes: { marker: 'marker' } } },
    });
    await sdk.schema('POST', '/roles', { key: role, name: role, permissions: [`${resource}:read`] });
    await sdk.facts('POST', '/users', { key: user, first_name: 'John', last_name: 'Doe', email: 'john@example.com' });
    await sdk.facts('POST', `/users/${user}/roles`, { role, tenant: 'default' });
    expect(await sdk.check({ key: user }, 'read', { type: resource })).toBe(true);
  });
});

/** `checkBulk`: three users assigned and unassigned in bulk, checked in their tenant and in a missing one. */
async function checkBulk(sdk: VendorClient, actionKey: string) {
  const assignments = [0, 1, 2].map((i) => ({ role: roleKey, tenant: tenantKey, user: key(`bulkuser-${i}`) }));
  for (const a of assignments) await sdk.facts('POST', '/users', { key: a.user });
  const report = await sdk.facts('POST', '/role_assignments/bulk', assignments);
  expect(report.assignments_created).toBe(3);
  for (const a of assignments) {
    const assigned = await sdk.facts('GET', `/role_assignments?${page}&user=${a.user}&tenant=${tenantKey}`);
    expect(assigned[0]).toMatchObject({ tenant: tenantKey, role: roleKey });
  }
  const checks = assignments.map((a, i) => ({
    user: { key: a.user },
    action: actionKey,
    resource: { type: resourceKey, tenant: i % 2 === 0 ? a.tenant : 'non-existing-tenant' },
  }));
  const results = await sdk.pdp('POST', '/allowed/bulk', checks);
  expect(results.allow.map((r: { allow: boolean }) => r.allow)).toEqual([true, false, true]);
  const removed = await sdk.facts('DELETE', '/role_assignments/bulk', assignments);
  expect(removed.assignments_removed).toBe(3);
}
