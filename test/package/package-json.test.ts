/** `roster init`'s pure parts: the package.json and .gitignore entries it adds, and the specs it reads. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { installedFrom, rebaseFileSpec } from '../../src/usecases/init/installed-from.js';
import {
  allowScriptsKey,
  mergeGitignore,
  mergePackageJson,
  packageName,
} from '../../src/usecases/init/package-json.js';

describe('allowScriptsKey', () => {
  it.each([
    ['file:vendor/roster-0.1.0.tgz', 'file:vendor/roster-0.1.0.tgz'],
    ['file:../roster', 'file:../roster'],
    ['github:acme/roster#v0.1.0', 'github:acme/roster'],
    ['github:acme/roster', 'github:acme/roster'],
    ['acme/roster#main', 'acme/roster'],
    ['git+https://git.example.com/acme/roster.git#0123abc', 'git+https://git.example.com/acme/roster.git'],
    ['git+ssh://git@github.com/acme/roster.git', 'git+ssh://git@github.com/acme/roster.git'],
    ['https://example.com/roster-0.1.0.tgz', 'https://example.com/roster-0.1.0.tgz'],
    ['^0.1.0', undefined],
    ['0.1.0', undefined],
    ['latest', undefined],
    ['npm:roster-fork@1.0.0', undefined],
  ])('%s → %s', (spec, key) => {
    expect(allowScriptsKey(spec)).toBe(key);
  });
});

describe('mergePackageJson', () => {
  it('creates a private package.json naming Roster and approving the install scripts it needs', () => {
    expect(mergePackageJson(undefined, { name: 'infra', rosterSpec: 'github:acme/roster#v0.1.0' })).toEqual({
      json: {
        name: 'infra',
        private: true,
        devDependencies: { 'roster-authz': 'github:acme/roster#v0.1.0' },
        allowScripts: { 'better-sqlite3': true, 'github:acme/roster': true },
      },
      added: [
        'name',
        'private',
        'devDependencies.roster-authz',
        'allowScripts.better-sqlite3',
        'allowScripts.github:acme/roster',
      ],
      denied: [],
    });
  });

  it('keeps what the project has: its roster spec, its other entries, and a denial (reported)', () => {
    const existing = {
      name: 'x',
      dependencies: { 'roster-authz': 'file:vendor/roster-0.1.0.tgz' },
      devDependencies: { typescript: '^5' },
      allowScripts: { 'better-sqlite3': false, esbuild: true },
    };
    const { json, added, denied } = mergePackageJson(existing, { name: 'ignored', rosterSpec: 'github:acme/roster' });
    expect(json).toEqual({
      ...existing,
      allowScripts: { 'better-sqlite3': false, esbuild: true, 'file:vendor/roster-0.1.0.tgz': true },
    });
    expect(added).toEqual(['allowScripts.file:vendor/roster-0.1.0.tgz']);
    expect(denied).toEqual(['better-sqlite3']);
    expect(existing.allowScripts).toEqual({ 'better-sqlite3': false, esbuild: true }); // not mutated
  });

  it('adds no roster dependency when its spec is unknown, and no key for a registry spec', () => {
    expect(
      mergePackageJson({ devDependencies: { 'roster-authz': '^0.1.0' } }, { name: 'x' }).json.allowScripts,
    ).toEqual({ 'better-sqlite3': true });
    expect(mergePackageJson({}, { name: 'x' }).json).toEqual({ allowScripts: { 'better-sqlite3': true } });
  });

  const json = fc.dictionary(
    fc.constantFrom(
      'name',
      'version',
      'scripts',
      'dependencies',
      'devDependencies',
      'allowScripts',
      'private',
      'engines',
    ),
    fc.oneof(
      fc.string(),
      fc.boolean(),
      fc.dictionary(
        fc.constantFrom('roster-authz', 'better-sqlite3', 'file:r.tgz', 'left-pad', 'github:a/roster'),
        fc.oneof(fc.boolean(), fc.string()),
      ),
    ),
  );
  const spec = fc.option(fc.constantFrom('file:r.tgz', 'github:a/roster#v1', '^1.0.0', 'a/roster'), { nil: undefined });

  it('never changes or drops an existing value, only adds (property)', () => {
    fc.assert(
      fc.property(json, spec, (existing, rosterSpec) => {
        const { json: out } = mergePackageJson(existing, { name: 'n', rosterSpec });
        for (const [key, value] of Object.entries(existing)) {
          if (value !== null && typeof value === 'object') {
            for (const [k, v] of Object.entries(value)) expect((out[key] as Record<string, unknown>)[k]).toEqual(v);
          } else {
            expect(out[key]).toEqual(value);
          }
        }
        const allow = existing.allowScripts;
        if (allow === undefined || typeof allow === 'object')
          expect((out.allowScripts as Record<string, unknown>)['better-sqlite3']).toBeDefined();
      }),
    );
  });

  it('is idempotent: a second merge adds nothing (property)', () => {
    fc.assert(
      fc.property(json, spec, (existing, rosterSpec) => {
        const once = mergePackageJson(existing, { name: 'n', rosterSpec });
        const twice = mergePackageJson(once.json, { name: 'n', rosterSpec });
        expect(twice.json).toEqual(once.json);
        expect(twice.added).toEqual([]);
      }),
    );
  });
});

describe('packageName', () => {
  it.each([
    ['infra', 'infra'],
    ['My Access Repo', 'my-access-repo'],
    ['.hidden', 'hidden'],
    ['_x_', 'x_'],
    ['!!!', 'roster-config'],
    ['', 'roster-config'],
  ])('%j → %s', (dir, name) => {
    expect(packageName(dir)).toBe(name);
  });

  it('always gives a name npm accepts (property)', () => {
    fc.assert(
      fc.property(fc.string(), (dir) => {
        expect(packageName(dir)).toMatch(/^[a-z0-9~][a-z0-9._~-]*$/);
        expect(packageName(dir).length).toBeLessThanOrEqual(214);
      }),
    );
  });
});

describe('mergeGitignore', () => {
  it.each([
    [undefined, ['node_modules/', '.roster/']],
    ['', ['node_modules/', '.roster/']],
    ['dist/', ['node_modules/', '.roster/']],
    ['node_modules\n', ['.roster/']],
    ['/node_modules/\n.roster\n', []],
    ['  .roster/  \r\nnode_modules/\r\n', []],
  ])('%j: adds %j, keeping every line', (existing, added) => {
    const result = mergeGitignore(existing);
    expect(result.added).toEqual(added);
    expect(result.text.startsWith(existing ?? '')).toBe(true);
    expect(mergeGitignore(result.text).added).toEqual([]);
    if (added.length > 0) expect(result.text.split('\n')).toEqual(expect.arrayContaining(added));
  });
});

describe('installedFrom', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-installed-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const project = (name: string, manifest: object | string | undefined) => {
    const dir = path.join(tmp, name);
    mkdirSync(path.join(dir, 'node_modules/roster'), { recursive: true });
    if (manifest !== undefined)
      writeFileSync(path.join(dir, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
    return { dir, root: path.join(dir, 'node_modules/roster') };
  };

  it('reads the spec from the installing project, a file: path rebased onto the target', () => {
    const { dir, root } = project('a', { devDependencies: { 'roster-authz': 'file:vendor/roster-0.1.0.tgz' } });
    expect(installedFrom(dir, root)).toBe('file:vendor/roster-0.1.0.tgz');
    expect(installedFrom(path.join(tmp, 'elsewhere/repo'), root)).toBe('file:../../a/vendor/roster-0.1.0.tgz');
  });

  it('keeps other specs; undefined outside node_modules or without a readable spec', () => {
    expect(
      installedFrom(tmp, project('b', { dependencies: { 'roster-authz': 'github:acme/roster#v0.1.0' } }).root),
    ).toBe('github:acme/roster#v0.1.0');
    expect(installedFrom(tmp, path.join(tmp, 'clone'))).toBeUndefined();
    expect(installedFrom(tmp, project('c', undefined).root)).toBeUndefined();
    expect(installedFrom(tmp, project('d', '{ not json').root)).toBeUndefined();
    expect(installedFrom(tmp, project('e', { devDependencies: { other: '1' } }).root)).toBeUndefined();
  });

  it('rebaseFileSpec: absolute paths too', () => {
    expect(rebaseFileSpec('file:/opt/r.tgz', '/a', '/opt/x')).toBe('file:../r.tgz');
    expect(rebaseFileSpec('file:r.tgz', '/a', '/a')).toBe('file:r.tgz');
  });
});
