/** Evaluating assertions on the graph, and the three output formats. Pure. */
import { describe, expect, it } from 'vitest';
import { buildAccessGraph, type AccessFacts } from '../../src/access/index.js';
import { checksNeeded, evaluateAssertions, type AssertionSpec } from '../../src/access/assertions.js';
import { checkKey } from '../../src/types/checks.js';
import { renderCheck } from '../../src/access/check-report.js';

const facts: AccessFacts = {
  roles: [
    { key: 'editor', permissions: ['document:read', 'document:write'] },
    { key: 'viewer', permissions: ['document:read'] },
  ],
  instances: [
    { id: 'document:readme', tenant: 'acme' },
    { id: 'document:billing', tenant: 'acme' },
    { id: 'team:contractors', tenant: 'acme' },
  ],
  tenantRoles: [{ user: 'dave', role: 'viewer', tenant: 'acme' }],
  instanceRoles: [{ user: 'bob', role: 'editor', instance: 'document:readme' }],
  memberships: [
    { user: 'carol', group: 'team:finance' },
    { user: 'erin', group: 'team:contractors' },
    { user: 'frank', group: 'team:vendors' },
  ],
  links: [{ child: 'team:vendors', parent: 'team:contractors' }],
  groupGrants: [
    { group: 'team:finance', role: 'editor', instance: 'document:billing' },
    { group: 'team:contractors', role: 'editor', instance: 'document:billing' },
  ],
};
const graph = buildAccessGraph(facts);
const at = (line: number) => ({ file: 'roster.yaml', path: `assertions[${line - 10}]`, line, column: 5 });
const a = (x: Omit<AssertionSpec, 'source'>, line: number): AssertionSpec => ({ ...x, source: at(line) });

const assertions: AssertionSpec[] = [
  a({ user: 'bob', check: 'can', subject: 'write', on: 'document:readme' }, 10),
  a({ user: 'carol', check: 'cannot', subject: 'write', on: 'document:billing' }, 11),
  a({ user: 'bob', check: 'has_role', subject: 'editor', on: 'document:readme' }, 12),
  a({ usersIn: 'team:contractors', check: 'cannot', subject: 'document:write', on: 'document:billing' }, 13),
  a({ user: 'dave', check: 'has_role', subject: 'editor', on: 'document:readme' }, 14),
];

describe('evaluateAssertions', () => {
  const report = evaluateAssertions(assertions, graph);

  it('passes and fails each assertion; a cannot prints every path that breaks it, users_in checks nested members', () => {
    expect(report).toMatchObject({ passed: false, total: 5, failed: 3 });
    expect(report.results.map((r) => [r.name, r.passed, r.users])).toEqual([
      ['bob can write on document:readme', true, ['bob']],
      ['carol cannot write on document:billing', false, ['carol']],
      ['bob has role editor on document:readme', true, ['bob']],
      ['users in team:contractors cannot document:write on document:billing', false, ['erin', 'frank']],
      ['dave has role editor on document:readme', false, ['dave']],
    ]);
    expect(report.results[3].failures).toEqual([
      {
        user: 'erin',
        message: 'erin can write on document:billing: one path grants it.',
        paths: ['erin → team:contractors → editor on document:billing (editor grants document:write)'],
      },
      {
        user: 'frank',
        message: 'frank can write on document:billing: one path grants it.',
        paths: ['frank → team:vendors → team:contractors → editor on document:billing (editor grants document:write)'],
      },
    ]);
    expect(report.results[4].failures[0].message).toBe(
      'dave lacks role editor on document:readme; it would take a direct editor on document:readme; or a tenant-wide editor in acme.',
    );
  });

  it("with the service's answers, they decide; the graph still gives the paths", () => {
    // Each check names the instance's tenant, as an application sends it (ABAC reads user.roles there).
    const checks = checksNeeded(assertions, graph);
    expect(checks).toEqual([
      { user: 'bob', action: 'write', instance: 'document:readme', tenant: 'acme' },
      { user: 'carol', action: 'write', instance: 'document:billing', tenant: 'acme' },
      { user: 'erin', action: 'write', instance: 'document:billing', tenant: 'acme' },
      { user: 'frank', action: 'write', instance: 'document:billing', tenant: 'acme' },
    ]);
    const decisions = new Map(checks.map((c) => [checkKey(c), false]));
    const live = evaluateAssertions(assertions, graph, { decisions });
    expect(live.results.map((r) => r.passed)).toEqual([false, true, true, true, false]);
    expect(live.results[0].failures[0].message).toBe(
      'the service denies bob document:write on document:readme, though the live state reads as granting it.',
    );
  });

  it('text: failures only, with file:line and paths; --verbose adds the passes', () => {
    expect(renderCheck(report, 'text', { on: 'desired' })).toBe(
      [
        'FAIL roster.yaml:11: carol cannot write on document:billing',
        '  carol can write on document:billing: one path grants it.',
        '    carol → team:finance → editor on document:billing (editor grants document:write)',
        'FAIL roster.yaml:13: users in team:contractors cannot document:write on document:billing (2 members)',
        '  erin can write on document:billing: one path grants it.',
        '    erin → team:contractors → editor on document:billing (editor grants document:write)',
        '  frank can write on document:billing: one path grants it.',
        '    frank → team:vendors → team:contractors → editor on document:billing (editor grants document:write)',
        'FAIL roster.yaml:14: dave has role editor on document:readme',
        '  dave lacks role editor on document:readme; it would take a direct editor on document:readme; or a tenant-wide editor in acme.',
        '',
        '5 assertions on the configuration: 2 passed, 3 failed.',
        '',
      ].join('\n'),
    );
    expect(renderCheck(report, 'text', { on: 'live', verbose: true })).toMatch(
      /^PASS roster.yaml:10: bob can write on document:readme\n/,
    );
  });

  it('json: the failing results (all with --verbose)', () => {
    const json = JSON.parse(renderCheck(report, 'json', { on: 'desired' }));
    expect(json).toMatchObject({ on: 'desired', passed: false, total: 5, failed: 3 });
    expect(json.results).toHaveLength(3);
    expect(JSON.parse(renderCheck(report, 'json', { on: 'desired', verbose: true })).results).toHaveLength(5);
  });

  it('junit: one testcase per assertion, a failure element with the paths, XML escaped', () => {
    const xml = renderCheck(report, 'junit', { on: 'live' });
    expect(xml.match(/<testcase /g)).toHaveLength(5);
    expect(xml).toContain('<testsuites name="roster check (live)" tests="5" failures="3">');
    expect(xml).toContain(
      '<testcase classname="roster.yaml" name="bob can write on document:readme" file="roster.yaml" line="10"/>',
    );
    expect(xml).toContain(
      '<failure message="carol can write on document:billing: one path grants it." type="AssertionFailed">carol can write on document:billing: one path grants it.\n  carol → team:finance → editor on document:billing (editor grants document:write)</failure>',
    );
    const odd = evaluateAssertions([{ user: 'a<b>&"', check: 'can', subject: 'write', on: 'document:readme' }], graph);
    expect(renderCheck(odd, 'junit', { on: 'desired' })).toContain(
      'name="a&lt;b&gt;&amp;&quot; can write on document:readme"',
    );
  });
});
