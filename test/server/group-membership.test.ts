import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { addMember, allPages, allowed, grantGroup, group, link, ok, resource, tenant, user } from './builders.js';

/**
 * Membership and links (docs/server.md, "Groups: membership and links"): membership is the group type's
 * resource role `member` (`team#member`); a member of a group linked into B, or of a group given
 * `member` on B, holds `member` on B for every purpose: B's group roles, what `team#member` itself
 * allows on B, and derivations from `team#member`. /allowed, /allowed/bulk and the nested member list
 * agree on who that is.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await tenant(s, 't');
  await resource(s, 'team', ['see']);
  // folder#viewer <- team#member via owner_team.
  await resource(s, 'folder', ['read'], {
    roles: { viewer: { name: 'Viewer', permissions: ['read'] } },
    relations: { owner_team: 'team' },
  });
  for (const g of ['a', 'b', 'c', 'lone']) await group(s, `team:${g}`, 't');
  await group(s, 'dept:x', 't');
  ok(
    await s.schema('POST', '/resources/folder/roles/viewer/implicit_grants', {
      role: 'member',
      on_resource: 'team',
      linked_by_relation: 'owner_team',
    }),
  );
  // What `team#member` itself allows on the team's instance.
  ok(await s.schema('PATCH', '/resources/team/roles/member', { permissions: ['see'] }));
  ok(await s.facts('POST', '/resource_instances', { key: 'f', resource: 'folder', tenant: 't' }));
  ok(
    await s.facts('POST', '/relationship_tuples', {
      subject: 'team:b',
      relation: 'owner_team',
      object: 'folder:f',
      tenant: 't',
    }),
  );
  for (const u of ['direct', 'linked', 'granted', 'dept', 'assigned', 'outsider']) await user(s, u);
  await addMember(s, 'team:b', 'direct', 't');
  // team:a linked into team:b.
  await addMember(s, 'team:a', 'linked', 't');
  await link(s, 'team:a', 'team:b');
  // team:c given `member` on team:b (a link by another name).
  await addMember(s, 'team:c', 'granted', 't');
  await grantGroup(s, 'team:c', { role: 'member', resource: 'team', resource_instance: 'b', tenant: 't' });
  // A group of another type given team#member on team:b.
  await addMember(s, 'dept:x', 'dept', 't');
  await grantGroup(s, 'dept:x', { role: 'member', resource: 'team', resource_instance: 'b', tenant: 't' });
  // A client that assigns the role key `member` on a group's instance (Roster's own client does).
  ok(
    await s.facts('POST', '/role_assignments', {
      user: 'assigned',
      role: 'member',
      resource_instance: 'team:lone',
      tenant: 't',
    }),
  );
  await addMember(s, 'team:lone', 'outsider', 't');
});
afterAll(() => s.close());

const inB = ['direct', 'linked', 'granted', 'dept'];

describe('members of linked groups are members for every purpose', () => {
  it("a derivation from team#member reaches the members of a group linked into the tuple's team, and of groups given member on it", async () => {
    for (const u of inB) expect(await allowed(s, u, 'read', { type: 'folder', key: 'f' }), u).toBe(true);
    for (const u of ['assigned', 'outsider'])
      expect(await allowed(s, u, 'read', { type: 'folder', key: 'f' }), u).toBe(false);
  });

  it('what team#member allows on team:b, it allows them there', async () => {
    for (const u of inB) expect(await allowed(s, u, 'see', { type: 'team', key: 'b' }), u).toBe(true);
    expect(await allowed(s, 'outsider', 'see', { type: 'team', key: 'b' })).toBe(false);
    expect(await allowed(s, 'outsider', 'see', { type: 'team', key: 'lone' })).toBe(true);
  });

  it('/allowed/bulk and the nested member list say the same', async () => {
    const users = [...inB, 'assigned', 'outsider'];
    const r = ok(
      await s.call(
        'POST',
        '/allowed/bulk',
        users.map((u) => ({ user: u, action: 'read', resource: 'folder:f' })),
        { key: ENV_KEY },
      ),
    );
    expect(r.allow.map((a: { allow: boolean }) => a.allow)).toEqual(users.map((u) => inB.includes(u)));
    const nested = (await allPages<{ key: string }>(s, '/v2/schema/p/e/groups/team:b/users?nested=true'))
      .map((u) => u.key)
      .sort();
    expect(nested).toEqual([...inB].sort());
    expect((await allPages<{ key: string }>(s, '/v2/schema/p/e/groups/team:b/users')).map((u) => u.key)).toEqual([
      'direct',
    ]);
  });
});

describe("membership is the group type's resource role member", () => {
  it("reads back as team#member on the group's instance, written by PUT /groups/{g}/users or by assigning `member`", async () => {
    const member = ok(await s.schema('GET', '/resources/team/roles/member'));
    expect(member).toMatchObject({ key: 'member', resource: 'team', permissions: ['see'] });
    expect((await s.schema('GET', '/roles/member')).status).toBe(404);
    const rows = ok(await s.facts('GET', '/role_assignments?resource_instance=team:lone'));
    expect(
      rows.map((r: { user: string; role: string; role_id: string }) => [r.user, r.role, r.role_id]).sort(),
    ).toEqual([
      ['assigned', 'member', member.id],
      ['outsider', 'member', member.id],
    ]);
    expect((await allPages<{ key: string }>(s, '/v2/schema/p/e/groups/team:lone/users')).map((u) => u.key)).toEqual([
      'assigned',
      'outsider',
    ]);
    // Each group type has its own.
    expect(ok(await s.schema('GET', '/resources/dept/roles/member'))).toMatchObject({ resource: 'dept' });
  });
});

describe('derivation conditions are kept per (resource, role)', () => {
  it('a condition set through a resource without a resource role of that key stays on that resource', async () => {
    const srv = await startTestServer();
    try {
      await tenant(srv, 't');
      await resource(srv, 'folder', ['read']);
      await resource(srv, 'doc', ['read'], { relations: { parent: 'folder' } });
      await resource(srv, 'sheet', ['read'], { relations: { parent: 'folder' } });
      // A top-level role derived onto both doc and sheet from itself on the parent folder.
      ok(
        await srv.schema('POST', '/roles', {
          key: 'reader',
          name: 'Reader',
          permissions: ['folder:read', 'doc:read', 'sheet:read'],
        }),
      );
      for (const r of ['doc', 'sheet'])
        ok(
          await srv.schema('POST', `/resources/${r}/roles/reader/implicit_grants`, {
            role: 'reader',
            on_resource: 'folder',
            linked_by_relation: 'parent',
          }),
        );
      await user(srv, 'u');
      for (const [r, k] of [
        ['folder', 'f'],
        ['doc', 'd'],
        ['sheet', 's'],
      ])
        ok(await srv.facts('POST', '/resource_instances', { key: k, resource: r, tenant: 't' }));
      for (const o of ['doc:d', 'sheet:s'])
        ok(
          await srv.facts('POST', '/relationship_tuples', {
            subject: 'folder:f',
            relation: 'parent',
            object: o,
            tenant: 't',
          }),
        );
      ok(
        await srv.facts('POST', '/role_assignments', {
          user: 'u',
          role: 'reader',
          resource_instance: 'folder:f',
          tenant: 't',
        }),
      );
      // u also holds a direct role on both objects: the condition, where it applies, stops the derivation.
      ok(await srv.schema('POST', '/roles', { key: 'nobody', name: 'Nobody' }));
      for (const o of ['doc:d', 'sheet:s'])
        ok(
          await srv.facts('POST', '/role_assignments', {
            user: 'u',
            role: 'nobody',
            resource_instance: o,
            tenant: 't',
          }),
        );
      expect(await allowed(srv, 'u', 'read', { type: 'doc', key: 'd' })).toBe(true);
      ok(
        await srv.schema('PUT', '/resources/doc/roles/reader/implicit_grants/conditions', {
          no_direct_roles_on_object: true,
        }),
      );
      expect(await allowed(srv, 'u', 'read', { type: 'doc', key: 'd' })).toBe(false);
      // The sheet's derivation of the same top-level role is untouched, and its read says so.
      expect(await allowed(srv, 'u', 'read', { type: 'sheet', key: 's' })).toBe(true);
      expect(ok(await srv.schema('GET', '/resources/doc')).roles.reader.granted_to.when).toEqual({
        no_direct_roles_on_object: true,
      });
      expect(ok(await srv.schema('GET', '/resources/sheet')).roles.reader.granted_to.when).toEqual({
        no_direct_roles_on_object: false,
      });
    } finally {
      await srv.close();
    }
  });
});
