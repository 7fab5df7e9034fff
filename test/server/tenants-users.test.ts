import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  allPages,
  assign,
  expectError,
  expectInvalid,
  group,
  ok,
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

const keys = (items: { key: string }[]) => items.map((i) => i.key);

describe('tenants', () => {
  it('create, read, list, patch and delete', async () => {
    const t = await s
      .facts('POST', '/tenants', { key: 'acme', name: 'Acme', description: 'd', attributes: { tier: 'gold' } })
      .then(ok);
    expect(t).toMatchObject({ key: 'acme', name: 'Acme', description: 'd', attributes: { tier: 'gold' } });
    // The server records no permission checks: `last_action_at` is the tenant's last change.
    expect(t.last_action_at).toBe(t.updated_at);
    expect(ok(await s.facts('GET', '/tenants/acme'))).toEqual(t);
    expect(keys(ok(await s.facts('GET', '/tenants')))).toContain('acme');
    const patched = ok(await s.facts('PATCH', '/tenants/acme', { name: 'ACME' }));
    expect(patched).toMatchObject({ name: 'ACME', description: 'd', attributes: { tier: 'gold' } });
    // `null` is "not given" (api-notes, "Conventions"): it changes nothing; `''` clears the description.
    expect(ok(await s.facts('PATCH', '/tenants/acme', { description: null }))).toMatchObject({ description: 'd' });
    expect(ok(await s.facts('PATCH', '/tenants/acme', { description: '' }))).toMatchObject({ description: '' });
    // Tenants have no PUT on the public service.
    expectError(await s.facts('PUT', '/tenants/acme', { name: 'Acme Inc', attributes: {} }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await s.facts('POST', '/tenants', { key: 'acme', name: 'again' }), 409, 'DUPLICATE_ENTITY');
    expect((await s.facts('DELETE', '/tenants/acme')).status).toBe(204);
    expectError(await s.facts('GET', '/tenants/acme'), 404, 'NOT_FOUND');
    expectError(await s.facts('PATCH', '/tenants/acme', { name: 'x' }), 404, 'NOT_FOUND');
  });

  it('the same key created ten times at once: one 200, nine 409, never a 500', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => s.facts('POST', '/tenants', { key: 'race', name: 'Race' })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const users = await Promise.all(Array.from({ length: 10 }, () => s.facts('PUT', '/users/racer', { key: 'racer' })));
    expect(users.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  });

  it('deleting a tenant deletes its instances, groups and assignments; users stay', async () => {
    const x = await seedDocs(s, 'td');
    await assign(s, { user: x.alice, role: x.viewer, tenant: x.tenant });
    await assign(s, { user: x.bob, role: x.editor, resource_instance: x.d1 });
    await group(s, 'tdteam:a', x.tenant);
    ok(await s.facts('DELETE', `/tenants/${x.tenant}`));
    expect(ok(await s.facts('GET', `/resource_instances?tenant=${x.tenant}`))).toEqual([]);
    expectError(await s.facts('GET', `/resource_instances/${x.d1}`), 404, 'NOT_FOUND');
    expectError(await s.schema('GET', '/groups/direct/tdteam:a'), 404, 'NOT_FOUND');
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.bob}`))).toEqual([]);
    expect(ok(await s.facts('GET', `/users/${x.alice}`)).associated_tenants).toEqual([]);
  });
});

describe('users', () => {
  it('create, read, patch and delete', async () => {
    const u = await user(s, 'carol', { email: 'carol@example.com', first_name: 'Carol', attributes: { age: 3 } });
    expect(u).toMatchObject({
      key: 'carol',
      email: 'carol@example.com',
      first_name: 'Carol',
      attributes: { age: 3 },
      roles: [],
      associated_tenants: [],
    });
    // Unset names are absent: the public read model has strings or nothing.
    expect(u).not.toHaveProperty('last_name');
    expect(ok(await s.facts('GET', '/users/carol'))).toEqual(u);
    expect(ok(await s.facts('GET', `/users/${u.id}`)).key).toBe('carol');
    const patched = ok(await s.facts('PATCH', '/users/carol', { last_name: 'C' }));
    expect(patched).toMatchObject({ email: 'carol@example.com', first_name: 'Carol', last_name: 'C' });
    expectError(await s.facts('POST', '/users', { key: 'carol' }), 409, 'DUPLICATE_ENTITY');
    expect((await s.facts('DELETE', '/users/carol')).status).toBe(204);
    expectError(await s.facts('GET', '/users/carol'), 404, 'NOT_FOUND');
    expectError(await s.facts('DELETE', '/users/carol'), 404, 'NOT_FOUND');
  });

  it('PUT upserts: 201 when it creates, 200 when it replaces every field', async () => {
    const created = await s.facts('PUT', '/users/dave', { key: 'dave', email: 'd@x.io', first_name: 'Dave' });
    expect(created.status).toBe(201);
    // The public `UserCreate` requires the key in the body too.
    expectInvalid(await s.facts('PUT', '/users/dave', { first_name: 'David' }), ['body', 'key']);
    const replaced = await s.facts('PUT', '/users/dave', { key: 'dave', first_name: 'David' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ key: 'dave', first_name: 'David', id: created.body.id });
    expect(replaced.body).not.toHaveProperty('email');
  });

  it('PUT names one user: a body key that differs from it is 422 at body.key and changes nothing', async () => {
    const erin = ok(await s.facts('PUT', '/users/erin', { key: 'erin', email: 'e@x.io' }));
    // Neither renamed, nor replaced under the path's key with the body's key dropped, nor a new user.
    const refused = await s.facts('PUT', '/users/erin', { key: 'frank', first_name: 'Frank' });
    expectInvalid(refused, ['body', 'key']);
    expect(refused.body.detail[0].msg).toContain("'frank'");
    expect(refused.body.detail[0].msg).toContain("'erin'");
    expect(ok(await s.facts('GET', '/users/erin'))).toEqual(erin);
    expectError(await s.facts('GET', '/users/frank'), 404, 'NOT_FOUND');
    // Nothing is created when the path's user does not exist either.
    expectInvalid(await s.facts('PUT', '/users/gina', { key: 'gino' }), ['body', 'key']);
    expectError(await s.facts('GET', '/users/gina'), 404, 'NOT_FOUND');
    expectError(await s.facts('GET', '/users/gino'), 404, 'NOT_FOUND');
  });

  it('PUT by the user id (the public user_id is a key or an id) replaces that user, never makes a user keyed by the id', async () => {
    const hal = ok(await s.facts('PUT', '/users/hal', { key: 'hal', email: 'h@x.io' }));
    const replaced = await s.facts('PUT', `/users/${hal.id}`, { key: 'hal', first_name: 'Hal' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: hal.id, key: 'hal', first_name: 'Hal' });
    expect(ok(await s.facts('GET', `/users?search=${hal.id}`)).data).toEqual([]);
    // By id, the body still names the user's own key.
    expectInvalid(await s.facts('PUT', `/users/${hal.id}`, { key: 'hal2' }), ['body', 'key']);
    expect(ok(await s.facts('GET', '/users/hal'))).toMatchObject({ id: hal.id, first_name: 'Hal' });
  });

  it.each([['a|b'], ['a@b.c'], ['a+b'], ['a.b-c_d']])('user keys may contain | @ + . (%s)', async (key) => {
    expect((await user(s, key)).key).toBe(key);
    expect(ok(await s.facts('GET', `/users/${encodeURIComponent(key)}`)).key).toBe(key);
  });

  it('lists in the envelope, filtered by search, tenant and role', async () => {
    const x = await seedDocs(s, 'ul');
    await user(s, 'ulzed', { email: 'zed@ul.example' });
    await assign(s, { user: x.alice, role: x.viewer, tenant: x.tenant });
    const all = ok(await s.facts('GET', '/users?per_page=100'));
    expect(all).toEqual({ data: expect.any(Array), total_count: all.data.length, page_count: 1 });
    expect(keys(ok(await s.facts('GET', '/users?search=ulzed')).data)).toEqual(['ulzed']);
    expect(keys(ok(await s.facts('GET', '/users?search=zed@ul')).data)).toEqual(['ulzed']);
    // LIKE wildcards in a search are literal.
    expect(ok(await s.facts('GET', '/users?search=%25')).data).toEqual([]);
    expect(keys(ok(await s.facts('GET', `/users?tenant=${x.tenant}`)).data)).toEqual([x.alice]);
    expect(keys(ok(await s.facts('GET', `/users?role=${x.viewer}`)).data)).toEqual([x.alice]);
  });

  it('reads carry tenant-wide roles and every associated tenant', async () => {
    const x = await seedDocs(s, 'ur');
    await tenant(s, 'urother');
    await assign(s, { user: x.alice, role: x.viewer, tenant: x.tenant });
    await assign(s, { user: x.alice, role: x.editor, resource_instance: x.d1 });
    ok(await s.facts('POST', '/tenants/urother/users', { key: x.alice }));
    const u = ok(await s.facts('GET', `/users/${x.alice}`));
    expect(u.roles).toEqual([{ role: x.viewer, tenant: x.tenant }]);
    // Sorted by tenant key.
    expect(u.associated_tenants).toEqual([
      { tenant: 'urother', roles: [], status: 'active' },
      { tenant: x.tenant, roles: [x.viewer], status: 'active' },
    ]);
  });

  it('POST/DELETE /users/{key}/roles assigns and unassigns', async () => {
    const x = await seedDocs(s, 'uroles');
    // Answers the assignment, as POST /role_assignments does.
    const a = ok(await s.facts('POST', `/users/${x.bob}/roles`, { role: x.viewer, tenant: x.tenant }));
    expect(a).toMatchObject({
      user: x.bob,
      role: x.viewer,
      tenant: x.tenant,
      user_id: ok(await s.facts('GET', `/users/${x.bob}`)).id,
    });
    expect(ok(await s.facts('GET', `/users/${x.bob}`)).roles).toEqual([{ role: x.viewer, tenant: x.tenant }]);
    expectError(
      await s.facts('POST', `/users/${x.bob}/roles`, { role: x.viewer, tenant: x.tenant }),
      409,
      'DUPLICATE_ENTITY',
    );
    expect((await s.facts('DELETE', `/users/${x.bob}/roles`, { role: x.viewer, tenant: x.tenant })).status).toBe(204);
    expectError(
      await s.facts('DELETE', `/users/${x.bob}/roles`, { role: x.viewer, tenant: x.tenant }),
      404,
      'NOT_FOUND',
    );
    expectError(await s.facts('POST', '/users/ghost/roles', { role: x.viewer, tenant: x.tenant }), 404, 'NOT_FOUND');
  });

  it('POST /users with role_assignments creates both', async () => {
    const x = await seedDocs(s, 'ucr');
    const u = ok(
      await s.facts('POST', '/users', {
        key: 'ucrnew',
        role_assignments: [
          { role: x.viewer, tenant: x.tenant },
          { role: x.editor, resource_instance: x.d1 },
        ],
      }),
    );
    expect(u.associated_tenants).toEqual([{ tenant: x.tenant, roles: [x.viewer], status: 'active' }]);
    expect(ok(await s.facts('GET', '/role_assignments?user=ucrnew'))).toHaveLength(2);
    // Whole or nothing: a bad assignment leaves no user behind.
    expectError(
      await s.facts('POST', '/users', { key: 'ucrbad', role_assignments: [{ role: 'ghost', tenant: x.tenant }] }),
      404,
      'NOT_FOUND',
    );
    expectError(await s.facts('GET', '/users/ucrbad'), 404, 'NOT_FOUND');
  });

  it('deleting a user deletes their memberships and assignments', async () => {
    const x = await seedDocs(s, 'udel');
    await assign(s, { user: x.alice, role: x.viewer, tenant: x.tenant });
    await group(s, 'udelteam:a', x.tenant);
    await addMember(s, 'udelteam:a', x.alice, x.tenant);
    ok(await s.facts('POST', `/tenants/${x.tenant}/users`, { key: x.alice }));
    ok(await s.facts('DELETE', `/users/${x.alice}`));
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`))).toEqual([]);
    expect(ok(await s.schema('GET', '/groups/udelteam:a/users')).total_count).toBe(0);
    expect(ok(await s.facts('GET', `/tenants/${x.tenant}/users`)).data).toEqual([]);
    // The key is free again, and the new user inherits nothing.
    expect((await user(s, x.alice)).associated_tenants).toEqual([]);
  });
});

describe('tenant membership', () => {
  it('POST /tenants/{t}/users creates the user when missing and adds it', async () => {
    const x = await seedDocs(s, 'tm');
    const u = ok(await s.facts('POST', `/tenants/${x.tenant}/users`, { key: 'tmnew', email: 'n@x.io' }));
    expect(u).toMatchObject({ key: 'tmnew', email: 'n@x.io', associated_tenants: [{ tenant: x.tenant, roles: [] }] });
    // Adding an existing user again is a no-op, not a conflict.
    ok(await s.facts('POST', `/tenants/${x.tenant}/users`, { key: 'tmnew' }));
    ok(await s.facts('POST', `/tenants/${x.tenant}/users`, { key: x.alice }));
    await assign(s, { user: x.bob, role: x.viewer, tenant: x.tenant });
    // "In a tenant": added to it, or holding a role in it.
    expect(keys(await allPages(s, `/v2/facts/p/e/tenants/${x.tenant}/users`)).sort()).toEqual(
      [x.alice, x.bob, 'tmnew'].sort(),
    );
    expectError(await s.facts('POST', '/tenants/ghost/users', { key: 'x' }), 404, 'NOT_FOUND');
    expectError(await s.facts('GET', '/tenants/ghost/users'), 404, 'NOT_FOUND');
  });

  it('the last role or membership going: a user added to the tenant stays, one held only by them leaves', async () => {
    const x = await seedDocs(s, 'tml');
    const tenants = async (key: string) =>
      (ok(await s.facts('GET', `/users/${key}`)).associated_tenants as { tenant: string }[]).map((t) => t.tenant);
    const inTenant = async () => keys(await allPages(s, `/v2/facts/p/e/tenants/${x.tenant}/users`)).sort();
    await group(s, 'tmlteam:a', x.tenant);
    for (const u of [x.alice, x.bob]) {
      await assign(s, { user: u, role: x.viewer, tenant: x.tenant });
      await addMember(s, 'tmlteam:a', u, x.tenant);
    }
    // alice was also added (what Roster does for a tenant she declares); bob only holds roles there.
    ok(await s.facts('POST', `/tenants/${x.tenant}/users`, { key: x.alice }));
    expect(await inTenant()).toEqual([x.alice, x.bob].sort());
    for (const u of [x.alice, x.bob]) {
      expect((await s.facts('DELETE', '/role_assignments', { user: u, role: x.viewer, tenant: x.tenant })).status).toBe(
        204,
      );
      expect(await tenants(u)).toEqual([x.tenant]);
      expect((await s.schema('DELETE', `/groups/tmlteam:a/users/${u}`, { tenant: x.tenant })).status).toBe(204);
    }
    // api-notes.md: "in a tenant" when holding any role assignment there, or added to it.
    expect(await tenants(x.alice)).toEqual([x.tenant]);
    expect(ok(await s.facts('GET', `/users/${x.alice}`)).associated_tenants).toEqual([
      { tenant: x.tenant, roles: [], status: 'active' },
    ]);
    expect(await tenants(x.bob)).toEqual([]);
    expect(await inTenant()).toEqual([x.alice]);
  });

  it('DELETE /tenants/{t}/users/{u} removes the user from the tenant with its roles and group memberships there', async () => {
    const x = await seedDocs(s, 'tmd');
    await tenant(s, 'tmdother');
    await role(s, 'tmdrole');
    await assign(s, { user: x.alice, role: x.viewer, tenant: x.tenant });
    await assign(s, { user: x.alice, role: x.editor, resource_instance: x.d1 });
    await assign(s, { user: x.alice, role: 'tmdrole', tenant: 'tmdother' });
    await group(s, 'tmdteam:a', x.tenant);
    await addMember(s, 'tmdteam:a', x.alice, x.tenant);
    expect((await s.facts('DELETE', `/tenants/${x.tenant}/users/${x.alice}`)).status).toBe(204);
    expect(ok(await s.facts('GET', `/role_assignments?user=${x.alice}`)).map((a: { role: string }) => a.role)).toEqual([
      'tmdrole',
    ]);
    expect(ok(await s.schema('GET', '/groups/tmdteam:a/users')).total_count).toBe(0);
    expectError(await s.facts('DELETE', `/tenants/${x.tenant}/users/${x.alice}`), 404, 'NOT_FOUND');
    expectError(await s.facts('DELETE', `/tenants/${x.tenant}/users/ghost`), 404, 'NOT_FOUND');
  });
});
