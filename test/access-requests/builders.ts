import { expect } from 'vitest';
import { ENV_KEY, startTestServer, type Resp, type TestServer } from '../helpers/server.js';

/**
 * Builders for the over-HTTP access-request tests. Setup helpers fail loudly (with the server's answer)
 * when a setup call does not succeed, so a broken setup never looks like a broken assertion.
 */

/** The body of a 2xx answer; otherwise fails with the status and body. */
export function ok<T = any>(r: Resp): T {
  if (r.status < 200 || r.status > 299) throw new Error(`expected 2xx, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/** Asserts the error shape `{id, title, error_code, message, ...extra}` with the given status and code. */
export function expectError(r: Resp, status: number, code: string): void {
  expect({ status: r.status, code: r.body?.error_code }, JSON.stringify(r.body)).toEqual({ status, code });
  expect(r.body).toMatchObject({ id: expect.any(String), title: expect.any(String), message: expect.any(String) });
}

/** Asserts a 422 in the validation shape `{detail: [{loc, msg, type}]}`, one of whose locs is `loc`. */
export function expectInvalid(r: Resp, loc?: (string | number)[]): void {
  expect(r.status, JSON.stringify(r.body)).toBe(422);
  expect(Array.isArray(r.body.detail), JSON.stringify(r.body)).toBe(true);
  if (loc) expect(r.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
}

/** A clock the server reads through its `now` option; tests move it forward explicitly. */
export function aClock(start = '2030-01-01T00:00:00.000Z') {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    /** Moves the clock forward and returns the new ISO time. */
    tick(ms = 1000): string {
      t += ms;
      return new Date(t).toISOString();
    },
    iso: () => new Date(t).toISOString(),
  };
}
export type Clock = ReturnType<typeof aClock>;

/** A server with a controlled clock. */
export async function startWithClock(): Promise<{ s: TestServer; clock: Clock }> {
  const clock = aClock();
  const s = await startTestServer({ now: clock.now });
  return { s, clock };
}

export const resource = (s: TestServer, key: string, actions: string[] = ['read', 'write']) =>
  s.schema('POST', '/resources', { key, name: key, actions: Object.fromEntries(actions.map((a) => [a, {}])) }).then(ok);
export const role = (s: TestServer, key: string, permissions: string[] = []) =>
  s.schema('POST', '/roles', { key, name: key, permissions }).then(ok);
export const tenant = (s: TestServer, key: string) => s.facts('POST', '/tenants', { key, name: key }).then(ok);
export const user = (s: TestServer, key: string) => s.facts('POST', '/users', { key }).then(ok);
/** Adds an existing user to a tenant (a member without any role). */
export const addToTenant = (s: TestServer, tenantKey: string, userKey: string) =>
  s.facts('POST', `/tenants/${tenantKey}/users`, { key: userKey }).then(ok);
export const instance = (s: TestServer, resourceKey: string, key: string, tenantKey: string) =>
  s.facts('POST', '/resource_instances', { key, resource: resourceKey, tenant: tenantKey }).then(ok);
export const assign = (s: TestServer, a: { user: string; role: string; tenant?: string; resource_instance?: string }) =>
  s.facts('POST', '/role_assignments', a).then(ok);

/** Role assignments matching the filters (query string), as `user role tenant instance` lines for easy comparison. */
export async function assignmentsOf(s: TestServer, filters: Record<string, string>): Promise<string[]> {
  const q = new URLSearchParams({ ...filters, per_page: '1000' }).toString();
  const rows = ok<any[]>(await s.facts('GET', `/role_assignments?${q}`));
  return rows.map((r) => `${r.user} ${r.role} ${r.tenant} ${r.resource_instance ?? '-'}`).sort();
}

/** `POST /allowed` with the environment key (as the SDKs call it); returns the decision. */
export async function allowed(
  s: TestServer,
  userKey: string,
  action: string,
  res: { type: string; key?: string; tenant?: string },
): Promise<boolean> {
  return ok<{ allow: boolean }>(
    await s.call('POST', '/allowed', { user: { key: userKey }, action, resource: res }, { key: ENV_KEY }),
  ).allow;
}

export type Levels = Partial<Record<'LEVEL_1' | 'LEVEL_2' | 'LEVEL_3' | 'LEVEL_4', string[]>>;

export const elementsConfig = (s: TestServer, key: string, roles_to_levels: Levels) =>
  s
    .call('POST', '/v2/elements/p/e/config', {
      key,
      name: key,
      elements_type: 'user_management',
      settings: {},
      roles_to_levels,
    })
    .then(ok);

/**
 * One world per server: resource `doc` (read, write), roles `viewer` (doc:read), `editor` (doc:write),
 * `admin` and `manager` (the reviewer levels 1 and 2), `auditor` (level 3), `member` (level 4);
 * tenants `t` and `t2`; instances `doc:d1` in `t`, `doc:x1` in `t2`; configuration `um`.
 * Users: `alice` (member of t, the usual requester), `bob` (member of t, a bystander), `mod` (admin in t),
 * `mgr` (manager in t), `aud` (auditor in t), `lvl4` (member-role in t), `outsider` (in no tenant),
 * `mod2` (admin in t2 only).
 */
export async function seedWorld(s: TestServer) {
  await resource(s, 'doc');
  await role(s, 'viewer', ['doc:read']);
  await role(s, 'editor', ['doc:write']);
  for (const r of ['admin', 'manager', 'auditor', 'member']) await role(s, r);
  await tenant(s, 't');
  await tenant(s, 't2');
  await instance(s, 'doc', 'd1', 't');
  await instance(s, 'doc', 'x1', 't2');
  for (const u of ['alice', 'bob', 'mod', 'mgr', 'aud', 'lvl4', 'outsider', 'mod2']) await user(s, u);
  await addToTenant(s, 't', 'alice');
  await addToTenant(s, 't', 'bob');
  await assign(s, { user: 'mod', role: 'admin', tenant: 't' });
  await assign(s, { user: 'mgr', role: 'manager', tenant: 't' });
  await assign(s, { user: 'aud', role: 'auditor', tenant: 't' });
  await assign(s, { user: 'lvl4', role: 'member', tenant: 't' });
  await assign(s, { user: 'mod2', role: 'admin', tenant: 't2' });
  await elementsConfig(s, 'um', {
    LEVEL_1: ['admin'],
    LEVEL_2: ['manager'],
    LEVEL_3: ['auditor'],
    LEVEL_4: ['member'],
  });
}

/** The access-request path prefix for an acting user, in a tenant context, under a configuration. */
export const prefix = (a: { user: string; tenant?: string; config?: string }) =>
  `/v2/facts/p/e/access_requests/${a.config ?? 'um'}/user/${a.user}/tenant/${a.tenant ?? 't'}`;

export interface Details {
  role: string;
  tenant?: string;
  resource?: string | null;
  resource_instance?: string | null;
}

/**
 * The seven operations as one acting user: `as(s, 'mod').approve(id, {reviewer_comment: 'ok'})`.
 * Each returns the raw response; a `body` of `undefined` sends no body at all.
 */
export function as(s: TestServer, userKey: string, ctx: { tenant?: string; config?: string } = {}) {
  const P = prefix({ user: userKey, ...ctx });
  return {
    create: (details: Details, reason?: string | null) =>
      s.call('POST', P, {
        access_request_details: { tenant: ctx.tenant ?? 't', ...details },
        ...(reason !== undefined ? { reason } : {}),
      }),
    createRaw: (body: unknown) => s.call('POST', P, body),
    get: (id: string) => s.call('GET', `${P}/${id}`),
    list: (options: { query?: Record<string, string>; headers?: Record<string, string> } = {}) => {
      const q = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
      return s.call('GET', `${P}${q}`, undefined, { headers: options.headers });
    },
    approve: (id: string, body?: unknown) => s.call('PUT', `${P}/${id}/approve`, body),
    deny: (id: string, body?: unknown) => s.call('PUT', `${P}/${id}/deny`, body),
    cancel: (id: string, body?: unknown) => s.call('PUT', `${P}/${id}/cancel`, body),
    review: (id: string, body?: unknown) => s.call('PATCH', `${P}/${id}/reviewer`, body),
  };
}

/** Creates a pending request and returns its body (fails loudly otherwise). */
export async function aRequest(
  s: TestServer,
  requester: string,
  details: Details = { role: 'viewer' },
  ctx: { tenant?: string; config?: string; reason?: string } = {},
) {
  return ok(await as(s, requester, ctx).create(details, ctx.reason ?? 'please'));
}
