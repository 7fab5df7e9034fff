import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildAccessGraph,
  diffAccess,
  eachAccessChange,
  type AccessFacts,
  type AccessPath,
} from '../../src/access/index.js';
import { derivationCache } from '../../src/access/derive.js';
import { qualify } from '../../src/types/refs.js';
import { arbAccessFacts, arbAccessQuery, arbFactsEdit, arbRebacFacts, arbRebacFactsEdit } from './arbitraries.js';
import {
  naiveCan,
  naiveChains,
  naiveGrants,
  naiveGroups,
  naivePermissionGrants,
  naiveRoleViewGrants,
  naiveRolesOn,
  naiveTenantOf,
} from './reference.js';

const runs = { numRuns: 300 };

describe('the graph agrees with the naive reference', () => {
  it('can and rolesOn', () => {
    fc.assert(
      fc.property(arbAccessFacts(), fc.array(arbAccessQuery(), { minLength: 1, maxLength: 10 }), (f, queries) => {
        const graph = buildAccessGraph(f);
        for (const { user, action, instance } of queries) {
          const decision = graph.can(user, action, instance);
          expect(decision.allowed).toBe(naiveCan(f, user, action, instance));
          const permission = qualify(action, instance);
          if (permission) expect(graph.roleGrants(user)(permission, instance)).toBe(decision.allowed);
          expect(decision.via.length > 0).toBe(decision.allowed);
          expect(graph.rolesOn(user, instance).map((h) => h.role)).toEqual(naiveRolesOn(f, user, instance));
        }
      }),
      runs,
    );
  });

  it('can and rolesOn with resource roles, tuples several levels deep (cycles too) and derivations, with and without noDirect', () => {
    fc.assert(
      fc.property(arbRebacFacts(), fc.array(arbAccessQuery(), { minLength: 1, maxLength: 10 }), (f, queries) => {
        const graph = buildAccessGraph(f);
        for (const { user, action, instance } of queries) {
          expect(graph.can(user, action, instance).allowed).toBe(naiveCan(f, user, action, instance));
          expect(graph.rolesOn(user, instance).map((h) => h.role)).toEqual(naiveRolesOn(f, user, instance));
          const permission = qualify(action, instance);
          if (permission)
            expect(graph.roleGrants(user)(permission, instance)).toBe(naiveCan(f, user, action, instance));
        }
        for (const user of graph.users()) {
          expect(
            graph
              .grantsOf(user)
              .map((g) => `${user}|${g.instance}|${g.role}`)
              .sort(),
          ).toEqual([...naiveGrants(f)].filter((k) => k.startsWith(`${user}|`)).sort());
        }
      }),
      runs,
    );
  });

  it('with derivations: grantsOf, rolesOn and sourcesOf agree; usersWith and usersReaching find every holder', () => {
    fc.assert(
      fc.property(arbRebacFacts(), (f) => {
        const graph = buildAccessGraph(f);
        const held = [...naiveGrants(f)].map((k) => k.split('|'));
        for (const user of graph.users()) {
          const grants = graph.grantsOf(user);
          for (const g of grants)
            expect(graph.rolesOn(user, g.instance).find((h) => h.role === g.role)?.paths).toEqual(g.paths);
          const fromSources = new Set(
            graph.sourcesOf(user).flatMap((s) => s.held.map((h) => `${h.instance}|${h.role}`)),
          );
          expect(fromSources).toEqual(new Set(grants.map((g) => `${g.instance}|${g.role}`)));
        }
        for (const instance of new Set(held.map(([, i]) => i))) {
          const holders = [...new Set(held.filter(([, i]) => i === instance).map(([u]) => u))].sort();
          expect(holders.every((u) => graph.usersReaching([instance]).includes(u))).toBe(true);
          for (const role of new Set(held.filter(([, i]) => i === instance).map(([, , r]) => r))) {
            // A top-level role held tenant-wide: usersWith names it by identity (the resource role of the same key).
            if (graph.roleOn(role, instance) !== role) continue;
            const want = [...new Set(held.filter(([, i, r]) => i === instance && r === role).map(([u]) => u))].sort();
            expect(graph.usersWith(role, instance)).toEqual(want);
          }
        }
      }),
      runs,
    );
  });

  it('grantsOf, rolesOn and explain tell the same story', () => {
    fc.assert(
      fc.property(arbAccessFacts(), arbAccessQuery(), (f, { user, action, instance }) => {
        const graph = buildAccessGraph(f);
        for (const g of graph.grantsOf(user)) {
          expect(graph.rolesOn(user, g.instance).find((h) => h.role === g.role)?.paths).toEqual(g.paths);
        }
        const e = graph.explain(user, action, instance);
        const decision = graph.can(user, action, instance);
        expect(e.allowed).toBe(decision.allowed);
        expect(e.via).toEqual(decision.via);
        expect(e.missing === undefined).toBe(decision.allowed);
      }),
      runs,
    );
  });

  it('explain of a denied access: every way in it lists grants the access once taken (derivations and groups included)', () => {
    fc.assert(
      fc.property(fc.oneof(arbAccessFacts(), arbRebacFacts()), arbAccessQuery(), (f, { user, action, instance }) => {
        const e = buildAccessGraph(f).explain(user, action, instance);
        for (const w of e.missing?.ways ?? []) {
          const taken = {
            ...f,
            instanceRoles: [...f.instanceRoles],
            tenantRoles: [...f.tenantRoles],
            memberships: [...f.memberships],
          };
          if (w.by.kind === 'direct') taken.instanceRoles.push({ user, role: w.role, instance: w.instance });
          else if (w.by.kind === 'tenant') taken.tenantRoles.push({ user, role: w.role, tenant: w.by.tenant });
          else taken.memberships.push({ user, group: w.by.group });
          const g = buildAccessGraph(taken);
          const got =
            e.kind === 'role'
              ? g.rolesOn(user, instance).some((h) => h.role === e.missing!.roles[0])
              : g.can(user, action, instance).allowed;
          expect(got, JSON.stringify(w)).toBe(true);
        }
      }),
      runs,
    );
  });

  it('effectiveGrants, usersWith and membersOf', () => {
    fc.assert(
      fc.property(arbAccessFacts(), (f) => {
        const graph = buildAccessGraph(f);
        const grants = [...graph.effectiveGrants()];
        const keys = grants.map((g) => `${g.user}|${g.instance}|${g.role}`);
        expect(new Set(keys)).toEqual(naiveGrants(f));
        expect(keys.length).toBe(new Set(keys).size);
        const groups = naiveGroups(f);
        for (const g of new Set(f.groupGrants.map((x) => x.group))) {
          const members = [...groups]
            .filter(([, gs]) => gs.has(g))
            .map(([u]) => u)
            .sort();
          expect(graph.membersOf(g)).toEqual(members);
        }
        for (const { instance, role } of grants) {
          const holders = keys.filter((k) => k.endsWith(`|${instance}|${role}`)).map((k) => k.split('|')[0]);
          expect(graph.usersWith(role, instance)).toEqual([...new Set(holders)].sort());
        }
      }),
      runs,
    );
  });

  it('every path is a real reason, and without cycles the paths are exactly all chains', () => {
    fc.assert(
      fc.property(arbAccessFacts({ acyclic: true }), (f) => {
        const graph = buildAccessGraph(f, { maxChains: 1000 });
        for (const g of graph.effectiveGrants()) {
          const expected: AccessPath[] = [];
          if (f.instanceRoles.some((r) => r.user === g.user && r.role === g.role && r.instance === g.instance)) {
            expected.push({ kind: 'direct' });
          }
          const tenant = naiveTenantOf(f, g.instance);
          if (f.tenantRoles.some((r) => r.user === g.user && r.role === g.role && r.tenant === tenant)) {
            expected.push({ kind: 'tenant', tenant: tenant! });
          }
          const chains: string[][] = [];
          for (const from of new Set(f.memberships.filter((m) => m.user === g.user).map((m) => m.group))) {
            for (const to of new Set(
              f.groupGrants.filter((x) => x.role === g.role && x.instance === g.instance).map((x) => x.group),
            )) {
              chains.push(...naiveChains(f, from, to));
            }
          }
          expect(g.paths.filter((p) => p.kind !== 'group')).toEqual(expected);
          const got = g.paths.flatMap((p) => (p.kind === 'group' ? [p.chain.join('>')] : []));
          expect([...got].sort()).toEqual(chains.map((c) => c.join('>')).sort());
        }
      }),
      runs,
    );
  });

  it('with cycles, every group path is a simple chain of links ending at a grant', () => {
    fc.assert(
      fc.property(arbAccessFacts(), (f) => {
        const graph = buildAccessGraph(f);
        const isLink = (c: string, p: string) => f.links.some((l) => l.child === c && l.parent === p);
        for (const g of graph.effectiveGrants()) {
          for (const p of g.paths) {
            if (p.kind !== 'group') continue;
            const c = p.chain;
            expect(new Set(c).size).toBe(c.length);
            expect(f.memberships.some((m) => m.user === g.user && m.group === c[0])).toBe(true);
            for (let i = 1; i < c.length; i++) expect(isLink(c[i - 1], c[i])).toBe(true);
            const last = c[c.length - 1];
            expect(f.groupGrants.some((x) => x.group === last && x.role === g.role && x.instance === g.instance)).toBe(
              true,
            );
          }
        }
      }),
      runs,
    );
  });
});

describe('diffAccess is the set difference of the naive effective grants', () => {
  const asKeys = (changes: { sign: string; user: string; instance: string; subject: string }[], sign: string) =>
    new Set(changes.filter((c) => c.sign === sign).map((c) => `${c.user}|${c.instance}|${c.subject}`));
  const minus = (a: Set<string>, b: Set<string>) => new Set([...a].filter((x) => !b.has(x)));

  it.each([false, true])('permissions: %s', (permissions) => {
    fc.assert(
      fc.property(arbFactsEdit(), ([before, after]) => {
        const d = diffAccess(buildAccessGraph(before), buildAccessGraph(after), { permissions });
        const listed = permissions ? naivePermissionGrants : naiveRoleViewGrants;
        // The role view never gains a role held before, nor loses one still held (listed or not).
        const held = permissions ? naivePermissionGrants : naiveGrants;
        expect(asKeys(d.changes, '+')).toEqual(minus(listed(after), held(before)));
        expect(asKeys(d.changes, '-')).toEqual(minus(listed(before), held(after)));
        expect(d.changes.every((c) => c.via.length > 0)).toBe(true);
        // Each change counted once: a tenant-wide line stands for each of its users on each of its instances.
        expect(d.summary.reduce((n, e) => n + e.users.length * (e.instances?.length ?? 1), 0)).toBe(d.changes.length);
      }),
      runs,
    );
  });

  it.each([false, true])(
    'without paths (via: false), the same changes in the same order, permissions: %s',
    (permissions) => {
      fc.assert(
        fc.property(fc.oneof(arbFactsEdit(), arbRebacFactsEdit()), ([before, after]) => {
          const [g0, g1] = [buildAccessGraph(before), buildAccessGraph(after)];
          const bare = (c: { sign: string; user: string; instance: string; subject: string }) =>
            `${c.sign}${c.user}|${c.instance}|${c.subject}`;
          const full: string[] = [];
          eachAccessChange(g0, g1, { permissions }, (c) => void full.push(bare(c)));
          const light: string[] = [];
          eachAccessChange(g0, g1, { permissions, via: false }, (c) => {
            expect(c.via).toEqual([]);
            light.push(bare(c));
          });
          expect(light).toEqual(full);
        }),
        runs,
      );
    },
  );

  it.each([false, true])(
    'changes come in the diff order (user, instance, subject, + first), from and to an empty state too, permissions: %s',
    (permissions) => {
      const empty = (f: AccessFacts): AccessFacts => ({
        ...f,
        tenantRoles: [],
        instanceRoles: [],
        memberships: [],
        links: [],
        groupGrants: [],
        relationships: [],
      });
      const order = (c: { sign: string; user: string; instance: string; subject: string }) =>
        [c.user, c.instance, c.subject, c.sign === '+' ? 0 : 1] as const;
      const before = (a: readonly (string | number)[], b: readonly (string | number)[]) => {
        for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
        return false;
      };
      fc.assert(
        fc.property(
          fc.oneof(arbFactsEdit(), arbRebacFactsEdit()),
          fc.constantFrom('edit', 'from empty', 'to empty'),
          ([was, now], how) => {
            const [f0, f1] =
              how === 'from empty' ? [empty(now), now] : how === 'to empty' ? [was, empty(was)] : [was, now];
            const d = diffAccess(buildAccessGraph(f0), buildAccessGraph(f1), { permissions });
            for (let i = 1; i < d.changes.length; i++)
              expect(before(order(d.changes[i - 1]), order(d.changes[i]))).toBe(true);
            const held = permissions ? naivePermissionGrants : naiveRoleViewGrants;
            const had = permissions ? naivePermissionGrants : naiveGrants;
            expect(asKeys(d.changes, '+')).toEqual(minus(held(f1), had(f0)));
            expect(asKeys(d.changes, '-')).toEqual(minus(held(f0), had(f1)));
          },
        ),
        runs,
      );
    },
  );

  it.each([
    [false, 'graphs of their own'],
    [true, 'graphs of their own'],
    [false, 'graphs sharing what sources derive'],
    [true, 'graphs sharing what sources derive'],
  ])('with tuples and derivations edited too, permissions: %s, %s', (permissions, how) => {
    fc.assert(
      fc.property(arbRebacFactsEdit(), ([before, after]) => {
        const options =
          how === 'graphs of their own' ? [{}, {}] : [{ derivations: derivationCache() }].flatMap((o) => [o, o]);
        const [g0, g1] = [buildAccessGraph(before, options[0]), buildAccessGraph(after, options[1])];
        const d = diffAccess(g0, g1, { permissions });
        for (const user of g1.users()) {
          expect(
            g1
              .grantsOf(user)
              .map((g) => `${user}|${g.instance}|${g.role}`)
              .sort(),
          ).toEqual([...naiveGrants(after)].filter((k) => k.startsWith(`${user}|`)).sort());
        }
        const held = permissions ? naivePermissionGrants : naiveRoleViewGrants;
        expect(asKeys(d.changes, '+')).toEqual(minus(held(after), held(before)));
        expect(asKeys(d.changes, '-')).toEqual(minus(held(before), held(after)));
        expect(d.changes.every((c) => c.via.length > 0)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
