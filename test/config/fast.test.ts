import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { fastParse } from '../../src/config/fast.js';
import { ROOT } from '../helpers/cli.js';

/** The fast path must agree with yaml's full parse whenever it answers, and never answer on a bad file. */
function agrees(text: string): void {
  const fast = fastParse(text, 100);
  if (!fast) return;
  const doc = parseDocument(text, { uniqueKeys: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(fast.value).toEqual(doc.toJS());
}

const files = [
  ...readdirSync(path.join(ROOT, 'test/fixtures/config')).map((f) => `test/fixtures/config/${f}`),
  'examples/getting-started/roster.yaml',
  ...readdirSync(path.join(ROOT, 'examples/company')).map((f) => `examples/company/${f}`),
];

describe('fast parse path', () => {
  it.each(files)('agrees with the full parse on %s', (file) => agrees(readFileSync(path.join(ROOT, file), 'utf8')));

  it('answers for the examples and generated configurations (or the benchmark means nothing)', () => {
    expect(fastParse(readFileSync(path.join(ROOT, 'examples/getting-started/roster.yaml'), 'utf8'), 100)).toBeDefined();
    expect(fastParse(toYaml(generateEnvironment({ users: 50, groups: 10, maxDepth: 3, instances: 20, memberships: 80 }) as never), 100)).toBeDefined();
  });

  it.each([
    ['anchors', 'a: &x 1\nb: *x\n'],
    ['tags', 'a: !!str 1\n'],
    ['floats', 'a: 1.5\n'],
    ['unclosed flow', 'a: [1, 2\nb: 3\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['misaligned keys', 'a:\n  b: 1\n   c: 2\n'],
  ])('leaves %s to the full path', (_what, text) => expect(fastParse(text, 100)).toBeUndefined());

  it('agrees with the full parse on mutated configurations', () => {
    const bases = files.filter((f) => f.startsWith('examples/')).map((f) => readFileSync(path.join(ROOT, f), 'utf8'));
    const pieces = [':', ' ', '\n', '[', ']', '{', '}', ',', '#', '- ', '"', "'", '  ', 'x', '|', '>', '? ', '&a ', '*a', '---\n', '\t', '1', 'null'];
    fc.assert(
      fc.property(fc.constantFrom(...bases), fc.array(fc.tuple(fc.nat(4000), fc.nat(3), fc.constantFrom(...pieces)), { maxLength: 4 }), (base, edits) => {
        let text = base;
        for (const [at, del, insert] of edits) text = text.slice(0, at % (text.length + 1)) + insert + text.slice((at % (text.length + 1)) + del);
        agrees(text);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 400) },
    );
  });
});
