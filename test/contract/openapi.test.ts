import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkRequest, checkResponse, findOperation, SPEC_DEVIATIONS, SPEC_FILE } from './openapi.js';

const F = '/v2/facts/p/e';
const S = '/v2/schema/p/e';
const AR = `${F}/access_requests/cfg/user/alice/tenant/acme`;
const ENV = { organization_id: 'o', project_id: 'p', environment_id: 'e' };
const AT = '2030-01-01T00:00:00.000Z';

describe('findOperation', () => {
  it.each([
    ['GET', `${F}/users/bulk`, '/v2/facts/{proj_id}/{env_id}/users/{user_id}', { user_id: 'bulk' }],
    ['PUT', `${F}/users/bulk`, '/v2/facts/{proj_id}/{env_id}/users/{user_id}', { user_id: 'bulk' }],
    ['DELETE', `${F}/users/bulk`, '/v2/facts/{proj_id}/{env_id}/users/{user_id}', { user_id: 'bulk' }],
    ['PUT', `${F}/bulk/users`, '/v2/facts/{proj_id}/{env_id}/bulk/users', {}],
    [
      'DELETE',
      `${F}/resource_instances/bulk`,
      '/v2/facts/{proj_id}/{env_id}/resource_instances/{instance_id}',
      { instance_id: 'bulk' },
    ],
    ['GET', `${F}/role_assignments/detailed`, '/v2/facts/{proj_id}/{env_id}/role_assignments/detailed', {}],
    ['GET', `${S}/groups/direct`, '/v2/schema/{proj_id}/{env_id}/groups/direct', {}],
    [
      'GET',
      `${S}/groups/direct/team%3Aeng`,
      '/v2/schema/{proj_id}/{env_id}/groups/direct/{group_instance_key}',
      { group_instance_key: 'team:eng' },
    ],
    [
      'GET',
      `${S}/groups/team:eng/users?page=2`,
      '/v2/schema/{proj_id}/{env_id}/groups/{group_instance_key}/users',
      { group_instance_key: 'team:eng' },
    ],
    [
      'DELETE',
      '/v2/elements/p/e/cfg',
      '/v2/elements/{proj_id}/{env_id}/{elements_config_id}',
      { elements_config_id: 'cfg' },
    ],
    [
      'PUT',
      `${AR}/abc/approve`,
      '/v2/facts/{proj_id}/{env_id}/access_requests/{elements_config_id}/user/{user_id}/tenant/{tenant_id}/{access_request_id}/approve',
      { access_request_id: 'abc' },
    ],
  ])('%s %s is %s', (method, path, template, params) => {
    const op = findOperation(method, path);
    expect(op?.template).toBe(template);
    expect(op?.params).toMatchObject({ proj_id: 'p', env_id: 'e', ...params });
  });

  it.each([
    ['DELETE', '/v2/elements/p/e/config/cfg'],
    ['PUT', `${S}/roles/viewer`],
    ['POST', `${S}/group/team:eng/roles`],
    ['GET', `${S}/resource_instances`],
    ['POST', `${F}/users/bulk/extra`],
    ['GET', `${F}/users/`],
  ])('%s %s is no operation', (method, path) => {
    expect(findOperation(method, path)).toBeUndefined();
    expect(checkRequest({ method, path })).toEqual([expect.stringContaining('no such operation')]);
  });
});

describe('checkRequest', () => {
  it.each([
    ['a public create', { method: 'POST', path: `${F}/users`, body: { key: 'alice', email: 'a@x.io' } }],
    [
      'declared query parameters, as text',
      { method: 'GET', path: `${S}/roles`, query: { page: '2', per_page: '100', include_total_count: 'true' } },
    ],
    ['a query on the path', { method: 'GET', path: `${F}/role_assignments?user=alice&per_page=1000` }],
    ['a bulk replace', { method: 'PUT', path: `${F}/bulk/users`, body: { operations: [{ key: 'bulk' }] } }],
    [
      'cancel with a reason (the specification)',
      { method: 'PUT', path: `${AR}/x/cancel`, body: { reason: 'no longer needed' } },
    ],
    ['cancel without a body', { method: 'PUT', path: `${AR}/x/cancel` }],
  ])('accepts %s', (_, req) => {
    expect(checkRequest(req)).toEqual([]);
  });

  it.each([
    ['a deprecated operation', { method: 'GET', path: `${S}/groups` }, 'deprecated'],
    [
      'an undeclared query parameter',
      { method: 'GET', path: `${F}/users`, query: { include_total_count: 'true' } },
      "query parameter 'include_total_count' is not declared",
    ],
    [
      'a query value of the wrong type',
      { method: 'GET', path: `${S}/roles?per_page=many` },
      "query parameter 'per_page'",
    ],
    ['a page over the maximum', { method: 'GET', path: `${S}/roles?per_page=101` }, "query parameter 'per_page'"],
    [
      'an unknown body field',
      { method: 'PATCH', path: `${F}/tenants/acme`, body: { description: null } },
      '/description must be string',
    ],
    [
      'a missing required field',
      {
        method: 'POST',
        path: '/v2/elements/p/e/config',
        body: { key: 'c', name: 'c', elements_type: 'user_management', roles_to_levels: {} },
      },
      "'settings'",
    ],
    [
      'a body on an operation that takes none',
      { method: 'DELETE', path: `${F}/users/alice`, body: {} },
      'takes no body',
    ],
    ['a missing required body', { method: 'POST', path: `${F}/users` }, 'body is required'],
    ['null for a string', { method: 'POST', path: `${F}/users`, body: { key: 'a', first_name: null } }, '/first_name'],
  ])('refuses %s', (_, req, problem) => {
    expect(checkRequest(req).join('\n')).toContain(problem);
  });
});

const aRequest = (extra: object = {}) => ({
  id: 'r1',
  access_request_details: { tenant: 'acme', resource: 'doc', resource_instance: 'd1', role: 'viewer' },
  ...ENV,
  created_at: AT,
  updated_at: AT,
  status: 'approved',
  ...extra,
});

describe('checkResponse', () => {
  it.each([
    [
      'a 2xx in its schema',
      {
        method: 'GET',
        path: `${F}/tenants/acme`,
        status: 200,
        body: { key: 'acme', id: 'i', name: 'Acme', ...ENV, created_at: AT, updated_at: AT, last_action_at: AT },
      },
    ],
    ['either declared list form', { method: 'GET', path: `${S}/roles`, status: 200, body: [] }],
    ['an empty 204', { method: 'DELETE', path: `${F}/users/alice`, status: 204 }],
    [
      'a 422 in the validation shape',
      {
        method: 'POST',
        path: `${F}/users`,
        status: 422,
        body: { detail: [{ loc: ['body', 'key'], msg: 'field required', type: 'required' }] },
      },
    ],
    [
      'a 422 in the error shape',
      {
        method: 'POST',
        path: `${F}/role_assignments`,
        status: 422,
        body: { id: 'x', title: 't', error_code: 'MISMATCH_RESOURCE_INSTANCES_TENANTS', message: 'm' },
      },
    ],
    [
      'an undeclared 404 in the error shape',
      {
        method: 'GET',
        path: `${F}/users/nobody`,
        status: 404,
        body: { id: 'x', title: 'Not found', error_code: 'NOT_FOUND', message: 'm' },
      },
    ],
    [
      'a pending access request (the specification)',
      {
        method: 'GET',
        path: `${AR}/r1`,
        status: 200,
        body: aRequest({
          status: null,
          reviewer_user_id: null,
          reviewed_at: null,
          reviewer_comment: null,
          org_id: 'o',
          env_id: 'e',
        }),
      },
    ],
    [
      'a denied access request, spelt as the specification does',
      { method: 'PUT', path: `${AR}/r1/deny`, status: 200, body: aRequest({ status: 'deny' }) },
    ],
    [
      'a tenant-wide access request without a resource',
      {
        method: 'GET',
        path: `${AR}/r1`,
        status: 200,
        body: aRequest({ access_request_details: { tenant: 'acme', role: 'viewer' } }),
      },
    ],
  ])('accepts %s', (_, res) => {
    expect(checkResponse(res)).toEqual([]);
  });

  it.each([
    [
      'a field the schema does not have',
      {
        method: 'GET',
        path: `${S}/groups/direct`,
        status: 200,
        body: { data: [{ id: 'i', group_instance_key: 'eng', group_tenant: 't', assigned_roles: [] }], total_count: 1 },
      },
      "'assigned_roles'",
    ],
    [
      'null where the schema has a string',
      {
        method: 'GET',
        path: `${F}/users/alice`,
        status: 200,
        body: { key: 'alice', id: 'i', ...ENV, created_at: AT, updated_at: AT, first_name: null },
      },
      '/first_name',
    ],
    [
      'a missing required field',
      {
        method: 'GET',
        path: `${F}/tenants/acme`,
        status: 200,
        body: { key: 'acme', id: 'i', name: 'Acme', ...ENV, created_at: AT, updated_at: AT },
      },
      'last_action_at',
    ],
    ['an undeclared 2xx', { method: 'POST', path: `${F}/users`, status: 201, body: {} }, 'status 201 is not declared'],
    [
      'a body on a 204',
      { method: 'DELETE', path: `${F}/users/alice`, status: 204, body: { ok: true } },
      'without content',
    ],
    [
      'an error in another shape',
      { method: 'GET', path: `${F}/users/nobody`, status: 404, body: { message: 'Not Found', statusCode: 404 } },
      'error answer',
    ],
    [
      'a status the specification does not know',
      { method: 'GET', path: `${AR}/r1`, status: 200, body: aRequest({ status: 'expired' }) },
      '/status',
    ],
    [
      'an access-request extension field',
      { method: 'GET', path: `${AR}/r1`, status: 200, body: aRequest({ can_review: true }) },
      "'can_review'",
    ],
  ])('refuses %s', (_, res, problem) => {
    expect(checkResponse(res).join('\n')).toContain(problem);
  });
});

describe('the document', () => {
  it('is the shared specification, unchanged, wherever ../shared is present', () => {
    const shared = new URL('../../../shared/spec/permit-openapi.json', import.meta.url);
    if (!existsSync(shared)) return;
    expect(readFileSync(SPEC_FILE, 'utf8')).toBe(readFileSync(shared, 'utf8'));
  });

  it('lists in docs/server.md exactly the deviations this module applies', () => {
    const docs = readFileSync(new URL('../../docs/server.md', import.meta.url), 'utf8');
    const section = docs.split('### Differences from the public API')[1]?.split(/\n#{2,3} /)[0] ?? '';
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| difference') && !l.startsWith('|---'));
    expect(rows.map((r) => r.split(' | ')[0].slice(2).trim())).toEqual(SPEC_DEVIATIONS.map((d) => d.difference));
  });
});
