import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml, type RawConfigObject } from '../../bench/generate.js';
import { validateSources, type Problem } from '../../src/config/index.js';
import { formatPath } from '../../src/config/source.js';
import { brief, validateTexts } from './helpers.js';

const BASE = `resources:
  document: [read, write]
roles:
  viewer: [document:read]
  editor: [document:read, document:write]
tenants:
  acme: {}
users:
  alice: { tenants: [acme], roles: [viewer] }
  bob: { tenants: [acme], roles: [editor] }
resource_instances:
  document:readme: acme
`;

const where = (p: Problem) => `${p.file} ${brief(p)}`;

/**
 * One run reports every mistake: the schema's, and the rules' on every part the schema accepted. Each
 * row is a configuration (BASE plus the text) and every problem expected, nothing else.
 */
const cases: { name: string; text: string; errors: string[]; warnings?: string[] }[] = [
  {
    name: 'a misspelt list of actions: the permissions naming them are not checked',
    text: 'resources:\n  invoice: { actoins: [read] }\nroles:\n  clerk: [invoice:read]\nusers:\n  carol: { tenants: [acme], roles: [clerk] }\n',
    errors: ['b.yaml 2:14 resources.invoice.actoins: unknown field "actoins"'],
  },
  {
    name: 'a user whose tenants are misspelt: the tenant of a short role is not asked for',
    text: 'users:\n  carol: { tenats: [acme], roles: [viewer] }\n',
    errors: ['b.yaml 2:12 users.carol.tenats: unknown field "tenats"'],
  },
  {
    name: 'an unknown field in a group and an unknown role elsewhere',
    text:
      'groups:\n  team:a: { tenant: acme, members: [alice], member_off: [team:b], roles: [{ role: editr, on: document:readme }] }\n' +
      '  team:b: { tenant: acme, members: [bob], roles: [{ role: editr, on: document:readme }] }\n',
    errors: [
      'b.yaml 2:45 groups.team:a.member_off: unknown field "member_off"',
      'b.yaml 2:83 groups.team:a.roles[0].role: unknown role "editr"',
      'b.yaml 3:59 groups.team:b.roles[0].role: unknown role "editr"',
    ],
  },
  {
    name: 'a misspelt required field refuses its entry, whose name still resolves',
    text:
      'groups:\n  team:a: { tenat: acme, members: [alice] }\n  team:b: { tenant: acme, members: [bob], member_of: [team:a] }\n' +
      'assertions:\n  - { users_in: team:a, can: read, on: document:readme }\n',
    errors: ['b.yaml 2:13 groups.team:a.tenat: unknown field "tenat"'],
  },
  {
    name: 'an entry of the wrong shape: its name resolves, its content is not checked',
    text: 'groups:\n  team:a: { tenant: acme, members: alice }\n  team:b: { tenant: acme, members: [bob], member_of: [team:a] }\n',
    errors: ['b.yaml 2:36 groups.team:a.members: expected a list, found the string "alice"'],
  },
  {
    name: 'a section of the wrong shape: no name of it is called unknown',
    text: 'groups: [team:a]\nassertions:\n  - { users_in: team:a, can: read, on: document:readme }\n  - { user: alcie, can: read, on: document:readme }\n',
    errors: [
      'b.yaml 1:9 groups: expected a mapping, found a list',
      'b.yaml 4:13 assertions[1].user: unknown user "alcie"',
    ],
  },
  {
    name: 'a misspelt section: its names resolve as those of the section it nearly spells',
    text: 'grups:\n  team:a: { tenant: acme, members: [alice] }\nassertions:\n  - { users_in: team:a, can: read, on: document:readme }\n  - { users_in: team:x, can: read, on: document:readme }\n',
    errors: ['b.yaml 1:1 grups: unknown field "grups"', 'b.yaml 5:17 assertions[1].users_in: unknown group "team:x"'],
  },
  {
    name: 'a misspelt field of an assertion refuses the assertion only',
    text: 'assertions:\n  - { user: alice, may: read, on: document:readme }\n  - { user: alice, has_role: editr, on: document:readme }\n',
    errors: [
      'b.yaml 2:20 assertions[0].may: unknown field "may"',
      'b.yaml 3:30 assertions[1].has_role: unknown role "editr"',
    ],
  },
  {
    name: 'an unknown tenant is reported once, not again as a tenant mismatch',
    text: 'resource_instances:\n  document:plans: acmee\ngroups:\n  team:a: { tenant: acme, members: [alice], roles: [{ role: viewer, on: document:plans }] }\n',
    errors: ['b.yaml 2:19 resource_instances.document:plans.tenant: unknown tenant "acmee"'],
  },
  {
    name: 'a role on an unknown instance: no question about its tenant',
    text: 'users:\n  carol: { roles: [{ role: viewer, on: document:redme }] }\n',
    errors: ['b.yaml 2:40 users.carol.roles[0].on: unknown resource instance "document:redme"'],
  },
];

describe('every mistake in one run, and none that follows from another', () => {
  it.each(cases)('$name', ({ text, errors, warnings }) => {
    const r = validateTexts(BASE, text);
    expect(r.errors.map(where)).toEqual(errors);
    expect(r.warnings.map(brief)).toEqual(warnings ?? []);
  });
});

describe('warnings that a mistake explains are not given', () => {
  it.each([
    [
      'a role named only through a typo',
      'groups:\n  team:a: { tenant: acme, members: [alice], roles: [{ role: auditr, on: document:readme }] }\n',
    ],
    [
      'a role named only by a refused entry',
      'groups:\n  team:a: { tenant: acme, members: alice, roles: [{ role: auditor, on: document:readme }] }\n',
    ],
    [
      'a group linked only through a typo',
      'groups:\n  team:a: { tenant: acme, member_of: [team:parnet], members: [alice], roles: [{ role: auditor, on: document:readme }] }\n  team:parent: { tenant: acme }\n',
    ],
    [
      'a group linked only through a misspelt field',
      'groups:\n  team:a: { tenant: acme, member_off: [team:parent], members: [alice], roles: [{ role: auditor, on: document:readme }] }\n  team:parent: { tenant: acme }\n',
    ],
    [
      'a group whose members are misspelt',
      'groups:\n  team:a: { tenant: acme, membres: [alice], roles: [{ role: auditor, on: document:readme }] }\n',
    ],
  ])('%s', (_, text) => {
    const r = validateTexts(BASE.replace('roles:\n', 'roles:\n  auditor: [document:read]\n'), text);
    expect(r.errors).toHaveLength(1);
    expect(r.warnings.map(brief)).toEqual([]);
  });

  it('still warns about what no mistake explains', () => {
    const r = validateTexts(
      BASE,
      'groups:\n  team:a: { tenant: acme, membres: [alice] }\n  team:b: { tenant: acme }\n',
    );
    expect(r.warnings.map(where)).toEqual([
      'b.yaml 3:3 groups.team:b: group "team:b" has no members and no member groups [warning]',
    ]);
  });
});

describe('across files', () => {
  it('a file that does not parse: the others are checked, but no name is called unknown', () => {
    const r = validateTexts(
      BASE,
      'groups:\n  team:a: { tenant: acme, members: [carol], member_of: [team:b] }\n  team:b: { tenant: acme, members: [dave], member_of: [team:a] }\n',
      'users:\n  carol: { tenants: [acme]\n',
    );
    expect(r.errors.map(where)).toEqual([
      'b.yaml 3:56 groups.team:b.member_of[0]: member_of forms a cycle: team:a → team:b → team:a',
      expect.stringMatching(/^c\.yaml /),
    ]);
  });

  it('an entry declared twice is reported even when the schema refused one of them', () => {
    const r = validateTexts(BASE, 'users:\n  alice: { tenants: acme }\n');
    expect(r.errors.map(where)).toEqual([
      'b.yaml 2:3 users.alice: user "alice" is declared twice: here and at a.yaml:9:3',
      'b.yaml 2:21 users.alice.tenants: expected a list, found the string "acme"',
    ]);
  });
});

describe('every unknown name gets a hint', () => {
  it.each([
    ['a user role', 'users:\n  carol: { tenants: [acme], roles: [editr] }\n', 'users.carol.roles[0].role'],
    [
      'a group role',
      'groups:\n  team:a: { tenant: acme, members: [alice], roles: [{ role: editr, on: document:readme }] }\n',
      'groups.team:a.roles[0].role',
    ],
    [
      'a reviewer role',
      'access_requests:\n  default: { reviewer_roles: [editr] }\n',
      'access_requests.default.reviewer_roles[0]',
    ],
    [
      'an assertion',
      'assertions:\n  - { user: alice, has_role: editr, on: document:readme }\n',
      'assertions[0].has_role',
    ],
  ])('a role typo in %s', (_, text, path) => {
    const [e, ...rest] = validateTexts(BASE, text).errors;
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ path, message: 'unknown role "editr"', hint: 'did you mean "editor"?' });
  });

  it('lists the declared names when none is close, and says when there are none', () => {
    expect(validateTexts(BASE, 'users:\n  carol: { tenants: [acme], roles: [owner] }\n').errors[0].hint).toBe(
      'declared roles: viewer, editor',
    );
    expect(
      validateTexts('users:\n  carol: { roles: [{ role: x, tenant: acme }] }\n').errors.map((e) => e.hint),
    ).toEqual(['no roles are declared', 'no tenants are declared']);
  });

  it('counts names the schema refused among the candidates', () => {
    const r = validateTexts(BASE, 'tenants:\n  globex: [1]\ngroups:\n  team:a: { tenant: globx, members: [alice] }\n');
    expect(r.errors.map((e) => [e.message, e.hint])).toEqual([
      ['expected a mapping, a string or nothing, found a list', undefined],
      ['unknown tenant "globx"', 'did you mean "globex"?'],
    ]);
  });
});

/** Sections whose entries are mappings in generated configurations, and a field of a wrong type for each. */
const WRONG: Record<string, [string, unknown]> = {
  resources: ['name', 5],
  roles: ['name', 5],
  tenants: ['name', 5],
  users: ['email', 5],
  resource_instances: ['tenant', 5],
  groups: ['tenant', 5],
  access_requests: ['name', 5],
};

describe('property: one mistake anywhere gives exactly one problem', () => {
  const sizes = fc.record({
    users: fc.integer({ min: 1, max: 30 }),
    groups: fc.integer({ min: 1, max: 12 }),
    maxDepth: fc.integer({ min: 1, max: 5 }),
    instances: fc.integer({ min: 1, max: 12 }),
    memberships: fc.integer({ min: 0, max: 60 }),
    tenants: fc.integer({ min: 1, max: 3 }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
  });

  it('an unknown field, or a field of the wrong type, in any entry: that problem alone, and no new warning', () => {
    fc.assert(
      fc.property(sizes, fc.nat(), fc.boolean(), (opts, pick, refuse) => {
        const config = generateEnvironment(opts) as RawConfigObject &
          Record<string, Record<string, Record<string, unknown>>>;
        const before = validateSources([{ file: 'gen.yaml', text: toYaml(config as never) }]);
        const entries = Object.keys(WRONG).flatMap((section) =>
          Object.keys(config[section] ?? {}).map((key) => [section, key] as const),
        );
        const [section, key] = entries[pick % entries.length];
        const [field, value] = refuse ? WRONG[section] : ['zz_unknown', 1];
        config[section][key] = { ...config[section][key], [field]: value };
        const after = validateSources([{ file: 'gen.yaml', text: toYaml(config as never) }]);
        expect(after.errors.map((e) => e.path)).toEqual([formatPath([section, key, field])]);
        const warned = new Set(before.warnings.map(brief));
        expect(after.warnings.map(brief).filter((w) => !warned.has(w))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
