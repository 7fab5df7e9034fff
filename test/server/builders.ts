import { expect } from 'vitest';
import { ENV_KEY, type Resp, type TestServer } from '../helpers/server.js';

/**
 * Small builders for the over-HTTP server tests. Each returns what the test needs to name, and fails
 * loudly (with the server's answer) when a setup call does not succeed, so a broken setup never looks
 * like a broken assertion.
 */

/** The body of a 2xx answer; otherwise fails with the status and body. */
export function ok<T = any>(r: Resp): T {
  if (r.status < 200 || r.status > 299) throw new Error(`expected 2xx, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/** Asserts the public API's error shape `{id, title, error_code, message}` with the given status and code. */
export function expectError(r: Resp, status: number, code: string): void {
  expect({ status: r.status, code: r.body?.error_code }, JSON.stringify(r.body)).toEqual({ status, code });
  expect(r.body).toEqual({
    id: expect.any(String),
    title: expect.any(String),
    error_code: code,
    message: expect.any(String),
    ...extraOf(r.body),
  });
  expect(r.body.id).toBe(r.headers.get('x-request-id'));
}

const extraOf = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).filter(([k]) => !['id', 'title', 'error_code', 'message'].includes(k)));

/** Asserts a 422 in the validation shape `{detail: [{loc, msg, type}]}`, one of whose locs is `loc`. */
export function expectInvalid(r: Resp, loc?: (string | number)[]): void {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect(r.body.detail).toEqual(
    expect.arrayContaining([{ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) }]),
  );
  if (loc) expect(r.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
}

export const resource = (s: TestServer, key: string, actions: string[] = ['read', 'write'], extra: object = {}) =>
  s
    .schema('POST', '/resources', {
      key,
      name: key,
      actions: Object.fromEntries(actions.map((a) => [a, {}])),
      ...extra,
    })
    .then(ok);

export const role = (s: TestServer, key: string, permissions: string[] = [], ext: string[] = []) =>
  s.schema('POST', '/roles', { key, name: key, permissions, extends: ext }).then(ok);

export const tenant = (s: TestServer, key: string) => s.facts('POST', '/tenants', { key, name: key }).then(ok);

export const user = (s: TestServer, key: string, extra: object = {}) =>
  s.facts('POST', '/users', { key, ...extra }).then(ok);

export const instance = (s: TestServer, resourceKey: string, key: string, tenantKey: string) =>
  s.facts('POST', '/resource_instances', { key, resource: resourceKey, tenant: tenantKey }).then(ok);

export const assign = (s: TestServer, a: { user: string; role: string; tenant?: string; resource_instance?: string }) =>
  s.facts('POST', '/role_assignments', a).then(ok);

export const group = (s: TestServer, ref: string, tenantKey: string) => {
  const [type, key] = ref.split(':');
  return s
    .schema('POST', '/groups', { group_instance_key: key, group_resource_type_key: type, group_tenant: tenantKey })
    .then(ok);
};

export const addMember = (s: TestServer, groupRef: string, userKey: string, tenantKey: string) =>
  s.schema('PUT', `/groups/${groupRef}/users/${userKey}`, { tenant: tenantKey }).then(ok);

export const grantGroup = (
  s: TestServer,
  groupRef: string,
  g: { role: string; resource: string; resource_instance: string; tenant: string },
) => s.schema('POST', `/groups/${groupRef}/roles`, g).then(ok);

export const link = (s: TestServer, child: string, parent: string) =>
  s.schema('PUT', `/groups/${child}/assign_group`, { group_instance_key: parent }).then(ok);

/** `POST /allowed` with the environment key; returns the decision. */
export async function allowed(
  s: TestServer,
  userKey: string,
  action: string,
  res: { type: string; key?: string; tenant?: string },
): Promise<boolean> {
  const r = await s.call('POST', '/allowed', { user: { key: userKey }, action, resource: res }, { key: ENV_KEY });
  return ok<{ allow: boolean }>(r).allow;
}

/**
 * A document world under a key prefix `x` (so tests sharing one server do not collide): resource
 * `<x>doc` (read, write, delete), roles `<x>viewer` (read) and `<x>editor` (write, extends viewer),
 * tenant `<x>t`, users `<x>alice` and `<x>bob`, instances `<x>doc:d1` and `<x>doc:d2` in the tenant.
 */
export async function seedDocs(s: TestServer, x = '') {
  const names = {
    doc: `${x}doc`,
    viewer: `${x}viewer`,
    editor: `${x}editor`,
    tenant: `${x}t`,
    alice: `${x}alice`,
    bob: `${x}bob`,
    d1: `${x}doc:d1`,
    d2: `${x}doc:d2`,
  };
  await resource(s, names.doc, ['read', 'write', 'delete']);
  await role(s, names.viewer, [`${names.doc}:read`]);
  await role(s, names.editor, [`${names.doc}:write`], [names.viewer]);
  await tenant(s, names.tenant);
  await user(s, names.alice);
  await user(s, names.bob);
  await instance(s, names.doc, 'd1', names.tenant);
  await instance(s, names.doc, 'd2', names.tenant);
  return names;
}

/** Every item of a paged envelope list, following `page` until an empty page. */
export async function allPages<T = any>(s: TestServer, path: string, perPage = 100): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const body = ok(await s.call('GET', `${path}${sep}page=${page}&per_page=${perPage}`));
    const data: T[] = Array.isArray(body) ? body : body.data;
    if (data.length === 0) return out;
    out.push(...data);
  }
}

/** seedDocs, a group `team:a` with alice in it (holding `viewer` on d1 when `grant`), and an element configuration `um`. */
export async function seedWorldWithGroup(s: TestServer, { grant = false } = {}) {
  const names = await seedDocs(s);
  await group(s, 'team:a', 't');
  await addMember(s, 'team:a', 'alice', 't');
  if (grant) await grantGroup(s, 'team:a', { role: 'viewer', resource: 'doc', resource_instance: 'd1', tenant: 't' });
  ok(
    await s.call('POST', '/v2/elements/p/e/config', {
      key: 'um',
      name: 'um',
      elements_type: 'user_management',
      settings: {},
      roles_to_levels: { LEVEL_1: ['viewer'] },
    }),
  );
  return names;
}
