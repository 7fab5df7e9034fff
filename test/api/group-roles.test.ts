import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inferGroupRoles, type Derivation, type GroupRole, type GroupTuple } from '../../src/api/group-roles.js';

/** The records the specification says giving `group` the role `role` on `on` creates. */
function recordsOf(grants: { group: string; role: string; on: string }[]): {
  derivations: Derivation[];
  tuples: GroupTuple[];
} {
  const type = (ref: string) => ref.split(':')[0];
  const derivations = new Map<string, Derivation>();
  const tuples = new Map<string, GroupTuple>();
  for (const g of grants) {
    const d = {
      resource: type(g.on),
      role: g.role,
      fromRole: 'member',
      fromResource: type(g.group),
      relation: `${type(g.group)}_group`,
    };
    derivations.set(JSON.stringify(d), d);
    tuples.set(`${g.group} ${g.on}`, { subject: g.group, relation: `${type(g.group)}_group`, object: g.on });
  }
  return { derivations: [...derivations.values()], tuples: [...tuples.values()] };
}

const sorted = (roles: GroupRole[]) =>
  [...roles].sort((a, b) => `${a.role} ${a.on}`.localeCompare(`${b.role} ${b.on}`));

describe('inferGroupRoles', () => {
  it.each([
    {
      name: 'no tuple: no role, nothing to read',
      grants: [],
      groups: ['team:a'],
      known: { 'team:a': [] },
      unresolved: [],
    },
    {
      name: 'one derivation per type pair: every role known',
      grants: [
        { group: 'team:a', role: 'editor', on: 'doc:1' },
        { group: 'team:b', role: 'editor', on: 'doc:2' },
        { group: 'team:b', role: 'developer', on: 'repo:1' },
      ],
      groups: ['team:a', 'team:b'],
      known: {
        'team:a': [{ role: 'editor', on: 'doc:1' }],
        'team:b': [
          { role: 'editor', on: 'doc:2' },
          { role: 'developer', on: 'repo:1' },
        ],
      },
      unresolved: [],
    },
    {
      name: 'two roles derived on one type pair: the groups with a tuple there are read',
      grants: [
        { group: 'team:a', role: 'editor', on: 'doc:1' },
        { group: 'team:b', role: 'viewer', on: 'doc:2' },
        { group: 'team:c', role: 'developer', on: 'repo:1' },
      ],
      groups: ['team:a', 'team:b', 'team:c'],
      known: { 'team:c': [{ role: 'developer', on: 'repo:1' }] },
      unresolved: ['team:a', 'team:b'],
    },
    {
      name: 'derivations of another group type do not count',
      grants: [
        { group: 'team:a', role: 'editor', on: 'doc:1' },
        { group: 'squad:x', role: 'viewer', on: 'doc:1' },
      ],
      groups: ['team:a', 'squad:x'],
      known: { 'team:a': [{ role: 'editor', on: 'doc:1' }], 'squad:x': [{ role: 'viewer', on: 'doc:1' }] },
      unresolved: [],
    },
  ])('$name', ({ grants, groups, known, unresolved }) => {
    const { derivations, tuples } = recordsOf(grants);
    const got = inferGroupRoles(groups, derivations, tuples);
    expect(Object.fromEntries([...got.known].map(([g, r]) => [g, sorted(r)]))).toEqual(
      Object.fromEntries(Object.entries(known).map(([g, r]) => [g, sorted(r)])),
    );
    expect(got.unresolved.sort()).toEqual(unresolved);
  });

  it('a tuple without a derivation, or of another relation, is read or ignored, never guessed', () => {
    const tuples = [
      { subject: 'team:a', relation: 'team_group', object: 'doc:1' },
      { subject: 'team:b', relation: 'owner', object: 'doc:1' },
    ];
    const got = inferGroupRoles(['team:a', 'team:b'], [], tuples);
    expect(got.unresolved).toEqual(['team:a']);
    expect(got.known.get('team:b')).toEqual([]);
  });

  it('never invents or misses a role: what it knows is exactly what was granted', () => {
    const grant = fc.record({
      group: fc.constantFrom('team:a', 'team:b', 'team:c', 'squad:x', 'squad:y'),
      role: fc.constantFrom('viewer', 'editor', 'developer'),
      on: fc.constantFrom('doc:1', 'doc:2', 'repo:1', 'inv:1', 'team:a', 'squad:y'),
    });
    // Stale derivations (left after the last grant of their kind went) widen the choice, never decide it.
    const stale = fc.array(
      fc.record({
        resource: fc.constantFrom('doc', 'repo'),
        role: fc.constantFrom('viewer', 'admin'),
        fromResource: fc.constantFrom('team', 'squad'),
      }),
      { maxLength: 2 },
    );
    fc.assert(
      fc.property(fc.array(grant, { maxLength: 12 }), stale, (grants, extra) => {
        const groups = ['team:a', 'team:b', 'team:c', 'squad:x', 'squad:y'];
        const { derivations, tuples } = recordsOf(grants);
        for (const e of extra) derivations.push({ ...e, fromRole: 'member', relation: `${e.fromResource}_group` });
        const got = inferGroupRoles(groups, derivations, tuples);
        expect([...got.known.keys(), ...got.unresolved].sort()).toEqual([...groups].sort());
        for (const [g, roles] of got.known) {
          const truth = [
            ...new Map(
              grants.filter((x) => x.group === g).map((x) => [`${x.role} ${x.on}`, { role: x.role, on: x.on }]),
            ).values(),
          ];
          expect(sorted(roles)).toEqual(sorted(truth));
        }
      }),
      { numRuns: 500 },
    );
  });
});
