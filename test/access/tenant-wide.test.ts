/**
 * The access diff with tenant-wide changes merged (`eachAccessChange` `tenantWide`, src/access/tenant-wide.ts):
 * expanded over the instances each covers, it is exactly the per-instance diff, in both views, on random
 * edits (relationship-model ones included); and worked cases show what is merged and what is not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildAccessGraph,
  diffAccess,
  eachAccessChange,
  type AccessChange,
  type AccessGraph,
  type TenantWideAccessChange,
} from '../../src/access/index.js';
import { derivationCache } from '../../src/access/derive.js';
import { arbFactsEdit, arbRebacFactsEdit } from './arbitraries.js';
import { facts, type FactsInput } from './builders.js';

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
const order = (a: AccessChange, b: AccessChange) =>
  cmp(a.user, b.user) ||
  cmp(a.instance, b.instance) ||
  cmp(a.subject, b.subject) ||
  (a.sign === b.sign ? 0 : a.sign === '+' ? -1 : 1);

function merged(before: AccessGraph, after: AccessGraph, permissions: boolean, via = true) {
  const wide: TenantWideAccessChange[] = [];
  const rest: AccessChange[] = [];
  eachAccessChange(before, after, { permissions, via, tenantWide: (w) => void wide.push(w) }, (c) => void rest.push(c));
  return { wide, rest };
}

function expand(wide: readonly TenantWideAccessChange[]): AccessChange[] {
  return wide.flatMap((w) =>
    w.instances.all().map((instance) => ({ sign: w.sign, user: w.user, instance, subject: w.subject, via: w.via })),
  );
}

const tenantOnly = (c: { via: AccessChange['via'] }) =>
  c.via.length > 0 && c.via.every((v) => v.path.kind === 'tenant');

describe('the access diff with tenant-wide changes merged', () => {
  it('is the per-instance diff once expanded, in both views, with and without paths', () => {
    let merges = 0;
    fc.assert(
      fc.property(fc.oneof(arbFactsEdit(), arbRebacFactsEdit()), fc.boolean(), ([was, now], permissions) => {
        const derivations = derivationCache();
        const [before, after] = [buildAccessGraph(was, { derivations }), buildAccessGraph(now, { derivations })];
        const expected = diffAccess(before, after, { permissions }).changes;
        const { wide, rest } = merged(before, after, permissions);
        expect([...rest, ...expand(wide)].sort(order)).toEqual(expected);
        // What is merged is what the section names once per role and tenant, and only that.
        expect(rest.filter(tenantOnly)).toEqual([]);
        for (const w of wide) {
          expect(tenantOnly(w)).toBe(true);
          expect(w.instances.size).toBe(w.instances.all().length);
          expect(w.instances.byType()).toEqual(
            w.instances.all().reduce((m, i) => m.set(i.split(':')[0], (m.get(i.split(':')[0]) ?? 0) + 1), new Map()),
          );
          expect(Array.from({ length: w.instances.size }, (_, j) => w.instances.at(j)).sort(cmp)).toEqual(
            w.instances.all(),
          );
        }
        // Equal instances of a tenant, equal keys (one summary line for users gaining the same on them).
        for (const a of wide)
          for (const b of wide.filter((w) => w.tenant === a.tenant))
            expect(a.instances.key() === b.instances.key()).toBe(
              a.instances.all().join(' ') === b.instances.all().join(' '),
            );
        const bare = merged(before, after, permissions, false);
        expect([...bare.rest, ...expand(bare.wide)].sort(order)).toEqual(expected.map((c) => ({ ...c, via: [] })));
        if (wide.length > 0) merges++;
      }),
      { numRuns: 500 },
    );
    expect(merges).toBeGreaterThan(50);
  });

  const roles = {
    viewer: ['document:read'],
    editor: { permissions: ['document:write'], extends: ['viewer'] },
    auditor: ['folder:read'],
  };
  const instances: FactsInput['instances'] = [
    ['document:a', 'acme'],
    ['document:b', 'acme'],
    ['document:c', 'acme'],
    ['folder:f', 'acme'],
    ['document:z', 'zeta'],
  ];
  /** A wide change as a row: user, sign, subject, tenant, role, its instances. */
  const row = (w: TenantWideAccessChange) =>
    [w.user, w.sign + w.subject, w.tenant, w.role ?? '', w.instances.all().join(' ')].join(' | ');
  const cases: {
    name: string;
    before: FactsInput;
    after: FactsInput;
    permissions?: boolean;
    wide: string[];
    rest: string[];
  }[] = [
    {
      name: 'a new tenant-wide role: one change per user over every instance of a type it grants on',
      before: { instances },
      after: { instances, tenantRoles: [['alice', 'editor', 'acme']] },
      wide: ['alice | +editor | acme |  | document:a document:b document:c'],
      rest: [],
    },
    {
      name: 'a group grant of the same role on one instance: that instance is named on its own',
      before: { instances, memberships: [['bob', 'team:t']] },
      after: {
        instances,
        memberships: [['bob', 'team:t']],
        groupGrants: [['team:t', 'editor', 'document:b']],
        tenantRoles: [['bob', 'editor', 'acme']],
      },
      wide: ['bob | +editor | acme |  | document:a document:c'],
      rest: ['bob +editor document:b'],
    },
    {
      name: 'the role held before through a group: no gain there',
      before: { instances, memberships: [['bob', 'team:t']], groupGrants: [['team:t', 'editor', 'document:a']] },
      after: {
        instances,
        memberships: [['bob', 'team:t']],
        groupGrants: [['team:t', 'editor', 'document:a']],
        tenantRoles: [['bob', 'editor', 'acme']],
      },
      wide: ['bob | +editor | acme |  | document:b document:c'],
      rest: [],
    },
    {
      name: 'the permission view: one change per permission, carried by the role',
      before: { instances, tenantRoles: [['carol', 'viewer', 'acme']] },
      after: { instances, tenantRoles: [['carol', 'editor', 'acme']] },
      permissions: true,
      wide: ['carol | +document:write | acme | editor | document:a document:b document:c'],
      rest: [],
    },
    {
      name: 'a new instance in the tenant: the holders gain it alone',
      before: { instances: instances.slice(1), tenantRoles: [['dave', 'auditor', 'acme']] },
      after: {
        instances: [...instances, ['folder:g', 'acme']],
        tenantRoles: [['dave', 'auditor', 'acme']],
      },
      wide: ['dave | +auditor | acme |  | folder:g'],
      rest: [],
    },
    {
      name: 'an instance moved to another tenant: lost in one, gained in the other',
      before: { instances, tenantRoles: [['erin', 'viewer', 'acme']] },
      after: {
        instances: [...instances.filter(([i]) => i !== 'document:c'), ['document:c', 'zeta']],
        tenantRoles: [['erin', 'viewer', 'acme']],
      },
      wide: ['erin | -viewer | acme |  | document:c'],
      rest: [],
    },
  ];
  it.each(cases)('$name', ({ before, after, permissions = false, wide, rest }) => {
    const g = (f: FactsInput) => buildAccessGraph(facts({ roles, ...f }));
    const out = merged(g(before), g(after), permissions);
    expect(out.wide.map(row)).toEqual(wide);
    expect(out.rest.map((c) => `${c.user} ${c.sign}${c.subject} ${c.instance}`)).toEqual(rest);
  });
});
