import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/internals.md names files and functions along one change's way: a rename or a move must update it.
 * Every `dir/file.ts` it names exists (under src/, or from the repository root), and every "`name`
 * (`file.ts`)" names something that file contains.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'internals.md'), 'utf8');
const resolve = (file: string) => [join(ROOT, 'src', file), join(ROOT, file)].find((p) => existsSync(p));

describe('docs/internals.md', () => {
  const files = [...new Set([...doc.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\.(?:ts|json))`/g)].map((m) => m[1]))];

  it('names files that exist', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => !resolve(f))).toEqual([]);
  });

  it('names functions and types where it says they are', () => {
    const named = [...doc.matchAll(/`([A-Za-z_][\w.]*)(?:\([^`]*\))?` \(`([\w.-]+(?:\/[\w.-]+)+\.ts)`/g)].map((m) => ({
      name: m[1].split('.').at(-1)!,
      file: m[2],
    }));
    expect(named.length).toBeGreaterThan(15);
    const missing = named.filter(({ name, file }) => {
      const path = resolve(file);
      return !path || !new RegExp(`\\b${name}\\b`).test(readFileSync(path, 'utf8'));
    });
    expect(missing).toEqual([]);
  });
});
