/** who-can / what-can on the graph, exact-set assertions and the `--update` list. Pure. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildAccessGraph, type AccessFacts } from '../../src/access/index.js';
import { whatCan, whoCan } from '../../src/access/queries.js';
import { evaluateExact, updatedList, type ExactSpec } from '../../src/access/exact.js';
import { evaluateAssertions, checksNeeded, type AssertionSpec } from '../../src/access/assertions.js';
import { arbRebacFacts, smallPools } from './arbitraries.js';

const facts: AccessFacts = {
  roles: [
    { key: 'editor', permissions: ['document:read', 'document:write'] },
    { key: 'viewer', permissions: ['document:read'] },
    { key: 'folder#owner', permissions: ['folder:read'] },
    { key: 'document#reader', permissions: ['document:read'] },
  ],
  instances: [
    { id: 'document:readme', tenant: 'acme' },
    { id: 'document:billing', tenant: 'acme' },
    { id: 'document:plan', tenant: 'globex' },
    { id: 'folder:finance', tenant: 'acme' },
  ],
  tenantRoles: [{ user: 'dave', role: 'viewer', tenant: 'acme' }],
  instanceRoles: [
    { user: 'bob', role: 'editor', instance: 'document:readme' },
    { user: 'gina', role: 'folder#owner', instance: 'folder:finance' },
  ],
  memberships: [
    { user: 'carol', group: 'team:finance' },
    { user: 'frank', group: 'team:vendors' },
  ],
  links: [{ child: 'team:vendors', parent: 'team:finance' }],
  groupGrants: [{ group: 'team:finance', role: 'editor', instance: 'document:billing' }],
  relationships: [{ subject: 'folder:finance', relation: 'parent', object: 'document:billing' }],
  derivations: [{ role: 'document#reader', from: 'folder#owner', relation: 'parent' }],
};
const graph = buildAccessGraph(facts);
const keys = (xs: { key: string }[]) => xs.map((x) => x.key);

describe('whoCan', () => {
  it.each([
    ['write', 'document:readme', ['bob']],
    ['read', 'document:readme', ['bob', 'dave']],
    ['document:read', 'document:billing', ['carol', 'dave', 'frank', 'gina']],
    ['write', 'document:billing', ['carol', 'frank']],
    ['read', 'document:plan', []],
    ['folder:read', 'document:readme', []],
    ['delete', 'document:readme', []],
  ])('%s on %s: %j', (action, instance, users) => {
    expect(keys(whoCan(graph, action, instance).users)).toEqual(users);
  });

  it('names each way in as explain does: direct, tenant-wide, group chain, derivation', () => {
    const r = whoCan(graph, 'read', 'document:billing');
    expect(r).toMatchObject({ permission: 'document:read', tenant: 'acme' });
    expect(Object.fromEntries(r.users.map((u) => [u.key, u.ways]))).toEqual({
      carol: ['carol → team:finance → editor on document:billing (editor grants document:read)'],
      dave: ['dave → viewer on document:billing (tenant-wide in acme) (viewer grants document:read)'],
      frank: ['frank → team:vendors → team:finance → editor on document:billing (editor grants document:read)'],
      gina: [expect.stringContaining('folder:finance')],
    });
  });
});

describe('whatCan', () => {
  it.each([
    ['bob', 'write', {}, ['document:readme']],
    ['dave', 'read', {}, ['document:billing', 'document:readme']],
    ['dave', 'read', { type: 'folder' }, []],
    ['gina', 'read', {}, ['document:billing', 'folder:finance']],
    ['gina', 'read', { type: 'folder' }, ['folder:finance']],
    ['gina', 'document:read', {}, ['document:billing']],
    ['carol', 'read', { tenant: 'globex' }, []],
    ['nobody', 'read', {}, []],
  ])('%s %s %j: %j', (user, action, options, instances) => {
    expect(keys(whatCan(graph, user, action, options).instances)).toEqual(instances);
  });
});

describe('the lists agree with can() on random environments (roles, groups, derivations)', () => {
  it('who-can: exactly the users can() allows; what-can: exactly the instances', () => {
    fc.assert(
      fc.property(arbRebacFacts(), fc.constantFrom(...smallPools.actions), (f, action) => {
        const g = buildAccessGraph(f);
        const users = [...new Set([...g.users(), ...smallPools.users])];
        for (const instance of f.instances.map((i) => i.id)) {
          const expected = users.filter((u) => g.can(u, action, instance).allowed).sort();
          expect(keys(whoCan(g, action, instance).users)).toEqual(expected);
        }
        for (const user of users) {
          const named = [
            f.instances.map((i) => i.id),
            f.instanceRoles.map((r) => r.instance),
            f.groupGrants.map((r) => r.instance),
            (f.relationships ?? []).map((r) => r.object),
          ];
          const expected = [...new Set(named.flat())].filter((i) => g.can(user, action, i).allowed).sort();
          expect(keys(whatCan(g, user, action).instances)).toEqual(expected);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('exact-set assertions', () => {
  const who: ExactSpec = { check: 'who_can', subject: 'write', on: 'document:billing', exactly: ['carol', 'bob'] };
  it('names the extra users with their way in, and the missing ones with what would give it', () => {
    const r = evaluateExact(who, graph);
    expect(r.actual).toEqual(['carol', 'frank']);
    expect(r.failures).toEqual([
      {
        user: 'frank',
        message: 'extra: frank can write on document:billing, not listed in exactly:',
        paths: ['frank → team:vendors → team:finance → editor on document:billing (editor grants document:write)'],
      },
      {
        user: 'bob',
        message: 'missing: bob cannot write on document:billing, though listed in exactly:',
        paths: [expect.stringContaining('editor')],
      },
    ]);
  });
  it('what_can lists instance keys of the type', () => {
    const spec: ExactSpec = { check: 'what_can', user: 'gina', subject: 'read', on: 'document', exactly: ['billing'] };
    expect(evaluateExact(spec, graph)).toMatchObject({ failures: [], actual: ['billing'] });
    expect(evaluateExact({ ...spec, exactly: [] }, graph).failures.map((f) => f.message)).toEqual([
      'extra: gina can read on document:billing, not listed in exactly:',
    ]);
  });
  it('a live set decides; the graph still explains', () => {
    const r = evaluateExact(who, graph, undefined, ['carol', 'bob']);
    expect(r.failures).toEqual([]);
  });
  it('runs with the other assertions: a status per assertion, no /allowed checks asked for it', () => {
    const spec = { ...who, source: { file: 'roster.yaml', path: 'assertions[0]', line: 3, item: 0 } } as AssertionSpec;
    const report = evaluateAssertions([spec], graph);
    expect(report).toMatchObject({ passed: false, failed: 1, total: 1 });
    expect(report.results[0]).toMatchObject({
      name: 'who can write on document:billing: exactly carol, bob',
      actual: ['carol', 'frank'],
    });
    expect(checksNeeded([spec], graph)).toEqual([]);
  });
});

describe('updatedList', () => {
  it.each([
    [
      ['heidi', 'ivan'],
      ['heidi', 'ivan'],
      ['heidi', 'ivan'],
    ],
    [
      ['ivan', 'heidi'],
      ['heidi', 'ivan'],
      ['ivan', 'heidi'],
    ],
    [
      ['ivan', 'heidi'],
      ['heidi', 'judy', 'alice'],
      ['heidi', 'judy', 'alice'],
    ],
    [[], ['b', 'a'], ['b', 'a']],
    [['a', 'a'], ['a'], ['a']],
    [['x'], [], []],
  ])('%j with the set %j → %j', (written, actual, out) => {
    expect(updatedList(written, actual)).toEqual(out);
  });
  it('keeps the written names still in the set in their order, then adds the rest', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e')),
        fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e')),
        (w, a) => {
          const out = updatedList(w, a);
          expect([...out].sort()).toEqual([...a].sort());
          expect(out.slice(0, w.filter((x) => a.includes(x)).length)).toEqual(w.filter((x) => a.includes(x)));
        },
      ),
    );
  });
});
