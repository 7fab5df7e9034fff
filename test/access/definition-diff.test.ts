/** What users gain or lose because a role they keep was redefined (issue 21, case 2). Pure. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildAccessGraph } from '../../src/access/index.js';
import { diffAccess } from '../../src/access/diff.js';
import { arbAccessFacts, arbRoles } from './arbitraries.js';
import { diffRoleDefinitions } from '../../src/access/definition-diff.js';
import { validateSources } from '../../src/config/index.js';
import { planChanges } from '../../src/plan/plan.js';
import { accessMarkdownLines, accessTextLines, planAccess } from '../../src/plan/access.js';
import { facts, type FactsInput } from './builders.js';

const WORLD: FactsInput = {
  instances: [
    ['document:a', 'acme'],
    ['document:b', 'acme'],
    ['folder:f', 'acme'],
  ],
  instanceRoles: [
    ['dan', 'editor', 'document:a'],
    ['dan', 'admin', 'document:b'],
  ],
  tenantRoles: [['tess', 'viewer', 'acme']],
  memberships: [
    ['gail', 'team:g'],
    ['gus', 'team:sub'],
  ],
  links: [['team:sub', 'team:g']],
  groupGrants: [['team:g', 'editor', 'document:b']],
};

const ROLES = {
  editor: ['document:read', 'document:write'],
  viewer: ['document:read'],
  admin: ['document:read', 'document:share', 'document:write'],
  base: ['document:read'],
};

/** `+user subject@instance` for each change. */
function changes(before: FactsInput['roles'], after: FactsInput['roles']): string[] {
  const b = buildAccessGraph(facts({ ...WORLD, roles: before }));
  const a = buildAccessGraph(facts({ ...WORLD, roles: after }));
  return diffRoleDefinitions(b, a).map((c) => `${c.sign}${c.user} ${c.subject}@${c.instance}`);
}

describe('diffRoleDefinitions', () => {
  it.each([
    { scenario: 'no role changes: nothing', after: ROLES, expected: [] },
    {
      scenario: 'a permission added: every holder who lacked it, directly and through nested groups',
      after: { ...ROLES, editor: [...ROLES.editor, 'document:share'] },
      // dan already shares on b as admin: no change there; on a he gains it.
      expected: ['+dan document:share@document:a', '+gail document:share@document:b', '+gus document:share@document:b'],
    },
    {
      scenario: 'a permission removed: holders lose it unless another role keeps it',
      after: { ...ROLES, editor: ['document:read'] },
      expected: ['-dan document:write@document:a', '-gail document:write@document:b', '-gus document:write@document:b'],
    },
    {
      scenario: 'tenant-wide holders gain on every instance of the type',
      after: { ...ROLES, viewer: ['document:read', 'document:write'] },
      expected: ['+tess document:write@document:a', '+tess document:write@document:b'],
    },
    {
      scenario: 'a permission of another type changes nothing on these instances',
      after: { ...ROLES, viewer: ['document:read', 'folder:read'] },
      expected: ['+tess folder:read@folder:f'],
    },
    {
      scenario: 'extends: a role inheriting a changed role changes with it',
      before: { ...ROLES, viewer: { permissions: [], extends: ['base'] } },
      after: { ...ROLES, viewer: { permissions: [], extends: ['base'] }, base: ['document:read', 'document:write'] },
      expected: ['+tess document:write@document:a', '+tess document:write@document:b'],
    },
    {
      scenario: 'extends added',
      after: { ...ROLES, viewer: { permissions: ['document:read'], extends: ['admin'] } },
      expected: [
        '+tess document:share@document:a',
        '+tess document:write@document:a',
        '+tess document:share@document:b',
        '+tess document:write@document:b',
      ],
    },
  ])('$scenario', ({ before, after, expected }) => {
    expect(changes(before ?? ROLES, after)).toEqual(expected);
  });

  it('a gain carries the paths that grant it after', () => {
    const b = buildAccessGraph(facts({ ...WORLD, roles: ROLES }));
    const a = buildAccessGraph(facts({ ...WORLD, roles: { ...ROLES, editor: [...ROLES.editor, 'document:share'] } }));
    const gus = diffRoleDefinitions(b, a).find((c) => c.user === 'gus');
    expect(gus?.via).toEqual([{ role: 'editor', path: { kind: 'group', chain: ['team:sub', 'team:g'] } }]);
  });
});

describe('a role held tenant-wide that loses its last permission on a type (issue 28)', () => {
  const world = (auditor: string[]) =>
    facts({
      roles: { auditor, editor: ['folder:read'] },
      instances: [
        ['folder:a', 'acme'],
        ['folder:b', 'acme'],
        ['document:d', 'acme'],
      ],
      tenantRoles: [['frank', 'auditor', 'acme']],
      instanceRoles: [['frank', 'editor', 'folder:b']],
    });

  it('the role view loses no role frank still holds; the definition diff says which permission he loses, and where', () => {
    const b = buildAccessGraph(world(['folder:read', 'document:read']));
    const a = buildAccessGraph(world(['document:read']));
    expect(a.rolesOn('frank', 'folder:a').map((h) => h.role)).toEqual(['auditor']);
    expect(diffAccess(b, a).changes).toEqual([]);
    // On folder:b his editor role still grants folder:read.
    expect(diffRoleDefinitions(b, a).map((c) => `${c.sign}${c.user} ${c.subject}@${c.instance}`)).toEqual([
      '-frank folder:read@folder:a',
    ]);
  });
});

describe('the plan access section shows permission changes by default', () => {
  const config = (editor: string) => `
resources: { document: [read, write, share] }
roles: { editor: [${editor}], admin: [document:read, document:write, document:share] }
tenants: { acme: {} }
users:
  joan: { tenants: [acme], roles: [{ role: admin, tenant: acme }] }
  ann: { tenants: [acme] }
  bob: { tenants: [acme] }
  cy: { tenants: [acme] }
resource_instances: { document:roadmap: acme }
groups:
  team:product: { tenant: acme, members: [ann, bob], roles: [{ role: editor, on: document:roadmap }] }
  team:design: { tenant: acme, members: [cy], member_of: [team:product] }
`;
  const load = (text: string) => {
    const r = validateSources([{ file: 'roster.yaml', text }]);
    if (!r.desired) throw new Error(JSON.stringify(r.errors));
    return r.desired;
  };

  it('adding document:share to editor lists each user who gains it, and "none" is not printed', () => {
    const live = load(config('document:read, document:write'));
    const plan = planChanges(load(config('document:read, document:write, document:share')), live, {
      project: 'p',
      environment: 'e',
    });
    const access = planAccess({ live, changes: plan.changes });
    expect(access.level).toBe('role');
    expect(access.users).toBe(3);
    expect(access.summary.map((s) => s.line)).toEqual([
      '+3 users gain document:share on document:roadmap via team:product (editor)',
    ]);
    expect(access.summary[0].users).toEqual(['ann', 'bob', 'cy']);
    const text = accessTextLines(access).join('\n');
    expect(text).toContain('Access changes: 3 users; 3 gained, 0 lost.');
    expect(text).not.toContain('none');
    expect(accessMarkdownLines(access).join('\n')).toContain(
      '- `+3 users gain document:share on document:roadmap via team:product (editor)`: ann, bob, cy',
    );
  });

  it('a redefinition that changes nobody\'s effective access still reads "none"', () => {
    // The role is planned (~ role:auditor) but nobody holds it.
    const withAuditor = (perms: string) =>
      config('document:read, document:write').replace('roles: {', `roles: { auditor: [${perms}],`);
    const live = load(withAuditor('document:read'));
    const plan = planChanges(load(withAuditor('document:read, document:share')), live, {
      project: 'p',
      environment: 'e',
    });
    expect(plan.changes.map((c) => c.id)).toEqual(['role:auditor']);
    expect(accessTextLines(planAccess({ live, changes: plan.changes }))[0]).toBe(
      'Access changes: none: no user gains or loses access.',
    );
  });
});

describe('diffRoleDefinitions, property', () => {
  it('when only role definitions change, it finds exactly what the permission view of diffAccess finds', () => {
    const key = (c: { sign: string; user: string; instance: string; subject: string }) =>
      `${c.sign}${c.user} ${c.subject}@${c.instance}`;
    fc.assert(
      fc.property(arbAccessFacts(), arbRoles(), (world, roles) => {
        const before = buildAccessGraph(world);
        const after = buildAccessGraph({ ...world, roles });
        const expected = diffAccess(before, after, { permissions: true }).changes.map(key).sort();
        expect(diffRoleDefinitions(before, after).map(key).sort()).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
