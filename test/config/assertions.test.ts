import { describe, expect, it } from 'vitest';
import { brief, validateFixture, validateTexts } from './helpers.js';

const BASE = `resources:
  document: [read, write]
roles:
  editor: [document:read, document:write]
tenants:
  acme: {}
users:
  alice: { tenants: [acme] }
resource_instances:
  document:readme: acme
groups:
  eng: { tenant: acme, members: [alice] }
`;

describe('assertions in the configuration', () => {
  it('normalise to the desired state in the order written, with their place', () => {
    const r = validateFixture('assertions-valid');
    expect(r.errors).toEqual([]);
    expect(r.desired!.assertions).toEqual([
      {
        user: 'alice',
        check: 'can',
        subject: 'write',
        on: 'document:readme',
        source: { file: 'test/fixtures/config/assertions-valid.yaml', path: 'assertions[0]', line: 14, column: 5 },
      },
      {
        usersIn: 'team:eng',
        check: 'cannot',
        subject: 'document:write',
        on: 'document:readme',
        source: { file: 'test/fixtures/config/assertions-valid.yaml', path: 'assertions[1]', line: 15, column: 5 },
      },
      {
        user: 'alice',
        check: 'has_role',
        subject: 'editor',
        on: 'team:eng',
        source: { file: 'test/fixtures/config/assertions-valid.yaml', path: 'assertions[2]', line: 16, column: 5 },
      },
    ]);
  });

  it('are not a section: the planner never manages or prunes anything for them', () => {
    const r = validateTexts(BASE, 'assertions:\n  - { user: alice, can: read, on: document:readme }\n');
    expect([...r.desired!.sections]).not.toContain('assertions');
    expect(r.desired!.assertions.map((a) => a.source.file)).toEqual(['b.yaml']);
  });

  it('a group written without its type is of type group (users_in: eng)', () => {
    const r = validateTexts(BASE + 'assertions:\n  - { users_in: eng, cannot: write, on: document:readme }\n');
    expect(r.errors).toEqual([]);
    expect(r.desired!.assertions[0].usersIn).toBe('group:eng');
  });

  it.each([
    ['{ user: alice, can: write }', '14:5 assertions[0]: an assertion must say on which instance: on'],
    ['{ user: alice, may: write, on: document:readme }', '14:20 assertions[0].may: unknown field "may"'],
    [
      '{ user: alice, can: "a b", on: document:readme }',
      '14:25 assertions[0].can: invalid value "a b" (expected: an action key, or `<resource>:<action>`)',
    ],
    [
      '{ user: alice, can: write, on: readme }',
      '14:36 assertions[0].on: invalid value "readme" (expected: `<resource>:<key>` of a resource instance, e.g. `document:readme`)',
    ],
  ])('the schema refuses %s', (item, expected) => {
    const r = validateTexts(BASE + `assertions:\n  - ${item}\n`);
    expect(r.errors.map(brief)).toEqual([expected]);
  });
});
