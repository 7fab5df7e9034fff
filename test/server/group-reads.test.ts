import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  addMember,
  allPages,
  allowed,
  expectError,
  grantGroup,
  group,
  link,
  ok,
  seedDocs,
  tenant,
  user,
} from './builders.js';

let s: TestServer;
let x: Awaited<ReturnType<typeof seedDocs>>;
beforeAll(async () => {
  s = await startTestServer();
  x = await seedDocs(s);
  await tenant(s, 'u');
  await group(s, 'team:a', 't');
  await group(s, 'team:b', 't');
  await group(s, 'team:c', 't');
  await group(s, 'dept:x', 't');
  await group(s, 'team:far', 'u');
  await link(s, 'team:a', 'team:b');
  await link(s, 'team:c', 'team:b');
  await addMember(s, 'team:a', 'alice', 't');
  await addMember(s, 'team:b', 'bob', 't');
  await grantGroup(s, 'team:b', { role: 'viewer', resource: 'doc', resource_instance: 'd1', tenant: 't' });
  await grantGroup(s, 'team:b', { role: 'editor', resource: 'doc', resource_instance: 'd2', tenant: 't' });
});
afterAll(() => s.close());

type GroupItem = { group_resource_type_key: string; group_instance_key: string };
/** Groups as `type:key`: the public read names a group by its type and instance key. */
const keys = (items: GroupItem[]) => items.map((g) => `${g.group_resource_type_key}:${g.group_instance_key}`);

describe('recommended reads', () => {
  it('GET /groups/direct lists every group in the envelope', async () => {
    const r = ok(await s.schema('GET', '/groups/direct'));
    expect(r).toEqual({ data: expect.any(Array), total_count: 5, page_count: 1 });
    expect(keys(r.data)).toEqual(['team:a', 'team:b', 'team:c', 'dept:x', 'team:far']);
    // The public GroupReadSchema and nothing else: a group's roles are read from /groups/{key}/roles.
    expect(r.data[1]).toEqual({
      id: expect.any(String),
      group_instance_key: 'b',
      group_tenant: 't',
      group_resource_type_key: 'team',
    });
  });

  it.each([
    ['tenant=u', ['team:far']],
    ['resource=dept', ['dept:x']],
    ['search=team:', ['team:a', 'team:b', 'team:c', 'team:far']],
    ['search=b', ['team:b']],
    ['search=%25', []],
    ['tenant=t&resource=team&per_page=2&page=2', ['team:c']],
  ])('GET /groups/direct?%s', async (query, expected) => {
    expect(keys(ok(await s.schema('GET', `/groups/direct?${query}`)).data)).toEqual(expected);
  });

  it('GET /groups/direct/{key} reads one group', async () => {
    expect(ok(await s.schema('GET', '/groups/direct/team:a'))).toEqual({
      id: expect.any(String),
      group_instance_key: 'a',
      group_resource_type_key: 'team',
      group_tenant: 't',
    });
    expectError(await s.schema('GET', '/groups/direct/team:ghost'), 404, 'NOT_FOUND');
  });

  it('children and parents', async () => {
    const children = ok(await s.schema('GET', '/groups/team:b/children'));
    expect(children).toEqual({ data: expect.any(Array), total_count: 2, page_count: 1 });
    expect(keys(children.data)).toEqual(['team:a', 'team:c']);
    expect(keys(ok(await s.schema('GET', '/groups/team:b/children?per_page=1&page=2')).data)).toEqual(['team:c']);
    expect(keys(ok(await s.schema('GET', '/groups/team:a/parents')).data)).toEqual(['team:b']);
    expect(ok(await s.schema('GET', '/groups/team:b/parents'))).toEqual({ data: [], total_count: 0, page_count: 0 });
    expectError(await s.schema('GET', '/groups/team:ghost/children'), 404, 'NOT_FOUND');
  });

  it('users: direct members, or with nested=true also those of child groups', async () => {
    const direct = ok(await s.schema('GET', '/groups/team:b/users'));
    expect(direct).toEqual({ data: [{ id: expect.any(String), key: 'bob' }], total_count: 1, page_count: 1 });
    const nested = ok(await s.schema('GET', '/groups/team:b/users?nested=true'));
    expect(nested.data.map((u: { key: string }) => u.key)).toEqual(['alice', 'bob']);
    expectError(await s.schema('GET', '/groups/team:ghost/users'), 404, 'NOT_FOUND');
  });

  it('roles: the group’s grants with resource and instance', async () => {
    const r = ok(await s.schema('GET', '/groups/team:b/roles'));
    expect(r.total_count).toBe(2);
    expect(r.data[0]).toEqual({
      key: 'viewer',
      resource: { id: expect.any(String), key: 'doc' },
      resource_instance: { id: expect.any(String), key: 'd1' },
    });
    expect(ok(await s.schema('GET', '/groups/team:a/roles'))).toEqual({ data: [], total_count: 0, page_count: 0 });
  });
});

describe('deprecated reads still answer', () => {
  it('GET /groups is a bare array of full group reads', async () => {
    const r = ok(await s.schema('GET', '/groups'));
    expect(Array.isArray(r)).toBe(true);
    const alice = ok(await s.facts('GET', '/users/alice')).id;
    // The public GroupRead: members by id.
    expect(r.find((g: GroupItem) => g.group_instance_key === 'a')).toEqual({
      group_instance_key: 'a',
      group_tenant: 't',
      group_resource_type_key: 'team',
      users: [alice],
      assigned_roles: [],
    });
  });

  it('GET /groups/{key} is the full group read', async () => {
    const bob = ok(await s.facts('GET', '/users/bob')).id;
    expect(ok(await s.schema('GET', '/groups/team:b'))).toEqual({
      group_instance_key: 'b',
      group_tenant: 't',
      group_resource_type_key: 'team',
      users: [bob],
      assigned_roles: ['doc:d1#viewer', 'doc:d2#editor'],
    });
    expectError(await s.schema('GET', '/groups/team:ghost'), 404, 'NOT_FOUND');
  });

  it('a bare key names a group of the default type "group"', async () => {
    await group(s, 'group:plain', 't');
    expect(keys([ok(await s.schema('GET', '/groups/plain'))])).toEqual(['group:plain']);
    expect(keys([ok(await s.schema('GET', '/groups/direct/plain'))])).toEqual(['group:plain']);
  });
});

describe('a group of 10,000 members', () => {
  it('lists in pages, and membership still decides access', async () => {
    const n = 10_000;
    await group(s, 'team:big', 't');
    await grantGroup(s, 'team:big', { role: 'viewer', resource: 'doc', resource_instance: 'd2', tenant: 't' });
    const keysOf = Array.from({ length: n }, (_, i) => `m${String(i).padStart(5, '0')}`);
    await seedUsers(keysOf);
    // Memberships over HTTP, in bulk: membership is the role `member` on the group's instance.
    for (let i = 0; i < n; i += 1000) {
      const batch = keysOf.slice(i, i + 1000);
      const r = await s.facts(
        'POST',
        '/role_assignments/bulk',
        batch.map((k) => ({ user: k, role: 'member', resource_instance: 'team:big' })),
      );
      expect(ok(r).assignments_created).toBe(1000);
    }
    const first = ok(await s.schema('GET', '/groups/team:big/users?per_page=100'));
    expect(first.total_count).toBe(n);
    expect(first.page_count).toBe(100);
    expect(first.data[0].key).toBe('m00000');
    const last = ok(await s.schema('GET', '/groups/team:big/users?per_page=100&page=100'));
    expect(last.data.map((u: { key: string }) => u.key).at(-1)).toBe('m09999');
    expect(ok(await s.schema('GET', '/groups/team:big/users?per_page=100&page=101')).data).toEqual([]);
    const middle = ok(await s.schema('GET', '/groups/team:big/users?per_page=100&page=43'));
    expect(middle.data.map((u: { key: string }) => u.key)).toEqual(keysOf.slice(4200, 4300));
    // The full (deprecated) read lists at most 100 members: the pages above are how to read them all.
    expect(ok(await s.schema('GET', '/groups/team:big')).users).toHaveLength(100);
    expect(await allowed(s, 'm04321', 'read', { type: 'doc', key: 'd2' })).toBe(true);
    expect(await allowed(s, 'm04321', 'read', { type: 'doc', key: 'd1' })).toBe(false);
  }, 120_000);
});

/** The users, created with the public bulk call (up to 3,000 a call). */
async function seedUsers(keys: string[]) {
  for (let i = 0; i < keys.length; i += 3000)
    ok(await s.facts('POST', '/bulk/users', { operations: keys.slice(i, i + 3000).map((key) => ({ key })) }));
  expect(ok(await s.facts('GET', '/users?search=m0')).total_count).toBe(keys.length);
}

describe('PUT membership by user loop', () => {
  it('adds users one by one and reads them back through the users of the group', async () => {
    await group(s, 'team:loop', 't');
    for (let i = 0; i < 50; i++) {
      await user(s, `loop${i}`);
      await addMember(s, 'team:loop', `loop${i}`, 't');
    }
    expect(ok(await s.schema('GET', '/groups/team:loop/users?per_page=20&page=3'))).toMatchObject({
      total_count: 50,
      page_count: 3,
    });
    expect(ok(await s.schema('GET', '/groups/team:loop/users?per_page=20&page=3')).data).toHaveLength(10);
  });
});
