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
    ['yaml-syntax-error', '3:1 : Flow map in block collection must be sufficiently indented and end with a }'],
    ['yaml-multiple-documents', '3:1 : a second YAML document starts here: a configuration file holds one document'],
    ['yaml-not-a-mapping', '1:1 : a configuration file must be a mapping of sections (resources, roles, tenants, users, ...)'],
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

  it('an empty file is an empty configuration', () => {
    expect(validateTexts('', '# only a comment\n')).toMatchObject({ errors: [], warnings: [] });
  });
});

describe('hostile input is refused with a clear message', () => {
  it('prototype keys', () => {
    expect(validateFixture('yaml-proto-key').errors.map(brief)).toEqual(['4:7 tenants.acme.attributes.__proto__: the key "__proto__" is not allowed']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect(validateTexts('tenants:\n  constructor: {}\n').errors[0].message).toBe('the key "constructor" is not allowed');
  });

  it('alias bombs', () => {
    const started = Date.now();
    const r = validateFixture('yaml-alias-bomb');
    expect(r.errors.map((e) => e.message)).toEqual(['too many alias expansions (more than 100): the file looks like an alias bomb']);
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
    expect(decodeUtf8('x.yaml', bad)).toMatchObject({ line: 2, column: 5, message: 'file is not valid UTF-8 (byte 0xff at offset 13)' });
    expect(decodeUtf8('x.yaml', Buffer.from([0xff, 0xfe, 0x61, 0x00]))).toMatchObject({ message: 'file is UTF-16, not UTF-8' });
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
    expect(r.errors.map((e) => e.message)).toEqual(['no such file or directory', 'no .yaml or .yml file in this directory']);
  });
});
