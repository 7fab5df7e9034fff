/**
 * Resource roles in the access graph, from a configuration: a role named on an instance is the resource
 * role of the instance's type when the type declares it (`document#editor`), else the top-level role;
 * tenant-wide roles are top-level; `extends` stays within the resource.
 */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { validateSources } from '../../src/config/index.js';

const BASE = `
resources:
  document:
    actions: [read, write, share]
    roles:
      viewer: [read]
      editor: { permissions: [write], extends: [viewer] }
      owner: { permissions: [share], extends: [editor] }
  folder: [read, write]
roles:
  editor: [document:share, folder:write]
  auditor: [document:read, folder:read]
tenants:
  acme: {}
resource_instances:
  document:plan: acme
  document:memo: acme
  folder:root: acme
users:
  alice: { tenants: [acme], roles: [{ role: editor, on: document:plan }] }
  bob: { tenants: [acme], roles: [editor] }
  carol: { tenants: [acme], roles: [{ role: editor, on: folder:root }] }
  dave: { tenants: [acme] }
  erin: { tenants: [acme], roles: [auditor] }
groups:
  team:eng: { tenant: acme, members: [dave], roles: [{ role: owner, on: document:memo }] }
`;

function graphOf(text: string) {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  expect(r.errors).toEqual([]);
  return buildAccessGraph(factsFromState(r.desired!));
}

describe('resource roles in the access graph', () => {
  const g = graphOf(BASE);

  it.each([
    // [user, action, instance, allowed, why]
    ['alice', 'read', 'document:plan', true, 'document#editor extends document#viewer'],
    ['alice', 'write', 'document:plan', true, 'document#editor'],
    ['alice', 'share', 'document:plan', false, 'the resource role shadows the top-level editor on documents'],
    ['alice', 'write', 'document:memo', false, 'held on another instance only'],
    ['bob', 'share', 'document:plan', true, 'tenant-wide roles are top-level: editor permits document:share'],
    ['bob', 'write', 'document:plan', false, 'the top-level editor has no document:write'],
    ['carol', 'write', 'folder:root', true, 'folder has no resource roles: the top-level editor applies'],
    ['dave', 'share', 'document:memo', true, 'document#owner through team:eng'],
    ['dave', 'read', 'document:memo', true, 'owner extends editor extends viewer'],
    ['dave', 'read', 'document:plan', false, 'the group grant is on memo only'],
    ['erin', 'read', 'folder:root', true, 'a tenant-wide top-level role'],
  ] as const)('%s %s %s: %s (%s)', (user, action, instance, allowed, _why) => {
    expect(g.can(user, action, instance).allowed).toBe(allowed);
  });

  it('names resource roles by identity in paths, explanations and holders', () => {
    expect(g.rolesOn('alice', 'document:plan').map((h) => h.role)).toEqual(['document#editor']);
    expect(g.rolesOn('bob', 'document:plan').map((h) => h.role)).toEqual(['editor']);
    expect(g.can('dave', 'read', 'document:memo').via.map((v) => v.role)).toEqual(['document#owner']);
    const e = g.explain('alice', 'editor', 'document:plan');
    expect(e).toMatchObject({
      kind: 'role',
      allowed: true,
      via: [{ role: 'document#editor', path: { kind: 'direct' } }],
    });
    expect(g.explain('bob', 'editor', 'document:plan')).toMatchObject({ kind: 'role', allowed: false });
    expect(g.usersWith('editor', 'document:plan')).toEqual(['alice']);
    expect(g.usersWith('document:read', 'document:plan')).toEqual(['alice', 'erin']);
    expect(g.permissionsOf('document#owner')).toEqual(['document:read', 'document:share', 'document:write']);
  });

  it('an explanation of a denied action names the resource roles that would grant it, tenant-wide only the top-level ones', () => {
    const e = g.explain('carol', 'write', 'document:plan');
    expect(e.allowed).toBe(false);
    expect(e.missing?.roles).toEqual(['document#editor', 'document#owner']);
    expect(e.missing?.message).toContain('a direct document#editor or document#owner on document:plan');
    expect(e.missing?.message).not.toContain('tenant-wide');
  });

  it('a type without resource roles keeps the top-level meaning everywhere', () => {
    const plain = graphOf(
      BASE.replace(
        /  document:\n    actions: \[read, write, share\]\n    roles:\n(      .*\n){3}/,
        '  document: [read, write, share]\n',
      ).replace(/owner/g, 'editor'),
    );
    expect(plain.rolesOn('alice', 'document:plan').map((h) => h.role)).toEqual(['editor']);
    expect(plain.can('alice', 'share', 'document:plan').allowed).toBe(true);
    expect(plain.can('alice', 'write', 'document:plan').allowed).toBe(false);
  });
});
