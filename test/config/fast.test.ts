import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { fastParse } from '../../src/config/fast.js';
import { documents, writeExamples, writeRandom } from './fast-writer.js';
import { ROOT } from '../helpers/cli.js';

/** The fast path must agree with yaml's full parse whenever it answers, and never answer on a bad file. */
function agrees(text: string): void {
  const fast = fastParse(text, 100);
  if (!fast) return;
  const doc = parseDocument(text, { uniqueKeys: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(fast.value).toEqual(doc.toJS());
}

const runs = Number(process.env.FUZZ_RUNS ?? 300);

/** Random edits: a few pieces inserted, each replacing up to 3 characters. */
const edits = fc.array(
  fc.tuple(
    fc.nat(4000),
    fc.nat(3),
    fc.constantFrom(
      ':',
      ' ',
      '\n',
      '[',
      ']',
      '{',
      '}',
      ',',
      '#',
      '- ',
      '"',
      "'",
      '  ',
      'x',
      '|',
      '>',
      '? ',
      '&a ',
      '*a',
      '---\n',
      '\t',
      '1',
      'null',
      '\r',
      '\r\n',
      '\\',
      '\\x',
      '\\u00e9',
      '@',
      '%',
      '!',
      '...',
      ': ',
      ' #',
      '-',
      '\u2028',
      '\ufeff',
      '\u0085',
      '\u0001',
      '1.5',
      '~',
    ),
  ),
  { maxLength: 4 },
);

function mutate(base: string, changes: [number, number, string][]): string {
  let text = base;
  for (const [at, del, insert] of changes)
    text = text.slice(0, at % (text.length + 1)) + insert + text.slice((at % (text.length + 1)) + del);
  return text;
}

const files = [
  ...readdirSync(path.join(ROOT, 'test/fixtures/config')).map((f) => `test/fixtures/config/${f}`),
  'examples/getting-started/roster.yaml',
  ...readdirSync(path.join(ROOT, 'examples/company')).map((f) => `examples/company/${f}`),
];

describe('fast parse path', () => {
  it.each(files)('agrees with the full parse on %s', (file) => agrees(readFileSync(path.join(ROOT, file), 'utf8')));

  it('answers for the examples and generated configurations (or the benchmark means nothing)', () => {
    for (const file of files.filter((f) => f.startsWith('examples/')))
      expect(fastParse(readFileSync(path.join(ROOT, file), 'utf8'), 100), file).toBeDefined();
    expect(
      fastParse(
        toYaml(generateEnvironment({ users: 50, groups: 10, maxDepth: 3, instances: 20, memberships: 80 }) as never),
        100,
      ),
    ).toBeDefined();
  });

  it.each([
    ['anchors', 'a: &x 1\nb: *x\n'],
    ['tags', 'a: !!str 1\n'],
    ['floats', 'a: 1.5\n'],
    ['other number forms', 'a: [0x1, 0o7, 1e3, .inf, -.Inf, .NaN]\n'],
    ['unclosed flow', 'a: [1, 2\nb: 3\n'],
    ['duplicate keys', 'a: 1\na: 2\n'],
    ['duplicate keys in flow', 'a: {b: 1, b: 2}\n'],
    ['misaligned keys', 'a:\n  b: 1\n   c: 2\n'],
    ['a less indented key', 'a:\n  b: 1\n c: 2\n'],
    ['a sequence then a key at its column', 'a:\n  - x\n  b: 1\n'],
    ['a more indented line after a value', 'a: 1\n  b: 2\n'],
    ['a lone carriage return', 'a: 1\rb: 2\n'],
    ['tabs', 'a:\t1\n'],
    ['control characters', 'a: x\u0001\n'],
    ['NEL', 'a: x\u0085y\n'],
    ['line separators', 'a: x\u2028y\n'],
    ['a byte order mark', '\ufeffa: 1\n'],
    ['directives', '%YAML 1.2\n---\na: 1\n'],
    ['a second document', 'a: 1\n---\nb: 2\n'],
    ['content after ---', '--- a: 1\n'],
    ['a document end marker', 'a: 1\n...\n'],
    ['explicit keys', '? a\n: 1\n'],
    ['literal block scalars', 'a: |\n  x\n'],
    ['folded block scalars', 'a: >\n  x\n'],
    ['multi-line plain scalars', 'a: b\n  c\n'],
    ['multi-line quoted scalars', 'a: "b\n  c"\n'],
    ['reserved indicators', 'a: @x\n'],
    ['a backtick', 'a: `x\n'],
    ['a dash value', 'a: - x\n'],
    ['a colon start', 'a: :x\n'],
    ['nested implicit keys', 'a: b: c\n'],
    ['a glued comment after a quoted scalar', 'a: "x"#c\n'],
    ['a glued comment after a flow collection', 'a: [x]#c\n'],
    ['text after a quoted scalar', 'a: "x" y\n'],
    ['a flow map entry without value', 'a: {b}\n'],
    ['a pair in a flow sequence', 'a: [b: c]\n'],
    ['JSON-style flow pairs', 'a: {"b":1}\n'],
    ['empty flow entries', 'a: [1,,2]\n'],
    ['YAML-only escapes', 'a: "\\x41"\n'],
    ['unknown escapes', 'a: "\\q"\n'],
    ['non-string keys', '1: a\n'],
    ['null keys', 'null: a\n'],
    ['boolean keys in flow', 'a: {true: 1}\n'],
    ['prototype keys', '__proto__: 1\n'],
    ['prototype keys in flow', 'a: {constructor: 1}\n'],
    ['long keys', `${'k'.repeat(1100)}: 1\n`],
    ['nested sequences on one line', 'a:\n- - x\n'],
    ['a sequence at the top', '- a\n'],
    ['a scalar at the top', 'a\n'],
    ['an empty document', '# nothing\n'],
  ])('leaves %s to the full path', (_what, text) => expect(fastParse(text, 100)).toBeUndefined());

  it('leaves documents deeper than maxDepth to the full path', () => {
    expect(fastParse('a: [1]\n', 3)).toBeDefined(); // the top mapping, the sequence and 1: three levels
    expect(fastParse('a: [[1]]\n', 3)).toBeUndefined();
    expect(fastParse('a:\n  b:\n    c: 1\n', 3)).toBeUndefined();
    expect(fastParse(`a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`, 100)).toBeUndefined();
  });

  it.each([
    ['CRLF line ends', 'a: 1\r\nb: [x, y]\r\n'],
    ['a leading ---', '# c\n--- # start\na: 1\n'],
    ["a sequence at its key's column", 'a:\n- x\n- y\nb: 1\n'],
    ['compact mappings', 'a:\n  - b: 1\n    c: [x]\n  -   d: 2\n      e:\n      - f\n'],
    ['nested blocks after dashes', 'a:\n  -\n    b: 1\n  - # c\n    - x\n  -\n'],
    ['a value on the next line', 'a:\n  x y\nb:\n  [1]\n'],
    ['trailing commas', 'a: [x, ]\nb: {c: 1,}\n'],
    ['quoted scalars', `a: "x \\" \\\\ \\/ \\u00e9 \\n"\nb: 'it''s'\n"c d": ''\n`],
    ['comments', '# top\na: 1 # one\n  # indented\nb: # two\n\n  c: x # three\n'],
    ['plain scalars with indicators inside', 'a: document:read, x-y ?z\nb: [a"b, c\'d, -1, -x]\nc: 50%\n'],
    ['an indented document', '  a: 1\n  b: 2\n'],
    ['a flow mapping at the top', '{a: 1, b: [2]}\n'],
  ])('answers, like the full parse, for %s', (_what, text) => {
    expect(fastParse(text, 100)).toBeDefined();
    agrees(text);
  });

  it('agrees with the full parse on mutated configurations', () => {
    const bases = files.filter((f) => f.startsWith('examples/')).map((f) => readFileSync(path.join(ROOT, f), 'utf8'));
    fc.assert(
      fc.property(fc.constantFrom(...bases), edits, (base, changes) => agrees(mutate(base, changes))),
      { numRuns: runs },
    );
  });

  it('agrees with the full parse on mutated benchmark-style configurations', () => {
    const sizes = fc.record({
      users: fc.integer({ min: 1, max: 12 }),
      groups: fc.integer({ min: 0, max: 6 }),
      seed: fc.nat(1000),
    });
    fc.assert(
      fc.property(sizes, edits, ({ users, groups, seed }, changes) => {
        const raw = generateEnvironment({
          users,
          groups,
          maxDepth: 3,
          instances: 5,
          memberships: 10,
          tenants: 2,
          seed,
          groupRoles: 'by-type',
        });
        agrees(mutate(toYaml({ project: 'bench', environment: 'prod', ...raw }), changes));
      }),
      { numRuns: runs },
    );
  });

  it('agrees with the full parse on generated documents written in random styles', () => {
    fc.assert(
      fc.property(documents, fc.integer(), (doc, seed) => agrees(writeRandom(doc, seed))),
      { numRuns: runs * 3 },
    );
  });

  it.each([
    ['the benchmark style (a block of flow)', (doc: Record<string, unknown>) => toYaml(doc)],
    ['the examples style (block)', writeExamples],
  ])('answers, and right, for generated documents in %s', (_style, write) => {
    let answered = 0;
    fc.assert(
      fc.property(documents, (doc) => {
        const text = write(doc as never);
        agrees(text);
        const fast = fastParse(text, 100);
        if (fast) {
          answered++;
          expect(fast.value).toEqual(doc);
        }
      }),
      { numRuns: runs },
    );
    expect(answered).toBeGreaterThan(runs * 0.9);
  });
});
