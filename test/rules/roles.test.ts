/**
 * The rulebook's own rules (src/rules), where its two readers meet: the server reads a resource role's
 * permissions as actions (`roleAllows`), the graph as `type:action` (`qualifiedPermissions`); the
 * `extends` walk ends on cycles and reads each level once. The worked cases (test/access/role-cases.ts)
 * hold the whole model on both engines.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closedPermissions,
  extendsOf,
  qualifiedPermissions,
  roleAllows,
  runWalk,
  walkExtends,
  type RoleNode,
} from '../../src/rules/roles.js';
import { derivationApplies } from '../../src/rules/derivations.js';
import { isGroupRelation, isReservedRelation, membershipEdge } from '../../src/rules/index.js';

const types = ['document', 'folder'];
const actions = ['read', 'write'];

describe('the rulebook', () => {
  it('roleAllows (the server reading) = its qualified permissions include `T:action` (the graph reading)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...types), { nil: null }),
        fc.subarray([...actions, ...types.flatMap((t) => actions.map((a) => `${t}:${a}`))]),
        fc.constantFrom(...types),
        fc.constantFrom(...actions),
        (resource, permissions, type, action) => {
          // A resource role lists actions; a top-level role `type:action`.
          const listed =
            resource === null
              ? permissions.filter((p) => p.includes(':'))
              : permissions.filter((p) => !p.includes(':'));
          const role = { resource, permissions: listed };
          expect(roleAllows(role, { resource: type, type, action })).toBe(
            qualifiedPermissions(resource, listed).includes(`${type}:${action}`),
          );
        },
      ),
    );
  });

  it('the extends walk: transitive, ends on a cycle, reads each level once and each role once', () => {
    const nodes = new Map<string, RoleNode>([
      ['a', { id: 'a', permissions: ['x:1'], extends: ['b'] }],
      ['b', { id: 'b', permissions: ['x:2'], extends: ['c', 'a'] }],
      ['c', { id: 'c', permissions: ['x:3'], extends: ['a', 'gone'] }],
    ]);
    const reads: string[][] = [];
    const read = (ids: string[]) => {
      reads.push(ids);
      return ids.flatMap((id) => nodes.get(id) ?? []);
    };
    expect([...closedPermissions(nodes.get('a')!, read)].sort()).toEqual(['x:1', 'x:2', 'x:3']);
    expect(reads).toEqual([['b'], ['c'], ['gone']]);
    // Stops as soon as a role allows.
    reads.length = 0;
    expect(
      runWalk(
        walkExtends([nodes.get('a')!], (r) => r.id === 'b'),
        read,
      ),
    ).toBe(true);
    expect(reads).toEqual([['b']]);
  });

  it('extends is scoped: a resource role extends its own resource roles, a top-level role top-level ones', () => {
    const id = (resource: string | null, key: string) => `${resource ?? '-'}#${key}`;
    expect(extendsOf({ resource: 'document', extends: ['viewer'] }, id)).toEqual(['document#viewer']);
    expect(extendsOf({ resource: null, extends: ['viewer'] }, id)).toEqual(['-#viewer']);
  });

  it.each([
    ['the object of the derived role type, no rule against direct roles', 'document', false, false, true],
    ['another type', 'folder', false, false, false],
    ['no_direct_roles_on_object, a direct role there', 'document', true, true, false],
    ['no_direct_roles_on_object, no direct role there', 'document', true, false, true],
    ['a direct role there, no such rule', 'document', false, true, true],
  ])('the derivation step: %s', (_, objectType, noDirect, direct, applies) => {
    expect(derivationApplies({ resource: 'document', noDirect }, objectType, direct)).toBe(applies);
  });

  it('the group machinery: membership edges and reserved relations', () => {
    expect(membershipEdge('member', true)).toBe(true);
    expect(membershipEdge('member', false)).toBe(false);
    expect(membershipEdge('viewer', true)).toBe(false);
    expect(isGroupRelation('team_group', 'team', false)).toBe(true);
    expect(isGroupRelation('group', 'team', true)).toBe(true);
    expect(isGroupRelation('group', 'team', false)).toBe(false);
    expect(isGroupRelation('owner_team', 'team', false)).toBe(false);
    expect(isReservedRelation('x_group')).toBe(true);
    expect(isReservedRelation('parent')).toBe(false);
  });
});
