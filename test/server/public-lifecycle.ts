import type { TestServer } from '../helpers/server.js';
import { ENV_KEY } from '../helpers/server.js';

/**
 * The public operations the server serves, and one pass over them as a user of the public API would
 * make it. Shared by the contract test (every exchange is public) and the strictness test (what the
 * public API refuses, the server refuses).
 */

const S = '/v2/schema/{proj_id}/{env_id}';
const F = '/v2/facts/{proj_id}/{env_id}';
const E = '/v2/elements/{proj_id}/{env_id}';
const AR = `${F}/access_requests/{elements_config_id}/user/{user_id}/tenant/{tenant_id}`;

/**
 * The operations in the specification's scope (resources, roles, tenants, users, tenant users, role
 * assignments, resource instances, relations, implicit grants, relationship tuples, groups, element
 * configurations, access requests, bulk, the key's scope). The `/v2/elements/.../access_requests`
 * operations are tested with their own routes (routes/elements-access-requests.ts).
 */
export const IN_SCOPE = [
  `GET ${S}/resources`,
  `POST ${S}/resources`,
  `GET ${S}/resources/{resource_id}`,
  `PUT ${S}/resources/{resource_id}`,
  `PATCH ${S}/resources/{resource_id}`,
  `DELETE ${S}/resources/{resource_id}`,
  `GET ${S}/resources/{resource_id}/relations`,
  `POST ${S}/resources/{resource_id}/relations`,
  `GET ${S}/resources/{resource_id}/relations/{relation_id}`,
  `DELETE ${S}/resources/{resource_id}/relations/{relation_id}`,
  `POST ${S}/resources/{resource_id}/roles/{role_id}/implicit_grants`,
  `DELETE ${S}/resources/{resource_id}/roles/{role_id}/implicit_grants`,
  `PUT ${S}/resources/{resource_id}/roles/{role_id}/implicit_grants/conditions`,
  `GET ${S}/resources/{resource_id}/roles`,
  `POST ${S}/resources/{resource_id}/roles`,
  `GET ${S}/resources/{resource_id}/roles/{role_id}`,
  `PATCH ${S}/resources/{resource_id}/roles/{role_id}`,
  `DELETE ${S}/resources/{resource_id}/roles/{role_id}`,
  `POST ${S}/resources/{resource_id}/roles/{role_id}/permissions`,
  `DELETE ${S}/resources/{resource_id}/roles/{role_id}/permissions`,
  `GET ${S}/resources/{resource_id}/roles/{role_id}/ancestors`,
  `GET ${S}/resources/{resource_id}/roles/{role_id}/descendants`,
  `GET ${S}/roles`,
  `POST ${S}/roles`,
  `GET ${S}/roles/{role_id}`,
  `PATCH ${S}/roles/{role_id}`,
  `DELETE ${S}/roles/{role_id}`,
  `POST ${S}/roles/{role_id}/permissions`,
  `DELETE ${S}/roles/{role_id}/permissions`,
  `PUT ${S}/bulk/roles`,
  `POST ${S}/groups`,
  `GET ${S}/groups/direct`,
  `GET ${S}/groups/direct/{group_instance_key}`,
  `DELETE ${S}/groups/{group_instance_key}`,
  `GET ${S}/groups/{group_instance_key}/children`,
  `GET ${S}/groups/{group_instance_key}/parents`,
  `GET ${S}/groups/{group_instance_key}/users`,
  `GET ${S}/groups/{group_instance_key}/roles`,
  `POST ${S}/groups/{group_instance_key}/roles`,
  `DELETE ${S}/groups/{group_instance_key}/roles`,
  `PUT ${S}/groups/{group_instance_key}/users/{user_id}`,
  `DELETE ${S}/groups/{group_instance_key}/users/{user_id}`,
  `PUT ${S}/groups/{group_instance_key}/assign_group`,
  `DELETE ${S}/groups/{group_instance_key}/assign_group`,
  `GET ${F}/users`,
  `POST ${F}/users`,
  `GET ${F}/users/{user_id}`,
  `PUT ${F}/users/{user_id}`,
  `PATCH ${F}/users/{user_id}`,
  `DELETE ${F}/users/{user_id}`,
  `POST ${F}/users/{user_id}/roles`,
  `DELETE ${F}/users/{user_id}/roles`,
  `GET ${F}/tenants`,
  `POST ${F}/tenants`,
  `GET ${F}/tenants/{tenant_id}`,
  `PATCH ${F}/tenants/{tenant_id}`,
  `DELETE ${F}/tenants/{tenant_id}`,
  `GET ${F}/tenants/{tenant_id}/users`,
  `POST ${F}/tenants/{tenant_id}/users`,
  `DELETE ${F}/tenants/{tenant_id}/users/{user_id}`,
  `GET ${F}/role_assignments`,
  `POST ${F}/role_assignments`,
  `DELETE ${F}/role_assignments`,
  `POST ${F}/role_assignments/bulk`,
  `DELETE ${F}/role_assignments/bulk`,
  `GET ${F}/role_assignments/detailed`,
  `GET ${F}/resource_instances`,
  `POST ${F}/resource_instances`,
  `GET ${F}/resource_instances/{instance_id}`,
  `PATCH ${F}/resource_instances/{instance_id}`,
  `DELETE ${F}/resource_instances/{instance_id}`,
  `GET ${F}/resource_instances/detailed`,
  `GET ${F}/relationship_tuples`,
  `POST ${F}/relationship_tuples`,
  `DELETE ${F}/relationship_tuples`,
  `POST ${F}/relationship_tuples/bulk`,
  `DELETE ${F}/relationship_tuples/bulk`,
  `GET ${F}/relationship_tuples/detailed`,
  `POST ${F}/bulk/users`,
  `PUT ${F}/bulk/users`,
  `DELETE ${F}/bulk/users`,
  `POST ${F}/bulk/tenants`,
  `DELETE ${F}/bulk/tenants`,
  `PUT ${F}/bulk/resource_instances`,
  `DELETE ${F}/bulk/resource_instances`,
  `GET ${AR}`,
  `POST ${AR}`,
  `GET ${AR}/{access_request_id}`,
  `PATCH ${AR}/{access_request_id}/reviewer`,
  `PUT ${AR}/{access_request_id}/approve`,
  `PUT ${AR}/{access_request_id}/deny`,
  `PUT ${AR}/{access_request_id}/cancel`,
  `GET ${E}/config`,
  `POST ${E}/config`,
  `GET ${E}/config/{elements_config_id}`,
  `PATCH ${E}/config/{elements_config_id}`,
  `DELETE ${E}/{elements_config_id}`,
  `GET ${S}/users/attributes`,
  `POST ${S}/users/attributes`,
  `GET ${S}/users/attributes/{attribute_id}`,
  `PATCH ${S}/users/attributes/{attribute_id}`,
  `DELETE ${S}/users/attributes/{attribute_id}`,
  `GET ${S}/resources/{resource_id}/attributes`,
  `POST ${S}/resources/{resource_id}/attributes`,
  `GET ${S}/resources/{resource_id}/attributes/{attribute_id}`,
  `PATCH ${S}/resources/{resource_id}/attributes/{attribute_id}`,
  `DELETE ${S}/resources/{resource_id}/attributes/{attribute_id}`,
  `GET ${S}/condition_sets`,
  `POST ${S}/condition_sets`,
  `GET ${S}/condition_sets/{condition_set_id}`,
  `PATCH ${S}/condition_sets/{condition_set_id}`,
  `DELETE ${S}/condition_sets/{condition_set_id}`,
  `GET ${S}/condition_sets/{condition_set_id}/ancestors`,
  `GET ${S}/condition_sets/{condition_set_id}/descendants`,
  `GET ${F}/set_rules`,
  `POST ${F}/set_rules`,
  `DELETE ${F}/set_rules`,
  `GET /v2/api-key/scope`,
  `GET /v2/projects`,
  `POST /v2/projects`,
  `GET /v2/projects/{proj_id}`,
  `GET /v2/projects/{proj_id}/envs`,
  `POST /v2/projects/{proj_id}/envs`,
  `GET /v2/projects/{proj_id}/envs/{env_id}`,
  `GET /v2/pdps/{proj_id}/{env_id}/audit_logs`,
  `GET /v2/pdps/{proj_id}/{env_id}/audit_logs/{log_id}`,
  `GET /v2/history`,
  `GET /v2/history/{event_id}/request`,
  `GET /v2/history/{event_id}/response`,
  `GET /v2/activity`,
];

/** Deprecated reads the server still answers: their answers are checked, their requests are not public. */
export const DEPRECATED = [`GET ${S}/groups`, `GET ${S}/groups/{group_instance_key}`];

/** A template with concrete values: the project given, the environment `e`, every other parameter `x`. */
export function concrete(template: string, project: string): string {
  return template
    .replace('{proj_id}', encodeURIComponent(project))
    .replace('{env_id}', 'e')
    .replace(/\{[a-z_]+\}/g, 'x');
}

/** One pass over every operation, as a user of the public API would make it. */
export async function driveLifecycle(s: TestServer): Promise<void> {
  const sc = (m: string, p: string, b?: unknown) => s.call(m, `/v2/schema/p/e${p}`, b);
  const fa = (m: string, p: string, b?: unknown) => s.call(m, `/v2/facts/p/e${p}`, b);
  const el = (m: string, p: string, b?: unknown) => s.call(m, `/v2/elements/p/e${p}`, b);

  await s.call('GET', '/v2/api-key/scope');
  await s.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY });

  // Projects and environments: made only explicitly (as the public service), read by key or id.
  const made = (
    await s.call('POST', '/v2/projects', {
      key: 'shop',
      name: 'Shop',
      description: 'the shop',
      initial_environments: [{ key: 'prod', name: 'Production', description: 'live' }],
    })
  ).body;
  await s.call('POST', '/v2/projects', { key: 'lab', name: 'Lab' });
  await s.call('POST', '/v2/projects/shop/envs', { key: 'staging', name: 'Staging', description: 'before prod' });
  await s.call('GET', '/v2/projects');
  await s.call('GET', '/v2/projects?page=1&per_page=2');
  await s.call('GET', '/v2/projects/shop');
  await s.call('GET', `/v2/projects/${made?.id}`);
  await s.call('GET', '/v2/projects/p', undefined, { key: ENV_KEY });
  await s.call('GET', '/v2/projects/shop/envs');
  await s.call('GET', '/v2/projects/p/envs?per_page=10', undefined, { key: ENV_KEY });
  await s.call('GET', '/v2/projects/shop/envs/staging');
  await s.call('GET', '/v2/projects/p/envs/e', undefined, { key: ENV_KEY });

  // Schema: resources (with and without descriptions, actions and attributes), relations, roles.
  await sc('POST', '/resources', {
    key: 'doc',
    name: 'Document',
    actions: { read: {}, write: { name: 'Write', description: 'edit it' } },
  });
  await sc('POST', '/resources', {
    key: 'folder',
    name: 'Folder',
    description: 'holds documents',
    actions: { read: {} },
    attributes: { private: { type: 'bool' } },
  });
  await sc('POST', '/resources', { key: 'scratch', name: 'Scratch', actions: {} });
  await sc('GET', '/resources');
  await sc('GET', '/resources?include_total_count=true&per_page=2');
  await sc('GET', '/resources/doc');
  await sc('PATCH', '/resources/doc', { description: 'a document', actions: { read: {}, write: {}, delete: {} } });
  await sc('PUT', '/resources/scratch', { name: 'Scratch pad', actions: { read: {} } });
  await sc('POST', '/resources/doc/relations', { key: 'parent', name: 'Parent', subject_resource: 'folder' });
  await sc('GET', '/resources/doc/relations');
  await sc('GET', '/resources/doc/relations/parent');
  await sc('POST', '/roles', { key: 'viewer', name: 'Viewer', permissions: ['doc:read'] });
  await sc('POST', '/roles', {
    key: 'editor',
    name: 'Editor',
    description: 'edits',
    permissions: ['doc:write'],
    extends: ['viewer'],
  });
  await sc('POST', '/roles', { key: 'admin', name: 'Admin', permissions: ['doc:delete'] });
  await sc('POST', '/roles', { key: 'temp', name: 'Temp' });
  await sc('GET', '/roles');
  await sc('GET', '/roles?include_total_count=true');
  await sc('GET', '/roles/editor');
  await sc('PATCH', '/roles/viewer', { description: 'reads', permissions: ['doc:read', 'folder:read'] });
  await sc('POST', '/roles/temp/permissions', { permissions: ['doc:read', 'folder:read'] });
  await sc('DELETE', '/roles/temp/permissions', { permissions: ['folder:read', 'doc:write'] });
  await sc('PUT', '/bulk/roles', {
    operations: [
      { key: 'auditor', name: 'Auditor', permissions: ['doc:read'] },
      { key: 'temp', name: 'Temporary' },
    ],
  });
  await sc('POST', '/resources/doc/roles/viewer/implicit_grants', {
    role: 'viewer',
    on_resource: 'folder',
    linked_by_relation: 'parent',
  });
  // Resource roles: declared with the resource, and one by one.
  await sc('POST', '/resources', {
    key: 'repo',
    name: 'Repository',
    urn: 'urn:example:repo',
    description: 'code',
    type_attributes: { team: 'core' },
    actions: { read: {}, push: {}, admin: {} },
    roles: {
      contributor: { name: 'Contributor', permissions: ['read'] },
      maintainer: { name: 'Maintainer', description: 'pushes', permissions: ['repo:push'], extends: ['contributor'] },
    },
  });
  await sc('POST', '/resources/repo/roles', {
    key: 'owner',
    name: 'Owner',
    description: 'owns',
    permissions: ['admin'],
    extends: ['maintainer'],
  });
  await sc('POST', '/resources/repo/roles', { key: 'guest', name: 'Guest' });
  await sc('GET', '/resources/repo/roles');
  await sc('GET', '/resources/repo/roles?page=1&per_page=2');
  await sc('GET', '/resources/repo/roles/owner');
  await sc('PATCH', '/resources/repo/roles/guest', { description: 'visits', permissions: ['read'], extends: [] });
  await sc('POST', '/resources/repo/roles/guest/permissions', { permissions: ['repo:push'] });
  await sc('DELETE', '/resources/repo/roles/guest/permissions', { permissions: ['push'] });
  await sc('GET', '/resources/repo/roles/owner/ancestors');
  await sc('GET', '/resources/repo/roles/contributor/descendants');
  await sc('PATCH', '/resources/repo', {
    urn: 'urn:example:repository',
    roles: { reviewer: { name: 'Reviewer', permissions: ['read'] } },
  });
  await sc('GET', '/resources?search=rep');
  // Relations inside a resource; a derivation between resource roles, with `when`, and the role's `when`.
  await sc('POST', '/resources', {
    key: 'page',
    name: 'Page',
    actions: { read: {}, edit: {} },
    roles: { reader: { name: 'Reader', permissions: ['read'] } },
    relations: { in: 'repo' },
  });
  await sc('PATCH', '/resources/page', { relations: { in: 'repo', parent: 'page' } });
  await sc('PUT', '/resources/page', {
    name: 'Page',
    actions: { read: {}, edit: {} },
    relations: { in: 'repo', parent: 'page' },
  });
  await sc('POST', '/resources/page/roles/reader/implicit_grants', {
    role: 'contributor',
    on_resource: 'repo',
    linked_by_relation: 'in',
    when: { no_direct_roles_on_object: true },
  });
  await sc('POST', '/resources/page/roles/reader/implicit_grants', {
    role: 'reader',
    on_resource: 'page',
    linked_by_relation: 'parent',
  });
  await sc('PUT', '/resources/page/roles/reader/implicit_grants/conditions', { no_direct_roles_on_object: false });
  await sc('GET', '/resources/page');
  await sc('GET', '/resources/page/relations/in');
  await sc('GET', '/roles?search=view');

  // Facts: tenants, users, memberships, instances, assignments, tuples.
  await fa('POST', '/tenants', { key: 'acme', name: 'Acme', description: 'a customer' });
  // A new environment comes with the tenant `default`, as on the public service.
  await fa('GET', '/tenants/default');
  await fa('GET', '/tenants');
  await fa('GET', '/tenants?search=acm');
  await fa('GET', '/tenants?include_total_count=true');
  await fa('GET', '/tenants/acme');
  await fa('PATCH', '/tenants/default', { name: 'Default tenant', attributes: { tier: 'free' } });
  await fa('POST', '/users', { key: 'alice', email: 'alice@acme.example', first_name: 'Alice', last_name: 'Liddell' });
  await fa('POST', '/users', { key: 'bob' });
  await fa('PUT', '/users/carol', { key: 'carol', first_name: 'Carol' });
  await fa('PUT', '/users/carol', { key: 'carol', first_name: 'Caroline' });
  await fa('PATCH', '/users/bob', { email: 'bob@acme.example' });
  await fa('GET', '/users/alice');
  await fa('POST', '/tenants/acme/users', { key: 'dave', email: 'dave@acme.example' });
  await fa('GET', '/tenants/acme/users');
  await fa('POST', '/resource_instances', { key: 'd1', resource: 'doc', tenant: 'acme' });
  await fa('POST', '/resource_instances', {
    key: 'd2',
    resource: 'doc',
    tenant: 'acme',
    attributes: { owner: 'alice' },
  });
  await fa('POST', '/resource_instances', { key: 'f1', resource: 'folder', tenant: 'acme' });
  await fa('GET', '/resource_instances');
  await fa('GET', '/resource_instances?tenant=acme&include_total_count=true');
  await fa('GET', '/resource_instances/doc:d1');
  await fa('PATCH', '/resource_instances/doc:d1', { attributes: { owner: 'bob' } });
  await fa('POST', '/role_assignments', { user: 'alice', role: 'admin', tenant: 'acme' });
  await fa('POST', '/role_assignments', { user: 'bob', role: 'editor', resource_instance: 'doc:d1', tenant: 'acme' });
  await fa('POST', '/users/carol/roles', { role: 'viewer', tenant: 'acme' });
  await fa('POST', '/role_assignments/bulk', [
    { user: 'dave', role: 'viewer', tenant: 'acme' },
    { user: 'carol', role: 'editor', resource_instance: 'doc:d2' },
  ]);
  await fa('GET', '/role_assignments');
  await fa('GET', '/role_assignments?user=bob&per_page=1000&include_total_count=true');
  // Resource roles held on instances; a missing instance named with a tenant is created.
  await fa('POST', '/role_assignments', {
    user: 'alice',
    role: 'maintainer',
    resource_instance: 'repo:r1',
    tenant: 'acme',
  });
  await fa('POST', '/users/bob/roles', { role: 'owner', resource_instance: 'repo:r2', tenant: 'acme' });
  await fa('POST', '/role_assignments/bulk', [
    { user: 'carol', role: 'contributor', resource_instance: 'repo:r1', tenant: 'acme' },
  ]);
  await fa('GET', '/role_assignments?role=maintainer&role=owner&user=alice&user=bob&tenant=acme&tenant=default');
  await fa('GET', '/role_assignments/detailed');
  await fa('GET', '/role_assignments/detailed?tenant=acme&per_page=1000');
  await fa('GET', '/users');
  await fa('GET', '/users?search=a&role=viewer');
  await fa('POST', '/relationship_tuples', {
    subject: 'folder:f1',
    relation: 'parent',
    object: 'doc:d1',
    tenant: 'acme',
  });
  await fa('POST', '/relationship_tuples/bulk', {
    operations: [{ subject: 'folder:f1', relation: 'parent', object: 'doc:d2' }],
  });
  await fa('POST', '/relationship_tuples', { subject: 'repo:r1', relation: 'in', object: 'page:p1', tenant: 'acme' });
  await fa('POST', '/relationship_tuples/bulk', {
    operations: [{ subject: 'page:p1', relation: 'parent', object: 'page:p2', tenant: 'acme' }],
  });
  // With a tenant, a missing subject or object is created in it.
  await fa('POST', '/relationship_tuples', {
    subject: 'folder:f2',
    relation: 'parent',
    object: 'doc:d3',
    tenant: 'acme',
  });
  await fa('POST', '/relationship_tuples/bulk', {
    operations: [{ subject: 'folder:f3', relation: 'parent', object: 'doc:d4', tenant: 'acme' }],
  });
  await fa('GET', '/relationship_tuples');
  await fa('GET', '/relationship_tuples?object_type=doc&include_total_count=true');
  await fa('GET', '/relationship_tuples/detailed');
  await fa('GET', '/relationship_tuples/detailed?subject=folder:f1');
  await fa('GET', '/resource_instances/detailed');
  await fa('GET', '/resource_instances/detailed?tenant=acme&resource=doc&search=d1&search=d2&page=1&per_page=10');

  // Groups.
  await sc('POST', '/groups', { group_instance_key: 'eng', group_resource_type_key: 'team', group_tenant: 'acme' });
  await sc('POST', '/groups', { group_instance_key: 'staff', group_resource_type_key: 'team', group_tenant: 'acme' });
  await sc('POST', '/groups', { group_instance_key: 'temp', group_tenant: 'acme' });
  await sc('PUT', '/groups/team:eng/users/alice', { tenant: 'acme' });
  await sc('PUT', '/groups/team:eng/users/bob', { tenant: 'acme' });
  await sc('POST', '/groups/team:eng/roles', {
    role: 'editor',
    resource: 'doc',
    resource_instance: 'd2',
    tenant: 'acme',
  });
  await sc('POST', '/groups/team:staff/roles', {
    role: 'viewer',
    resource: 'doc',
    resource_instance: 'doc:d1',
    tenant: 'acme',
  });
  await sc('POST', '/groups/team:staff/roles', {
    role: 'contributor',
    resource: 'repo',
    resource_instance: 'r1',
    tenant: 'acme',
  });
  await sc('PUT', '/groups/team:eng/assign_group', { group_instance_key: 'team:staff' });
  await sc('GET', '/groups/direct');
  await sc('GET', '/groups/direct?tenant=acme&resource=team&search=en&page=1&per_page=10');
  await sc('GET', '/groups/direct/team:eng');
  await sc('GET', '/groups/team:staff/children');
  await sc('GET', '/groups/team:eng/parents');
  await sc('GET', '/groups/team:eng/users');
  await sc('GET', '/groups/team:eng/roles?per_page=5');
  await sc('GET', '/groups');
  await sc('GET', '/groups/team:eng');

  // Who reviews, and access requests (carol asks; alice, an admin, reviews).
  await el('POST', '/config', {
    key: 'um',
    name: 'User management',
    elements_type: 'user_management',
    settings: {},
    roles_to_levels: { LEVEL_1: ['admin'], LEVEL_2: [], LEVEL_3: ['viewer'], LEVEL_4: [] },
  });
  await el('POST', '/config', {
    key: 'old',
    name: 'Old',
    elements_type: 'user_management',
    settings: { theme: 'dark' },
    roles_to_levels: {},
  });
  await el('GET', '/config');
  await el('GET', '/config/um');
  await el('PATCH', '/config/old', { name: 'Older', roles_to_levels: { LEVEL_1: ['editor'] } });
  const P = '/access_requests/um/user/carol/tenant/acme';
  const first = (
    await fa('POST', P, {
      access_request_details: { tenant: 'acme', resource: 'doc', resource_instance: 'd2', role: 'admin' },
      reason: 'need it',
    })
  ).body;
  const second = (await fa('POST', P, { access_request_details: { tenant: 'acme', role: 'editor' } })).body;
  const third = (
    await fa('POST', P, {
      access_request_details: { tenant: 'acme', resource: 'doc', role: 'viewer' },
      reason: 'reading',
    })
  ).body;
  await fa('GET', P);
  await fa('GET', `${P}?status=pending&role=admin&resource=doc&resource_instance_id=d2&page=1&per_page=10`);
  await fa('GET', `${P}/${first.id}`);
  const R = '/access_requests/um/user/alice/tenant/acme';
  await fa('PATCH', `${R}/${first.id}/reviewer`, { reviewer_comment: 'an editor is enough', role: 'editor' });
  await fa('PUT', `${R}/${first.id}/approve`, { reviewer_comment: 'ok' });
  await fa('PUT', `${R}/${second.id}/deny`, {});
  await fa('PUT', `${P}/${third.id}/cancel`);
  await fa('GET', `${R}?status=approved`);

  // Bulk writes.
  await fa('POST', '/bulk/tenants', {
    operations: [
      { key: 'globex', name: 'Globex' },
      { key: 'initech', name: 'Initech', attributes: { size: 3 } },
    ],
  });
  await fa('POST', '/bulk/users', {
    operations: [
      { key: 'erin' },
      { key: 'frank', email: 'frank@globex.example', role_assignments: [{ role: 'viewer', tenant: 'globex' }] },
    ],
  });
  await fa('PUT', '/bulk/users', { operations: [{ key: 'erin', first_name: 'Erin' }, { key: 'bulk' }] });
  await fa('PUT', '/bulk/resource_instances', {
    operations: [
      { key: 'g1', resource: 'doc', tenant: 'globex' },
      { key: 'd1', resource: 'doc', tenant: 'acme', attributes: { owner: 'carol' } },
    ],
  });
  await fa('DELETE', '/bulk/resource_instances', { idents: ['doc:g1'] });
  await fa('DELETE', '/bulk/users', { idents: ['erin', 'frank'] });
  await fa('DELETE', '/bulk/tenants', { idents: ['initech'] });

  // Attribute-based access: definitions (users, a resource, tenants on __tenant), sets, rules.
  await sc('GET', '/users/attributes');
  await sc('POST', '/users/attributes', { key: 'level', type: 'number', description: 'seniority' });
  await sc('POST', '/resources/__user/attributes', { key: 'department', type: 'string' });
  await sc('POST', '/users/attributes?resource_id=__user', { key: 'scratch_attr', type: 'json' });
  await sc('GET', '/users/attributes/level');
  await sc('GET', '/users/attributes?page=1&per_page=10');
  await sc('PATCH', '/users/attributes/department', { description: 'where they work' });
  await sc('DELETE', '/users/attributes/scratch_attr');
  await sc('POST', '/resources/doc/attributes', { key: 'amount', type: 'number' });
  await sc('POST', '/resources/__tenant/attributes', { key: 'region', type: 'string' });
  await sc('GET', '/resources/doc/attributes');
  await sc('GET', '/resources/folder/attributes/private');
  await sc('PATCH', '/resources/doc/attributes/amount', { type: 'number', description: 'in euros' });
  await sc('POST', '/condition_sets', {
    key: 'seniors',
    name: 'Seniors',
    description: 'level 3 and up',
    conditions: { allOf: [{ allOf: [{ 'user.level': { 'greater-than-equals': 3 } }] }] },
  });
  await sc('POST', '/condition_sets', {
    key: 'senior_finance',
    name: 'Senior finance',
    type: 'userset',
    parent_id: 'seniors',
    conditions: { allOf: [{ 'user.department': { equals: 'finance' } }] },
  });
  await sc('POST', '/condition_sets', {
    key: 'small_docs',
    name: 'Small',
    type: 'resourceset',
    resource_id: 'doc',
    conditions: {
      allOf: [
        {
          anyOf: [
            { 'resource.amount': { 'less-than': { ref: 'user.level' } } },
            { 'tenant.region': { in: ['eu', 'us'] } },
          ],
        },
      ],
    },
  });
  await sc('GET', '/condition_sets');
  await sc('GET', '/condition_sets?type=resourceset&search=small&include_total_count=true&page=1&per_page=10');
  await sc('GET', '/condition_sets/seniors');
  await sc('GET', '/condition_sets/__autogen_admin');
  await sc('GET', '/condition_sets/__autogen_doc');
  await sc('PATCH', '/condition_sets/seniors', {
    name: 'Senior staff',
    conditions: { allOf: [{ 'user.level': { 'greater-than': 2 } }] },
  });
  await sc('GET', '/condition_sets/senior_finance/ancestors');
  await sc('GET', '/condition_sets/seniors/descendants?page=1&per_page=10');
  await fa('POST', '/set_rules', { user_set: 'senior_finance', permission: 'doc:write', resource_set: 'small_docs' });
  await fa('POST', '/set_rules', { user_set: 'senior_finance', permission: 'doc:write', resource_set: 'small_docs' });
  await fa('POST', '/set_rules', {
    user_set: 'admin',
    permission: 'doc:read',
    resource_set: 'small_docs',
    is_role: true,
    is_resource: false,
  });
  await fa('POST', '/set_rules', {
    user_set: 'seniors',
    permission: 'doc:read',
    resource_set: 'doc',
    is_resource: true,
  });
  await fa('GET', '/set_rules');
  await fa('GET', '/set_rules?user_set=senior_finance&permission=write&resource_set=small_docs&page=1&per_page=10');
  await fa('DELETE', '/set_rules', {
    user_set: 'seniors',
    permission: 'doc:read',
    resource_set: 'doc',
    is_resource: true,
  });
  await sc('DELETE', '/condition_sets/senior_finance');
  await sc('DELETE', '/resources/doc/attributes/amount');
  // The decision log, read as the public audit logs. The decisions themselves come from the PDP's
  // POST /allowed, which this document does not describe: their exchanges are left out.
  const mark = s.exchanges.length;
  await s.call(
    'POST',
    '/allowed',
    { user: { key: 'alice' }, action: 'read', resource: { type: 'doc', key: 'd1' } },
    { key: ENV_KEY },
  );
  await s.call(
    'POST',
    '/allowed/bulk',
    [
      { user: 'carol', action: 'write', resource: 'doc:d1', context: { ip: '10.0.0.1' } },
      { user: 'alice', action: 'read', resource: { type: 'doc', tenant: 'acme' } },
    ],
    { key: ENV_KEY },
  );
  s.exchanges.splice(mark);
  const logs = (await s.call('GET', '/v2/pdps/p/e/audit_logs')).body as { data: { id: string }[] };
  await s.call(
    'GET',
    '/v2/pdps/p/e/audit_logs?users=alice&users=carol&decision=false&resources=doc&tenant=acme&action=read&timestamp_from=0&timestamp_to=4102444800&sort_by=timestamp&query=check&page=1&per_page=100',
  );
  await s.call('GET', `/v2/pdps/p/e/audit_logs/${logs.data[0]?.id}`);
  // The change history: every filter, and one call's bodies.
  const calls = (await s.call('GET', '/v2/history?method=POST')).body as { data: { id: string }[] };
  await s.call(
    'GET',
    '/v2/history?method=POST&method=PUT&path=/v2/facts/p/e/users&success=true&status_code=200&status_code=201&client_ip=127.0.0.1&actor_type=api_key&actor_id=00000000-0000-4000-8000-000000000000&actor_display_name=key&project_id=p&env_id=e&timestamp_from=0&timestamp_until=4102444800&page=1&per_page=100',
  );
  await s.call('GET', `/v2/history/${calls.data[0]?.id}/request`);
  await s.call('GET', `/v2/history/${calls.data[0]?.id}/response`);
  await s.call(
    'GET',
    '/v2/activity?actor_id=00000000-0000-4000-8000-000000000000&actor_display_name=key&actor_type=member&project_id=p&env_id=e&timestamp_from=0&timestamp_until=4102444800&page=1&per_page=10',
  );

  // Removals, most specific first.
  await fa('DELETE', '/relationship_tuples/bulk', {
    idents: [{ subject: 'folder:f1', relation: 'parent', object: 'doc:d2' }],
  });
  await fa('DELETE', '/relationship_tuples', { subject: 'folder:f1', relation: 'parent', object: 'doc:d1' });
  await sc('DELETE', '/groups/team:eng/assign_group', { group_instance_key: 'team:staff' });
  await sc('DELETE', '/groups/team:eng/roles', {
    role: 'editor',
    resource: 'doc',
    resource_instance: 'd2',
    tenant: 'acme',
  });
  await sc('DELETE', '/groups/team:eng/users/bob', { tenant: 'acme' });
  await sc('DELETE', '/groups/group:temp');
  await fa('DELETE', '/role_assignments/bulk', [{ user: 'dave', role: 'viewer', tenant: 'acme' }]);
  await fa('DELETE', '/role_assignments', { user: 'alice', role: 'admin', tenant: 'acme' });
  await fa('DELETE', '/users/carol/roles', { role: 'viewer', tenant: 'acme' });
  await fa('DELETE', '/tenants/acme/users/dave');
  await fa('DELETE', '/resource_instances/doc:d2');
  await fa('DELETE', '/users/bulk');
  await fa('DELETE', '/users/bob');
  await s.call('DELETE', '/v2/elements/p/e/old');
  await sc('DELETE', '/resources/doc/roles/viewer/implicit_grants', {
    role: 'viewer',
    on_resource: 'folder',
    linked_by_relation: 'parent',
  });
  await sc('DELETE', '/resources/doc/relations/parent');
  await sc('DELETE', '/resources/page/roles/reader/implicit_grants', {
    role: 'contributor',
    on_resource: 'repo',
    linked_by_relation: 'in',
    when: { no_direct_roles_on_object: true },
  });
  await sc('DELETE', '/roles/temp');
  await sc('DELETE', '/resources/repo/roles/guest');
  await sc('DELETE', '/resources/scratch');
  await fa('DELETE', '/tenants/globex');
}
