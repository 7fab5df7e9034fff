import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { allowed, expectError, expectInvalid, ok, resource, tenant, user } from './builders.js';

/**
 * `granted_to` in the public role bodies (`RoleCreate`, `RoleUpdate`, `ResourceRoleCreate`,
 * `ResourceRoleUpdate`): the role's derivations, written with the role, checked as `.../implicit_grants`
 * checks them, read back in `RoleRead` / `ResourceRoleRead` (docs/server.md, "granted_to on roles").
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await tenant(s, 't');
  await resource(s, 'organization', ['manage']);
  await resource(s, 'folder', ['read'], { roles: { viewer: { name: 'Viewer', permissions: ['read'] } } });
  await resource(s, 'repo', ['read', 'push'], { relations: { owner: 'organization', parent: 'folder' } });
  ok(await s.schema('POST', '/resources/organization/roles', { key: 'admin', name: 'Admin', permissions: ['manage'] }));
  ok(await s.facts('POST', '/resource_instances', { key: 'acme', resource: 'organization', tenant: 't' }));
  ok(await s.facts('POST', '/resource_instances', { key: 'r1', resource: 'repo', tenant: 't' }));
  ok(
    await s.facts('POST', '/relationship_tuples', {
      subject: 'organization:acme',
      relation: 'owner',
      object: 'repo:r1',
      tenant: 't',
    }),
  );
  await user(s, 'ann');
  ok(
    await s.facts('POST', '/role_assignments', {
      user: 'ann',
      role: 'admin',
      resource_instance: 'organization:acme',
      tenant: 't',
    }),
  );
});
afterAll(() => s.close());

describe('granted_to on a resource role', () => {
  it('the public example body: POST .../resources/repo/roles with granted_to derives the role, and reads it back', async () => {
    expect(await allowed(s, 'ann', 'push', { type: 'repo', key: 'r1' })).toBe(false);
    // ResourceRoleCreate's own example, with this environment's keys.
    const made = ok(
      await s.schema('POST', '/resources/repo/roles', {
        key: 'maintainer',
        name: 'Maintainer',
        permissions: ['push'],
        granted_to: { users_with_role: [{ role: 'admin', on_resource: 'organization', linked_by_relation: 'owner' }] },
      }),
    );
    expect(made.granted_to).toMatchObject({
      id: expect.any(String),
      when: { no_direct_roles_on_object: false },
      users_with_role: [
        {
          role: 'admin',
          on_resource: 'organization',
          linked_by_relation: 'owner',
          role_id: expect.any(String),
          resource_id: expect.any(String),
          relation_id: expect.any(String),
        },
      ],
    });
    expect(await allowed(s, 'ann', 'push', { type: 'repo', key: 'r1' })).toBe(true);
    expect(ok(await s.schema('GET', '/resources/repo/roles/maintainer')).granted_to).toEqual(made.granted_to);
    expect(
      ok(await s.schema('GET', '/resources/repo/roles')).find((r: { key: string }) => r.key === 'maintainer')
        .granted_to,
    ).toEqual(made.granted_to);
    expect(ok(await s.schema('GET', '/resources/repo')).roles.maintainer.granted_to).toEqual(made.granted_to);
    expect(ok(await s.schema('GET', '/resources/repo/roles/maintainer/implicit_grants'))).toEqual([
      expect.objectContaining({ role: 'admin', on_resource: 'organization', linked_by_relation: 'owner' }),
    ]);
  });

  it("PATCH with granted_to replaces the derivations and the block's when; without it they stay; `users_with_role: []` removes them", async () => {
    ok(await s.schema('PATCH', '/resources/repo/roles/maintainer', { description: 'pushes' }));
    expect(ok(await s.schema('GET', '/resources/repo/roles/maintainer')).granted_to.users_with_role).toHaveLength(1);
    const patched = ok(
      await s.schema('PATCH', '/resources/repo/roles/maintainer', {
        granted_to: {
          users_with_role: [{ role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' }],
          when: { no_direct_roles_on_object: true },
        },
      }),
    );
    expect(patched.granted_to).toMatchObject({
      when: { no_direct_roles_on_object: true },
      users_with_role: [{ role: 'viewer', on_resource: 'folder', linked_by_relation: 'parent' }],
    });
    expect(await allowed(s, 'ann', 'push', { type: 'repo', key: 'r1' })).toBe(false);
    const cleared = ok(
      await s.schema('PATCH', '/resources/repo/roles/maintainer', { granted_to: { users_with_role: [] } }),
    );
    expect(cleared).not.toHaveProperty('granted_to');
    expect(ok(await s.schema('GET', '/resources/repo/roles/maintainer/implicit_grants'))).toEqual([]);
  });

  it('refuses what .../implicit_grants refuses, with the same errors, and writes nothing', async () => {
    const body = (rule: object) => ({ key: 'broken', name: 'Broken', granted_to: { users_with_role: [rule] } });
    const rule = { role: 'admin', on_resource: 'organization', linked_by_relation: 'owner' };
    for (const [bad, status, code] of [
      [{ ...rule, role: 'ghost' }, 404, 'NOT_FOUND'],
      [{ ...rule, on_resource: 'ghost' }, 404, 'NOT_FOUND'],
      [{ ...rule, linked_by_relation: 'ghost' }, 404, 'NOT_FOUND'],
      [{ ...rule, linked_by_relation: 'parent' }, 422, 'MISMATCH_RELATION_TYPE'],
    ] as const) {
      const viaRoute = await s.schema('POST', '/resources/repo/roles/maintainer/implicit_grants', bad);
      const viaBody = await s.schema('POST', '/resources/repo/roles', body(bad));
      expectError(viaBody, status, code);
      expect(viaBody.body.message).toBe(viaRoute.body.message);
      // Nothing written: no role half made.
      expectError(await s.schema('GET', '/resources/repo/roles/broken'), 404, 'NOT_FOUND');
    }
    expectInvalid(
      await s.schema('POST', '/resources/repo/roles', body({ role: 'admin', on_resource: 'organization' })),
      ['body', 'granted_to', 'users_with_role', 0, 'linked_by_relation'],
    );
    // A refused update leaves the role as it was.
    ok(await s.schema('PATCH', '/resources/repo/roles/maintainer', { granted_to: { users_with_role: [rule] } }));
    expectError(
      await s.schema('PATCH', '/resources/repo/roles/maintainer', {
        name: 'Renamed',
        granted_to: { users_with_role: [{ ...rule, role: 'ghost' }] },
      }),
      404,
      'NOT_FOUND',
    );
    const after = ok(await s.schema('GET', '/resources/repo/roles/maintainer'));
    expect(after.name).toBe('Maintainer');
    expect(after.granted_to.users_with_role).toEqual([expect.objectContaining(rule)]);
  });
});

describe('granted_to on a top-level role', () => {
  it('derives the role onto the resources whose relation links on_resource, and reads it back in RoleRead', async () => {
    const made = ok(
      await s.schema('POST', '/roles', {
        key: 'auditor',
        name: 'Auditor',
        permissions: ['repo:read'],
        granted_to: { users_with_role: [{ role: 'admin', on_resource: 'organization', linked_by_relation: 'owner' }] },
      }),
    );
    expect(made.granted_to.users_with_role).toEqual([
      expect.objectContaining({ role: 'admin', on_resource: 'organization', linked_by_relation: 'owner' }),
    ]);
    expect(await allowed(s, 'ann', 'read', { type: 'repo', key: 'r1' })).toBe(true);
    expect(ok(await s.schema('GET', '/roles/auditor')).granted_to).toEqual(made.granted_to);
    expect(ok(await s.schema('GET', '/resources/repo/roles/auditor/implicit_grants'))).toHaveLength(1);
    // Replaced by PATCH; refused as the route refuses.
    expectError(
      await s.schema('PATCH', '/roles/auditor', {
        granted_to: { users_with_role: [{ role: 'admin', on_resource: 'organization', linked_by_relation: 'ghost' }] },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await s.schema('PATCH', '/roles/auditor', {
        granted_to: { users_with_role: [{ role: 'viewer', on_resource: 'folder', linked_by_relation: 'owner' }] },
      }),
      422,
      'MISMATCH_RELATION_TYPE',
    );
    expect(ok(await s.schema('GET', '/roles/auditor')).granted_to).toEqual(made.granted_to);
    expect(ok(await s.schema('PATCH', '/roles/auditor', { granted_to: { users_with_role: [] } }))).not.toHaveProperty(
      'granted_to',
    );
    expect(await allowed(s, 'ann', 'read', { type: 'repo', key: 'r1' })).toBe(false);
    // A refused create leaves no role.
    expectError(
      await s.schema('POST', '/roles', {
        key: 'nope',
        name: 'Nope',
        granted_to: { users_with_role: [{ role: 'ghost', on_resource: 'organization', linked_by_relation: 'owner' }] },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(await s.schema('GET', '/roles/nope'), 404, 'NOT_FOUND');
  });
});
