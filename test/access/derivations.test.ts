/**
 * Role derivations over relationship tuples in the access graph, from a configuration: a folder tree 3
 * deep, a team holding a folder role, `no_direct_roles_on_object`, a cycle of tuples, and the path kept
 * for `explain`.
 */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph, diffAccess, formatPath } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { validateSources } from '../../src/config/index.js';

const BASE = `
resources:
  folder:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      viewer: { permissions: [read], granted_to: [{ role: viewer, on: folder, via: parent }] }
      editor: { permissions: [write], extends: [viewer], granted_to: [{ role: editor, on: folder, via: parent }] }
  document:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      viewer: { permissions: [read], granted_to: [{ role: viewer, on: folder, via: parent }] }
      editor:
        permissions: [write]
        extends: [viewer]
        granted_to: [{ role: editor, on: folder, via: parent, when: { no_direct_roles_on_object: true } }]
tenants:
  acme: {}
resource_instances:
  folder:root: acme
  folder:finance: { tenant: acme, relations: { parent: folder:root } }
  folder:q3: { tenant: acme, relations: { parent: folder:finance } }
  document:budget: { tenant: acme, relations: { parent: folder:q3 } }
  document:memo: { tenant: acme }
users:
  alice: { tenants: [acme] }
  bob: { tenants: [acme], roles: [{ role: viewer, on: folder:finance }] }
  carol: { tenants: [acme], roles: [{ role: editor, on: folder:root }, { role: viewer, on: document:budget }] }
groups:
  team:eng: { tenant: acme, members: [alice], roles: [{ role: editor, on: folder:finance }] }
`;

function graphOf(text: string) {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  expect(r.errors).toEqual([]);
  return buildAccessGraph(factsFromState(r.desired!));
}

describe('role derivations over tuples', () => {
  const g = graphOf(BASE);

  it.each([
    ['alice', 'write', 'document:budget', true],
    ['alice', 'write', 'folder:q3', true],
    ['alice', 'write', 'folder:root', false],
    ['alice', 'read', 'document:memo', false],
    ['bob', 'read', 'document:budget', true],
    ['bob', 'write', 'document:budget', false],
    ['bob', 'read', 'folder:root', false],
    // carol holds a role directly on the document: the editor derivation (no_direct_roles_on_object) skips her
    ['carol', 'write', 'document:budget', false],
    ['carol', 'read', 'document:budget', true],
    ['carol', 'write', 'folder:q3', true],
  ] as const)('%s %s %s: %s', (user, action, instance, allowed) => {
    expect(g.can(user, action, instance).allowed).toBe(allowed);
  });

  it('keeps the whole path: the group, the folder role, each derivation', () => {
    const [via] = g.can('alice', 'write', 'document:budget').via;
    expect(via.role).toBe('document#editor');
    expect(formatPath('alice', via.path, via.role, 'document:budget')).toBe(
      'alice → team:eng → folder#editor on folder:finance; folder#editor on folder:q3 from folder#editor via parent; document#editor on document:budget from folder#editor via parent',
    );
    expect(g.usersWith('document:write', 'document:budget')).toEqual(['alice']);
    expect(g.usersWith('editor', 'document:budget')).toEqual(['alice']);
  });

  it('a tuple added gives write to the folder editors (the access diff shows it)', () => {
    const after = graphOf(
      BASE.replace(
        'document:memo: { tenant: acme }',
        'document:memo: { tenant: acme, relations: { parent: folder:finance } }',
      ),
    );
    const diff = diffAccess(g, after, { permissions: true });
    expect(
      diff.changes.filter((c) => c.sign === '+' && c.instance === 'document:memo').map((c) => `${c.user} ${c.subject}`),
    ).toEqual([
      'alice document:read',
      'alice document:write',
      'bob document:read',
      'carol document:read',
      'carol document:write',
    ]);
  });

  it('a cycle of tuples ends', () => {
    const cyclic = graphOf(
      BASE.replace('folder:root: acme', 'folder:root: { tenant: acme, relations: { parent: folder:q3 } }'),
    );
    expect(cyclic.can('bob', 'read', 'folder:root').allowed).toBe(true);
    expect(cyclic.can('alice', 'write', 'folder:root').allowed).toBe(true);
  });
});
