import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { chain, direct, facts } from './builders.js';
import { factsFromState } from '../../src/access/from-state.js';
import { validateSources } from '../../src/config/index.js';

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
    groupGrants: [
      ['team:engineering', 'editor', 'document:readme'],
      ['team:ops', 'admin', 'document:readme'],
    ],
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
      ways: [
        { role: 'admin', instance: 'document:readme', by: { kind: 'direct' }, steps: [] },
        { role: 'admin', instance: 'document:readme', by: { kind: 'tenant', tenant: 'acme' }, steps: [] },
        { role: 'admin', instance: 'document:readme', by: { kind: 'group', group: 'team:ops' }, steps: [] },
      ],
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

describe('explain of a denied access: every way in, derivations and the groups holding them included (issue 28)', () => {
  const config = `
resources:
  folder:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      editor: { permissions: [read, write], granted_to: [{ role: editor, on: folder, via: parent }] }
  document:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      viewer: [read]
      editor: { permissions: [write], extends: [viewer], granted_to: [{ role: editor, on: folder, via: parent }] }
roles:
  auditor: [document:read, folder:read]
  admin: [document:write]
tenants:
  acme: {}
resource_instances:
  folder:root: acme
  folder:finance: { tenant: acme, relations: { parent: folder:root } }
  document:budget: { tenant: acme, relations: { parent: folder:finance } }
users:
  frank: { tenants: [acme] }
  gina: { tenants: [acme] }
groups:
  team:finance: { tenant: acme, members: [gina], roles: [{ role: editor, on: folder:finance }] }
  team:docs: { tenant: acme, roles: [{ role: editor, on: document:budget }] }
`;
  const r = validateSources([{ file: 'roster.yaml', text: config }]);
  if (!r.desired) throw new Error(JSON.stringify(r.errors));
  const g = buildAccessGraph(factsFromState(r.desired));

  it('lists direct and tenant-wide roles, resource roles, derivations from the parent folders, and the groups that hold them', () => {
    const e = g.explain('frank', 'write', 'document:budget');
    expect(e.allowed).toBe(false);
    expect(e.missing?.roles).toEqual(['admin', 'document#editor']);
    const step = (role: string, object: string) => ({ relation: 'parent', object, role });
    expect(e.missing?.ways).toEqual([
      { role: 'admin', instance: 'document:budget', by: { kind: 'direct' }, steps: [] },
      { role: 'admin', instance: 'document:budget', by: { kind: 'tenant', tenant: 'acme' }, steps: [] },
      { role: 'document#editor', instance: 'document:budget', by: { kind: 'direct' }, steps: [] },
      { role: 'document#editor', instance: 'document:budget', by: { kind: 'group', group: 'team:docs' }, steps: [] },
      {
        role: 'folder#editor',
        instance: 'folder:finance',
        by: { kind: 'direct' },
        steps: [step('document#editor', 'document:budget')],
      },
      {
        role: 'folder#editor',
        instance: 'folder:finance',
        by: { kind: 'group', group: 'team:finance' },
        steps: [step('document#editor', 'document:budget')],
      },
      {
        role: 'folder#editor',
        instance: 'folder:root',
        by: { kind: 'direct' },
        steps: [step('folder#editor', 'folder:finance'), step('document#editor', 'document:budget')],
      },
    ]);
    expect(e.missing?.message).toBe(
      'frank lacks document:write on document:budget; it would take a direct admin or document#editor on document:budget; ' +
        'or a tenant-wide admin in acme; or membership of team:docs (document#editor); ' +
        'or a direct folder#editor on folder:finance (document#editor via parent); ' +
        'or membership of team:finance, which holds folder#editor on folder:finance (document#editor via parent); ' +
        'or a direct folder#editor on folder:root (folder#editor on folder:finance via parent, then document#editor via parent).',
    );
  });

  it('every way it lists grants the access, on the graph itself', () => {
    for (const w of g.explain('frank', 'write', 'document:budget').missing!.ways) {
      const f = factsFromState(r.desired!);
      if (w.by.kind === 'direct') f.instanceRoles.push({ user: 'frank', role: w.role, instance: w.instance });
      else if (w.by.kind === 'tenant') f.tenantRoles.push({ user: 'frank', role: w.role, tenant: w.by.tenant });
      else f.memberships.push({ user: 'frank', group: w.by.group });
      expect(buildAccessGraph(f).can('frank', 'write', 'document:budget').allowed, JSON.stringify(w)).toBe(true);
    }
  });

  it('a granted access through a group holding a folder role still explains the derived path', () => {
    expect(g.explain('gina', 'write', 'document:budget')).toMatchObject({
      allowed: true,
      via: [{ role: 'document#editor', path: { kind: 'derived', subject: 'folder:finance', role: 'folder#editor' } }],
    });
  });
});
