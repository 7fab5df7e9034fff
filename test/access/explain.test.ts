import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { chain, direct, facts } from './builders.js';

const graph = buildAccessGraph(
  facts({
    roles: {
      viewer: ['document:read'],
      editor: { permissions: ['document:write'], extends: ['viewer'] },
      admin: { permissions: ['document:delete'], extends: ['editor'] },
    },
    instances: [['document:readme', 'acme']],
    memberships: [['alice', 'team:platform']],
    links: [['team:platform', 'team:engineering']],
    groupGrants: [['team:engineering', 'editor', 'document:readme'], ['team:ops', 'admin', 'document:readme']],
    instanceRoles: [['alice', 'viewer', 'document:readme']],
  }),
);

describe('explain', () => {
  it('a role held: every path', () => {
    expect(graph.explain('alice', 'editor', 'document:readme')).toEqual({
      user: 'alice',
      instance: 'document:readme',
      subject: 'editor',
      kind: 'role',
      allowed: true,
      via: [{ role: 'editor', path: chain('team:platform', 'team:engineering') }],
    });
  });

  it('an action allowed: every role and path, direct first', () => {
    const e = graph.explain('alice', 'read', 'document:readme');
    expect(e).toMatchObject({ kind: 'permission', permission: 'document:read', allowed: true });
    expect(e.via).toEqual([
      { role: 'viewer', path: direct },
      { role: 'editor', path: chain('team:platform', 'team:engineering') },
    ]);
  });

  it('an action denied: the roles that would grant it and the groups that already hold them', () => {
    const e = graph.explain('alice', 'delete', 'document:readme');
    expect(e.allowed).toBe(false);
    expect(e.missing).toEqual({
      roles: ['admin'],
      groups: [{ group: 'team:ops', role: 'admin' }],
      tenant: 'acme',
      message:
        'alice lacks document:delete on document:readme; it would take a direct admin on document:readme; ' +
        'or a tenant-wide admin in acme; or membership of team:ops (admin).',
    });
  });

  it('a role denied on an unlisted instance says tenant-wide roles do not apply', () => {
    const e = graph.explain('bob', 'viewer', 'document:elsewhere');
    expect(e).toMatchObject({ kind: 'role', allowed: false, via: [] });
    expect(e.missing?.tenant).toBeNull();
    expect(e.missing?.message).toContain('not a listed instance');
  });

  it('a permission no role has', () => {
    expect(graph.explain('alice', 'archive', 'document:readme').missing).toMatchObject({
      roles: [],
      message: 'No role has document:archive: no assignment can grant it.',
    });
  });

  it('a permission of another type', () => {
    const e = graph.explain('alice', 'folder:read', 'document:readme');
    expect(e).toMatchObject({ kind: 'permission', allowed: false });
    expect(e.missing?.message).toContain('another resource type');
  });
});
