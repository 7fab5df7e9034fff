/** Exact-set assertions in the configuration: normalised, refused when misshapen, names resolved with did-you-mean. */
import { describe, expect, it } from 'vitest';
import { brief, validateTexts } from './helpers.js';
import { editExactLists } from '../../src/config/edit-exact.js';

const BASE = `resources:
  document: [read, write]
  expense: [approve]
roles:
  editor: [document:read, document:write, expense:approve]
tenants:
  acme: {}
users:
  alice: { tenants: [acme] }
  heidi: { tenants: [acme] }
resource_instances:
  document:readme: acme
  expense:exp-001: acme
`;
const ASSERT_LINE = 15;
/** `15:<column of needle>` in the item, written after `  - `. */
const at = (item: string, needle: string | null) => `${ASSERT_LINE}:${needle === null ? 5 : item.indexOf(needle) + 5}`;

describe('exact-set assertions', () => {
  it('normalise: who_can on an instance, user + can + on_type, with their item', () => {
    const r = validateTexts(
      BASE +
        'assertions:\n  - { who_can: approve, on: expense:exp-001, exactly: [heidi] }\n  - { user: alice, can: read, on_type: document, exactly: [readme] }\n',
    );
    expect(r.errors).toEqual([]);
    expect(r.desired!.assertions).toEqual([
      {
        check: 'who_can',
        subject: 'approve',
        on: 'expense:exp-001',
        exactly: ['heidi'],
        source: { file: 'a.yaml', path: 'assertions[0]', line: ASSERT_LINE, column: 5, item: 0 },
      },
      {
        user: 'alice',
        check: 'what_can',
        subject: 'read',
        on: 'document',
        exactly: ['readme'],
        source: { file: 'a.yaml', path: 'assertions[1]', line: ASSERT_LINE + 1, column: 5, item: 1 },
      },
    ]);
  });

  it.each([
    [
      '{ who_can: aprove, on: expense:exp-001, exactly: [heidi] }',
      'aprove',
      'assertions[0].who_can: resource "expense" has no action "aprove"',
    ],
    [
      '{ who_can: approve, on: expense:exp-01, exactly: [] }',
      'expense:exp-01',
      'assertions[0].on: unknown resource instance "expense:exp-01"',
    ],
    [
      '{ who_can: approve, on: expense:exp-001, exactly: [hedi] }',
      'hedi',
      'assertions[0].exactly[0]: unknown user "hedi"',
    ],
    ['{ user: alise, can: read, on_type: document, exactly: [] }', 'alise', 'assertions[0].user: unknown user "alise"'],
    [
      '{ user: alice, can: read, on_type: documnt, exactly: [] }',
      'documnt',
      'assertions[0].on_type: unknown resource "documnt"',
    ],
    [
      '{ user: alice, can: raed, on_type: document, exactly: [] }',
      'raed',
      'assertions[0].can: resource "document" has no action "raed"',
    ],
    [
      '{ user: alice, can: read, on_type: document, exactly: [readm] }',
      'readm',
      'assertions[0].exactly[0]: unknown resource instance "document:readm"',
    ],
    ['{ who_can: approve, on: expense:exp-001 }', null, 'assertions[0]: an exact-set assertion needs exactly'],
    [
      '{ who_can: approve, user: alice, on: expense:exp-001, exactly: [] }',
      'user',
      'assertions[0].user: an exact-set assertion cannot have user',
    ],
    ['{ user: alice, can: read, exactly: [] }', null, 'assertions[0]: an exact-set assertion needs on_type'],
  ])('%s → %s %s', (item, needle, expected) => {
    const r = validateTexts(BASE + `assertions:\n  - ${item}\n`);
    expect(r.errors.map(brief)).toEqual([expect.stringContaining(`${at(item, needle)} ${expected}`)]);
  });

  it('an unknown name gets a did-you-mean hint', () => {
    const r = validateTexts(BASE + 'assertions:\n  - { who_can: approve, on: expense:exp-001, exactly: [hedi] }\n');
    expect(r.errors[0].hint).toBe('did you mean "heidi"?');
  });
});

describe('editExactLists (check --update)', () => {
  it.each([
    [
      'flow list, comment after it kept',
      'assertions:\n  - { who_can: approve, on: e:1, exactly: [bob, dan] }   # who approves\n',
      ['bob', 'carol'],
      'assertions:\n  - { who_can: approve, on: e:1, exactly: [bob, carol] }   # who approves\n',
    ],
    [
      'block list at its indentation, comments before and after kept',
      'assertions:\n  - user: alice\n    # the EU ones\n    exactly:\n      - taxi\n      - offsite\n    # end\nusers: {}\n',
      ['taxi', 'laptop'],
      'assertions:\n  - user: alice\n    # the EU ones\n    exactly:\n      - taxi\n      - laptop\n    # end\nusers: {}\n',
    ],
    [
      'to empty',
      'assertions:\n  - { who_can: a, on: e:1, exactly: [bob] }\n',
      [],
      'assertions:\n  - { who_can: a, on: e:1, exactly: [] }\n',
    ],
    [
      'quoted where plain YAML would change the value',
      'assertions:\n  - { who_can: a, on: e:1, exactly: [] }\n',
      ['yes', '|x', 'a@b.c'],
      'assertions:\n  - { who_can: a, on: e:1, exactly: ["yes", "|x", a@b.c] }\n',
    ],
  ])('%s', (_what, text, list, out) => {
    expect(editExactLists(text, [{ item: 0, list }])).toBe(out);
  });

  it('edits several assertions of one file, the others untouched', () => {
    const text =
      'assertions:\n  - { who_can: a, on: e:1, exactly: [x] }\n  - { user: u, can: r, on: d:1 }\n  - { who_can: a, on: e:2, exactly: [y] }\n';
    expect(
      editExactLists(text, [
        { item: 0, list: ['x', 'z'] },
        { item: 2, list: [] },
      ]),
    ).toBe(
      'assertions:\n  - { who_can: a, on: e:1, exactly: [x, z] }\n  - { user: u, can: r, on: d:1 }\n  - { who_can: a, on: e:2, exactly: [] }\n',
    );
  });

  it('refuses an assertion without an exactly: list', () => {
    expect(() => editExactLists('assertions:\n  - { user: u, can: r, on: d:1 }\n', [{ item: 0, list: [] }])).toThrow(
      'assertions[0] has no exactly: list',
    );
  });
});
