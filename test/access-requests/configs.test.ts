import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import {
  aRequest,
  as,
  elementsConfig,
  expectError,
  expectInvalid,
  ok,
  role,
  seedWorld,
  startWithClock,
  type Clock,
} from './builders.js';

/** User-management element configurations, `/v2/elements/{p}/{e}/config[/{key}]`: they name who reviews. */
let s: TestServer;
let clock: Clock;
beforeAll(async () => {
  ({ s, clock } = await startWithClock());
  await seedWorld(s);
});
afterAll(() => s.close());

const cfg = (method: string, path = '', body?: unknown) => s.call(method, `/v2/elements/p/e/config${path}`, body);
/** A create body with the fields the public `ElementsConfigCreate` requires, `over` on top. */
const full = (over: Record<string, unknown>) => ({
  elements_type: 'user_management',
  settings: {},
  roles_to_levels: {},
  ...over,
});
/** The public delete sits beside `config`: `DELETE /v2/elements/{p}/{e}/{key or id}`. */
const remove = (keyOrId: string) => s.call('DELETE', `/v2/elements/p/e/${keyOrId}`);
/** Levels as role keys (the read model lists each role as `{id, key, name, resource_id}`). */
const levelKeys = (levels: Record<string, { key: string }[]>) =>
  Object.fromEntries(Object.entries(levels).map(([l, roles]) => [l, roles.map((r) => r.key)]));

describe('create and read', () => {
  it('answers the configuration with ids of the environment and timestamps', async () => {
    const scope = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: 'test-env-key-abcdefghij' }));
    const at = clock.tick();
    const c = ok(
      await cfg('POST', '', {
        key: 'c1',
        name: 'Reviewers',
        elements_type: 'user_management',
        settings: {},
        roles_to_levels: { LEVEL_1: ['admin'], LEVEL_2: ['manager', 'editor'] },
      }),
    );
    const roleOf = async (key: string) => {
      const r = ok(await s.schema('GET', `/roles/${key}`));
      return { id: r.id, key, name: r.name, resource_id: expect.stringMatching(/^[0-9a-f-]{36}$/) };
    };
    expect(c).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: 'c1',
      name: 'Reviewers',
      elements_type: 'user_management',
      is_active: true,
      roles_to_levels: { LEVEL_1: [await roleOf('admin')], LEVEL_2: [await roleOf('manager'), await roleOf('editor')] },
      settings: {},
      organization_id: scope.organization_id,
      project_id: scope.project_id,
      environment_id: scope.environment_id,
      created_at: at,
      updated_at: at,
    });
    expect(ok(await cfg('GET', '/c1'))).toEqual(c);
    expect(ok(await cfg('GET', `/${c.id}`))).toEqual(c);
  });

  it('elements_type, settings and roles_to_levels are required, as on the public service', async () => {
    for (const field of ['elements_type', 'settings', 'roles_to_levels']) {
      const body: Record<string, unknown> = full({ key: 'c-min', name: 'min' });
      delete body[field];
      expectInvalid(await cfg('POST', '', body), ['body', field]);
    }
    expect(ok(await cfg('POST', '', full({ key: 'c-min', name: 'min' })))).toMatchObject({
      elements_type: 'user_management',
      roles_to_levels: {},
    });
  });

  it('roles may be named by id; they are kept by key', async () => {
    const admin = ok(await s.schema('GET', '/roles/admin'));
    const c = ok(
      await cfg('POST', '', full({ key: 'c-ids', name: 'ids', roles_to_levels: { LEVEL_1: [admin.id, 'admin'] } })),
    );
    expect(levelKeys(c.roles_to_levels)).toEqual({ LEVEL_1: ['admin'] });
  });

  it('settings are stored and returned; email_notifications is accepted and ignored', async () => {
    const c = ok(
      await cfg(
        'POST',
        '',
        full({ key: 'c-set', name: 'x', settings: { theme: 'dark', size: 3, on: true }, email_notifications: true }),
      ),
    );
    expect(c.settings).toEqual({ theme: 'dark', size: 3, on: true });
    expect(c).not.toHaveProperty('email_notifications');
    // Settings are flat: numbers, strings and booleans, as the public API has them.
    expectInvalid(await cfg('POST', '', full({ key: 'c-set2', name: 'x', settings: { theme: { dark: true } } })), [
      'body',
      'settings',
      'theme',
    ]);
  });

  it('a duplicate key is 409 DUPLICATE_ENTITY', async () => {
    ok(await cfg('POST', '', full({ key: 'c-dup', name: 'x' })));
    expectError(await cfg('POST', '', full({ key: 'c-dup', name: 'y' })), 409, 'DUPLICATE_ENTITY');
    expect(ok(await cfg('GET', '/c-dup')).name).toBe('x');
  });

  it('a role named in roles_to_levels must exist: 404 naming it, nothing created', async () => {
    const r = await cfg(
      'POST',
      '',
      full({ key: 'c-bad', name: 'x', roles_to_levels: { LEVEL_1: ['admin', 'ghost'] } }),
    );
    expectError(r, 404, 'NOT_FOUND');
    expect(r.body.message).toContain("role 'ghost'");
    expectError(await cfg('GET', '/c-bad'), 404, 'NOT_FOUND');
  });

  it.each([
    ['no key', { name: 'x' }, ['body', 'key']],
    ['no name', { key: 'c-x' }, ['body', 'name']],
    [
      'unknown level',
      { key: 'c-x', name: 'x', roles_to_levels: { LEVEL_9: ['admin'] } },
      ['body', 'roles_to_levels', 'LEVEL_9'],
    ],
    [
      'level not a list',
      { key: 'c-x', name: 'x', roles_to_levels: { LEVEL_1: 'admin' } },
      ['body', 'roles_to_levels', 'LEVEL_1'],
    ],
    ['unknown type', { key: 'c-x', name: 'x', elements_type: 'widget' }, ['body', 'elements_type']],
    ['bad key', { key: 'c x', name: 'x' }, ['body', 'key']],
  ])('%s is 422', async (_, body, loc) => {
    expectInvalid(await cfg('POST', '', full(body)), loc);
  });

  it('an unknown configuration is 404', async () => {
    expectError(await cfg('GET', '/nope'), 404, 'NOT_FOUND');
  });
});

describe('list', () => {
  it('a bare array by default, the envelope with include_total_count, paged in creation order', async () => {
    const all = ok<{ key: string }[]>(await cfg('GET', '?per_page=100'));
    expect(all.map((c) => c.key)).toContain('um');
    const page = ok(await cfg('GET', '?include_total_count=true&per_page=1&page=2'));
    expect(page).toMatchObject({ total_count: all.length, page_count: all.length });
    expect(page.data.map((c: { key: string }) => c.key)).toEqual([all[1].key]);
    expectError(await cfg('GET', '?per_page=101'), 422, 'PAGINATION_SIZE_OVERREACHED');
  });
});

describe('update', () => {
  it('PATCH changes the fields sent, keeps the others, moves updated_at; there is no PUT', async () => {
    const c = ok(await cfg('POST', '', full({ key: 'c-up', name: 'before', roles_to_levels: { LEVEL_1: ['admin'] } })));
    const at = clock.tick();
    const u = ok(await cfg('PATCH', '/c-up', { roles_to_levels: { LEVEL_2: ['manager'] } }));
    expect({ ...u, roles_to_levels: levelKeys(u.roles_to_levels) }).toEqual({
      ...c,
      roles_to_levels: { LEVEL_2: ['manager'] },
      updated_at: at,
    });
    // The public `ElementsConfigUpdate` requires roles_to_levels.
    expectInvalid(await cfg('PATCH', `/${c.id}`, { name: 'after' }), ['body', 'roles_to_levels']);
    const renamed = ok(await cfg('PATCH', `/${c.id}`, { name: 'after', roles_to_levels: { LEVEL_2: ['manager'] } }));
    expect(renamed.name).toBe('after');
    expect(levelKeys(renamed.roles_to_levels)).toEqual({ LEVEL_2: ['manager'] });
    expectError(await cfg('PUT', '/c-up', { name: 'x' }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('a missing role is 404 and nothing changes; the key cannot change (422)', async () => {
    const c = ok(await cfg('POST', '', full({ key: 'c-up2', name: 'x', roles_to_levels: { LEVEL_1: ['admin'] } })));
    expectError(await cfg('PATCH', '/c-up2', { name: 'y', roles_to_levels: { LEVEL_1: ['ghost'] } }), 404, 'NOT_FOUND');
    expectInvalid(await cfg('PATCH', '/c-up2', { key: 'other' }), ['body', 'key']);
    expect(ok(await cfg('GET', '/c-up2'))).toEqual(c);
    expectError(await cfg('PATCH', '/nope', { name: 'y', roles_to_levels: {} }), 404, 'NOT_FOUND');
  });

  it('changing the levels changes who moderates requests created afterwards, not earlier ones', async () => {
    await elementsConfig(s, 'c-shift', { LEVEL_1: ['admin'] });
    const before = await aRequest(s, 'alice', { role: 'viewer' }, { config: 'c-shift' });
    ok(await cfg('PATCH', '/c-shift', { roles_to_levels: { LEVEL_1: ['manager'] } }));
    const after = await aRequest(s, 'alice', { role: 'viewer' }, { config: 'c-shift' });
    const seen = async (u: string) =>
      (ok(await as(s, u, { config: 'c-shift' }).list()).data as { id: string }[]).map((r) => r.id);
    expect(await seen('mod')).toEqual([before.id]);
    expect(await seen('mgr')).toEqual([after.id]);
  });
});

describe('delete', () => {
  it('DELETE /v2/elements/{p}/{e}/{key or id} answers 204, then 404; there is no delete under config/', async () => {
    const c = ok(await cfg('POST', '', full({ key: 'c-del', name: 'x' })));
    expectError(await cfg('DELETE', '/c-del'), 405, 'METHOD_NOT_ALLOWED');
    expect((await remove(c.id)).status).toBe(204);
    expectError(await cfg('GET', '/c-del'), 404, 'NOT_FOUND');
    expectError(await remove('c-del'), 404, 'NOT_FOUND');
    ok(await cfg('POST', '', full({ key: 'c-del', name: 'again' })));
    expect((await remove('c-del')).status).toBe(204);
  });

  it("removes the configuration's access requests with it (documented)", async () => {
    await elementsConfig(s, 'c-del2', { LEVEL_1: ['admin'] });
    await aRequest(s, 'alice', { role: 'viewer' }, { config: 'c-del2' });
    expect((await remove('c-del2')).status).toBe(204);
    expectError(await as(s, 'alice', { config: 'c-del2' }).list(), 404, 'NOT_FOUND');
    await elementsConfig(s, 'c-del2', { LEVEL_1: ['admin'] });
    expect(ok(await as(s, 'alice', { config: 'c-del2' }).list()).total_count).toBe(0);
  });
});

describe('deleting a role prunes it from every configuration', () => {
  it('roles_to_levels stops naming it, other roles stay, updated_at moves', async () => {
    await role(s, 'doomed');
    await elementsConfig(s, 'c-prune-a', { LEVEL_1: ['admin', 'doomed'], LEVEL_3: ['doomed'] });
    await elementsConfig(s, 'c-prune-b', { LEVEL_2: ['manager'] });
    const untouched = ok(await cfg('GET', '/c-prune-b'));
    const at = clock.tick();
    expect((await s.schema('DELETE', '/roles/doomed')).status).toBe(204);
    const pruned = ok(await cfg('GET', '/c-prune-a'));
    expect(levelKeys(pruned.roles_to_levels)).toEqual({ LEVEL_1: ['admin'], LEVEL_3: [] });
    expect(pruned.updated_at).toBe(at);
    expect(ok(await cfg('GET', '/c-prune-b'))).toEqual(untouched);
    // The role can be created again without it reappearing in the configuration.
    await role(s, 'doomed');
    expect(levelKeys(ok(await cfg('GET', '/c-prune-a')).roles_to_levels).LEVEL_1).toEqual(['admin']);
  });
});

describe('the access-request path names a configuration', () => {
  it('by key or id; an unknown one is 404 on every operation', async () => {
    const um = ok(await cfg('GET', '/um'));
    const r = await aRequest(s, 'alice');
    expect(ok(await as(s, 'alice', { config: um.id }).get(r.id)).id).toBe(r.id);
    const api = as(s, 'mod', { config: 'nope' });
    for (const res of [
      await api.list(),
      await api.get(r.id),
      await api.approve(r.id),
      await api.deny(r.id),
      await api.review(r.id, {}),
      await as(s, 'alice', { config: 'nope' }).cancel(r.id),
    ]) {
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.message).toContain("element configuration 'nope'");
    }
  });
});
