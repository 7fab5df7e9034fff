import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addMember, allowed, grantGroup, group, instance, link, ok, resource, role, tenant, user } from './builders.js';

/**
 * `users?nested=true` lists exactly the users /allowed treats as members: through linked child groups,
 * and through groups given the role `member` on the group (or on a descendant).
 */
describe('GET /groups/{key}/users?nested=true follows both kinds of edge', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await resource(s, 'doc', ['read']);
    await role(s, 'viewer', ['doc:read']);
    await tenant(s, 't');
    await instance(s, 'doc', 'd1', 't');
    for (const u of ['ann', 'ben', 'cat', 'dan']) await user(s, u);
    for (const g of ['team:top', 'team:linked', 'team:granted', 'team:deep']) await group(s, g, 't');
    await addMember(s, 'team:top', 'ann', 't');
    await addMember(s, 'team:linked', 'ben', 't');
    await addMember(s, 'team:granted', 'cat', 't');
    await addMember(s, 'team:deep', 'dan', 't');
    await link(s, 'team:linked', 'team:top');
    // team:granted's members become members of team:top through a `member` grant on its instance…
    await grantGroup(s, 'team:granted', { role: 'member', resource: 'team', resource_instance: 'top', tenant: 't' });
    // …and team:deep's through a link below that.
    await link(s, 'team:deep', 'team:granted');
    await grantGroup(s, 'team:top', { role: 'viewer', resource: 'doc', resource_instance: 'd1', tenant: 't' });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('lists every member, direct or not', async () => {
    const r = ok(await s.schema('GET', '/groups/team:top/users?nested=true'));
    expect(r.data.map((u: { key: string }) => u.key)).toEqual(['ann', 'ben', 'cat', 'dan']);
    expect(r.total_count).toBe(4);
  });

  it('agrees with /allowed for each of them', async () => {
    for (const u of ['ann', 'ben', 'cat', 'dan'])
      expect(await allowed(s, u, 'read', { type: 'doc', key: 'd1' })).toBe(true);
  });

  it('direct listing is unchanged', async () => {
    expect(ok(await s.schema('GET', '/groups/team:top/users')).data.map((u: { key: string }) => u.key)).toEqual([
      'ann',
    ]);
  });
});
