import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { decodeUtf8, MAX_FILE_BYTES } from '../../src/config/read.js';
import { brief, validateFixture, validateTexts } from './helpers.js';

describe('YAML errors', () => {
  it.each([
    ['yaml-duplicate-key', '4:3 tenants.acme: duplicate key "acme" (first written at line 2, column 3)'],
    ['yaml-syntax-error', '2:9 : this { ... } mapping is not closed'],
    ['yaml-multiple-documents', '3:1 : a second YAML document starts here: a configuration file holds one document'],
    [
      'yaml-not-a-mapping',
      '1:1 : a configuration file must be a mapping of sections (resources, roles, tenants, users, ...)',
    ],
  ])('%s', (scenario, expected) => {
    expect(validateFixture(scenario).errors.map(brief)).toEqual([expected]);
  });

  it('reports every duplicate key of a file in one run', () => {
    const r = validateTexts('tenants:\n  a: {}\n  b: {}\n  a: {}\nusers:\n  x: {}\n  x: {}\n');
    expect(r.errors.map(brief)).toEqual([
      '4:3 tenants.a: duplicate key "a" (first written at line 2, column 3)',
      '7:3 users.x: duplicate key "x" (first written at line 6, column 3)',
    ]);
  });

  it.each([
    [
      'a tab',
      'users:\n  alice:\n\ttenants: [acme]\n',
      '3:1 : a tab indents this line',
      'YAML indents with spaces only: replace the tab with spaces',
    ],
    [
      'a dedented key',
      'users:\n  alice:\n    tenants: [acme]\n   email: a@b.c\n',
      '4:4 : this key is out of line with the keys before it',
      'indent it with as many spaces',
    ],
    [
      'an unclosed list, where it opened',
      'users:\n  alice: { tenants: [acme }\n',
      '2:21 : this [ ... ] list is not closed',
      'close it with ]',
    ],
    [
      'an unclosed mapping, where it opened, not at the next section',
      'tenants:\n  acme: { name: Acme\nusers:\n  alice: {}\n',
      '2:9 : this { ... } mapping is not closed',
      'close it with }',
    ],
    [
      'a key indented more than the key above it, once, on its own line',
      'users:\n  alice:\n    email: a@b.c\n      tenants: [acme]\n',
      '4:7 : this key is indented more than the key above it',
      'indent it with as many spaces as the keys beside it',
    ],
    [
      'an over-indented key after a blank line',
      'users:\n  alice:\n    email: a@b.c\n\n      tenants: [acme]\n',
      '5:7 : this key is indented more than the key above it',
      'nothing can be nested under it',
    ],
    [
      'an unclosed quote',
      'users:\n  "alice: {}\n',
      '3:1 : a quoted string is not closed',
      'end it with the same quote',
    ],
    [
      'a colon in a value',
      'users:\n  alice: a: b\n',
      '2:10 : a second `key: value` on the line of a value',
      'quote the value',
    ],
    // Issue #41: "unexpected scalar at node end", without a hint.
    [
      'two flow mappings on one line',
      'set_rules:\n  - a: { x: 1 }, b: { y: 2 }\n',
      '2:16 : more follows a value that has already ended on this line',
      'put them all in one { ... } (- { a: {...}, b: {...} })',
    ],
    [
      'text after a quoted value',
      'tenants:\n  acme: { name: "Acme" Inc }\n',
      '2:24 : more follows a value that has already ended on this line',
      'for a quoted value, quote all of it',
    ],
  ])('%s: the YAML message in the house style, with a hint', (_, text, expected, hint) => {
    const [error] = validateTexts(text).errors;
    expect(brief(error)).toBe(expected);
    expect(error.hint).toContain(hint);
  });

  it('an over-indented key is one error, not two on the line above (issue #31)', () => {
    expect(validateTexts('users:\n  alice:\n    email: a@b.c\n      tenants: [acme]\n').errors.map(brief)).toEqual([
      '4:7 : this key is indented more than the key above it',
    ]);
    // Not an over-indented key: a colon in a value, on one line, stays what it was.
    expect(validateTexts('users:\n  alice: a: b\n').errors.map(brief)).toEqual([
      '2:10 : a second `key: value` on the line of a value',
    ]);
  });

  it('a duplicate key does not hide the other mistakes of its file (the first entry is checked)', () => {
    const r = validateTexts(
      'tenants: { acme: {} }\nusers:\n  bob: { tenants: [acme] }\n  bob: { tenants: [acmee] }\n  carol: { tenants: [nope] }\n',
    );
    expect(r.errors.map(brief)).toEqual([
      '4:3 users.bob: duplicate key "bob" (first written at line 3, column 3)',
      '5:22 users.carol.tenants[0]: unknown tenant "nope"',
    ]);
  });

  it('a file that does not parse hides only the sections it declares: the other files are checked, and a warning says what was not', () => {
    const broken = 'users:\n  alice:\n\ttenants: [acme]\n';
    const other =
      'tenants: { acme: {} }\ngroups:\n  team:eng: { tenant: acmee, members: [alice] }\nusers:\n  zed: { tenants: [nope] }\n';
    const r = validateTexts(broken, other);
    expect(r.errors.map((e) => `${e.file} ${brief(e)}`)).toEqual([
      'a.yaml 3:1 : a tab indents this line',
      'b.yaml 3:23 groups.team:eng.tenant: unknown tenant "acmee"',
      'b.yaml 5:20 users.zed.tenants[0]: unknown tenant "nope"',
    ]);
    // alice may be declared in the broken file: not called unknown; the warning names what was skipped.
    expect(r.warnings.map((w) => `${w.file} ${w.message}`)).toEqual([
      'a.yaml did not parse: references to names in users (the sections it declares) were not checked in any file; the other checks ran',
    ]);
  });

  it('a file whose sections cannot be told still hides every undeclared-name check, and says so', () => {
    const r = validateTexts('{ users: { alice: {} }\n', 'users: { bob: { tenants: [nope] } }\n');
    expect(r.errors.map((e) => e.file)).toEqual(['a.yaml']);
    expect(r.warnings[0].message).toContain('no reference in any file was checked');
  });

  it('an empty file is an empty configuration', () => {
    expect(validateTexts('', '# only a comment\n')).toMatchObject({ errors: [], warnings: [] });
  });
});

describe('hostile input is refused with a clear message', () => {
  it('prototype keys', () => {
    expect(validateFixture('yaml-proto-key').errors.map(brief)).toEqual([
      '4:7 tenants.acme.attributes.__proto__: the key "__proto__" is not allowed',
    ]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(validateTexts('tenants:\n  constructor: {}\n').errors[0].message).toBe(
      'the key "constructor" is not allowed',
    );
  });

  it('alias bombs', () => {
    const started = Date.now();
    const r = validateFixture('yaml-alias-bomb');
    expect(r.errors.map((e) => e.message)).toEqual([
      'too many alias expansions (more than 100): the file looks like an alias bomb',
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it.each([
    ['flow', '['.repeat(150) + ']'.repeat(150)],
    ['block', Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n'],
    ['hostile flow', 'a: ' + '['.repeat(300_000)],
  ])('more than 100 levels of nesting (%s)', (_kind, text) => {
    const r = validateTexts(text);
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors.some((e) => /nested too deeply|must be a mapping|Flow sequence/.test(e.message))).toBe(true);
  });

  it('exactly 100 levels are fine', () => {
    const text = Array.from({ length: 99 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n';
    expect(validateTexts(text).errors.map((e) => e.message)).not.toContain(expect.stringMatching(/nested too deeply/));
  });

  it('non-UTF-8 and UTF-16 input', () => {
    const bad = Buffer.concat([Buffer.from('tenants:\n  ac'), Buffer.from([0xff, 0xfe]), Buffer.from('me: {}\n')]);
    expect(decodeUtf8('x.yaml', bad)).toMatchObject({
      line: 2,
      column: 5,
      message: 'file is not valid UTF-8 (byte 0xff at offset 13)',
    });
    expect(decodeUtf8('x.yaml', Buffer.from([0xff, 0xfe, 0x61, 0x00]))).toMatchObject({
      message: 'file is UTF-16, not UTF-8',
    });
    expect(decodeUtf8('x.yaml', Buffer.from('\ufefftenants: {}\n'))).toBe('tenants: {}\n');
  });

  it('files over 10 MB, without reading them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'roster-big-'));
    const file = path.join(dir, 'big.yaml');
    writeFileSync(file, Buffer.alloc(MAX_FILE_BYTES + 1, 0x20));
    const r = await loadConfig([file]);
    expect(r.errors.map((e) => e.message)).toEqual(['file is 10.0 MB, over the 10 MB limit']);
  });

  it('missing paths and empty directories', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'roster-empty-'));
    const r = await loadConfig([path.join(dir, 'nope.yaml'), dir]);
    expect(r.errors.map((e) => e.message)).toEqual([
      'no such file or directory',
      'no .yaml or .yml file in this directory',
    ]);
  });
});

describe('lists that default to empty, and allowed values (issue #31)', () => {
  it('a list written with its key alone is empty: members, roles, member_of, tenants, permissions, assertions', () => {
    const r = validateTexts(
      'tenants: { acme: {} }\nusers:\n  al:\n    tenants:\n    roles:\ngroups:\n  team:eng:\n    tenant: acme\n    members:\n    roles:\n    member_of:\nroles:\n  viewer:\n    permissions:\nassertions:\n',
    );
    expect(r.errors.map(brief)).toEqual([]);
    const eng = [...r.desired!.groups.values()].find((g) => g.key === 'eng')!;
    expect([eng.members, eng.roles, eng.memberOf]).toEqual([[], [], []]);
  });

  it('a list the schema requires is not made empty: still an error, at its place', () => {
    const r = validateTexts('roles: { editor: {} }\naccess_requests:\n  default:\n    reviewer_roles:\n');
    expect(r.errors.map(brief)).toEqual([
      '4:20 access_requests.default.reviewer_roles: expected a list, found nothing',
    ]);
  });

  it('a value outside the allowed ones names them, with a did-you-mean', () => {
    const [error, ...more] = validateTexts('users: { al: {} }\nauthoritative: [user]\n').errors;
    expect(more).toEqual([]);
    expect(brief(error)).toBe(
      '2:17 authoritative[0]: invalid value "user": expected one of resources, roles, tenants, users, resource_instances, groups, access_requests, user_attributes, tenant_attributes, user_sets, resource_sets, set_rules',
    );
    expect(error.hint).toBe('did you mean "users"?');
  });
});
