import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deriveHeld,
  indexRules,
  type DerivationRule,
  type InstanceFacts,
  type TupleEdge,
} from '../../src/rules/derivations.js';

/**
 * The derivation fixed point (src/rules/derivations.ts), held against an independent reading of
 * the rule: a role R on o is held when the pair (o, R) is reachable, in the graph whose nodes are
 * (instance, role) pairs, from a pair the user holds without derivations, along edges (s, R') -> (o, R)
 * for each tuple (s, rel, o) and rule T#R <- S#R' via rel that fits the types and is not stopped by
 * `no_direct_roles_on_object` on a directly held o.
 */
function reference(
  facts: Map<string, InstanceFacts>,
  tuples: TupleEdge[],
  rules: DerivationRule[],
): Map<string, Set<string>> {
  const edges = new Map<string, string[]>();
  for (const t of tuples) {
    const s = facts.get(t.subject);
    const o = facts.get(t.object);
    if (!s || !o) continue;
    for (const r of rules) {
      if (r.resource !== o.resource || r.onResource !== s.resource || r.relation !== t.relation) continue;
      if (r.noDirect && o.direct) continue;
      const from = `${t.subject}|${r.linkedRole}`;
      edges.set(from, [...(edges.get(from) ?? []), `${t.object}|${r.role}`]);
    }
  }
  const seen = new Set<string>();
  const stack = [...facts].flatMap(([id, f]) => [...f.roles].map((role) => `${id}|${role}`));
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    stack.push(...(edges.get(n) ?? []));
  }
  const held = new Map([...facts.keys()].map((id) => [id, new Set<string>()]));
  for (const n of seen) {
    const [id, role] = n.split('|');
    held.get(id)!.add(role);
  }
  return held;
}

const TYPES = ['folder', 'doc', 'team'];
const ROLES = ['viewer', 'editor', 'owner'];
const RELATIONS = ['parent', 'owner'];

const world = fc.record({
  instances: fc.array(fc.record({ type: fc.constantFrom(...TYPES), roles: fc.subarray(ROLES), direct: fc.boolean() }), {
    minLength: 1,
    maxLength: 12,
  }),
  tuples: fc.array(fc.record({ s: fc.nat(), rel: fc.constantFrom(...RELATIONS), o: fc.nat() }), { maxLength: 30 }),
  rules: fc.array(
    fc.record({
      resource: fc.constantFrom(...TYPES),
      role: fc.constantFrom(...ROLES),
      onResource: fc.constantFrom(...TYPES),
      linkedRole: fc.constantFrom(...ROLES),
      relation: fc.constantFrom(...RELATIONS),
      noDirect: fc.boolean(),
    }),
    { maxLength: 10 },
  ),
});

describe('derivations over tuples', () => {
  it('agree with the reachability reading on random worlds (cycles, self-tuples and no_direct_roles_on_object included)', () => {
    fc.assert(
      fc.property(world, (w) => {
        const facts = new Map<string, InstanceFacts>(
          w.instances.map((i, n) => [`i${n}`, { resource: i.type, roles: new Set(i.roles), direct: i.direct }]),
        );
        const tuples = w.tuples.map((t) => ({
          subject: `i${t.s % w.instances.length}`,
          relation: t.rel,
          object: `i${t.o % w.instances.length}`,
        }));
        const got = deriveHeld(facts, tuples, indexRules(w.rules));
        const want = reference(facts, tuples, w.rules);
        for (const id of facts.keys()) expect([...got.get(id)!].sort(), id).toEqual([...want.get(id)!].sort());
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['through 3 levels', false, false, ['editor']],
    ['stopped by a direct role on the object when the rule says so', true, true, ['viewer']],
    ['not stopped without the setting', false, true, ['editor', 'viewer']],
    ['not stopped when the object has no direct role', true, false, ['editor']],
  ])('%s', (_, noDirect, direct, want) => {
    const rule = (resource: string): DerivationRule => ({
      resource,
      role: 'editor',
      onResource: 'folder',
      linkedRole: 'editor',
      relation: 'parent',
      noDirect,
    });
    const facts = new Map<string, InstanceFacts>([
      ['root', { resource: 'folder', roles: new Set(['editor']), direct: true }],
      ['mid', { resource: 'folder', roles: new Set(), direct: false }],
      ['doc', { resource: 'doc', roles: new Set(direct ? ['viewer'] : []), direct }],
    ]);
    const tuples = [
      { subject: 'root', relation: 'parent', object: 'mid' },
      { subject: 'mid', relation: 'parent', object: 'doc' },
    ];
    expect([...deriveHeld(facts, tuples, indexRules([rule('folder'), rule('doc')])).get('doc')!].sort()).toEqual(want);
  });
});
