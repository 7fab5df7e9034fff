import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycles, folderGraph, importGraph, type ImportGraph } from './imports.js';

/**
 * No import cycles in src/ (docs/internals.md, "Layers"): not between files, not between folders. Every
 * import counts, `import type` and `import()` included. A cycle is named by the files (or folders) on it,
 * with the shortest way round.
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');

const show = (cycles: ReturnType<typeof findCycles>) =>
  cycles.map((c) => `${c.cycle.join(' → ')}  (cycle among ${c.members.join(', ')})`);

/** The layers, lowest first: a folder may import the ones below it, never one above or beside it. */
const LAYERS: string[][] = [
  ['types'],
  ['rules'],
  ['access', 'config', 'api'],
  ['plan', 'read'],
  ['apply', 'review', 'server'],
  ['usecases'],
  ['cli'],
];

describe('imports in src/', () => {
  const graph = importGraph(SRC);

  it('reads the tree (the scanner sees the imports it must judge)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('plan/plan.ts')).toContain('plan/change.ts');
    // `import type` and `import()` count too.
    expect(graph.get('plan/types.ts')).toContain('plan/access.ts');
    expect(graph.get('usecases/adopt.ts')).toContain('api/read-live.ts');
  });

  it('has no cycle between files', () => {
    expect(show(findCycles(graph))).toEqual([]);
  });

  it('has no cycle between folders', () => {
    expect(show(findCycles(folderGraph(graph)))).toEqual([]);
  });

  it('keeps its layers: src/types imports nothing of ours; each folder imports only the layers below it', () => {
    const layer = new Map(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as const)));
    const wrong: string[] = [];
    for (const [from, targets] of folderGraph(graph)) {
      const i = layer.get(from);
      if (i === undefined) continue; // a file at the root of src/ (errors.ts, ci.ts): imports nothing of the layers
      for (const to of targets) {
        const j = layer.get(to);
        if (j !== undefined && j >= i) wrong.push(`${from} → ${to}`);
      }
    }
    expect(wrong).toEqual([]);
    expect([...(folderGraph(graph).get('types') ?? [])]).toEqual([]);
  });
});

describe('the cycle finder', () => {
  const g = (edges: Record<string, string[]>): ImportGraph =>
    new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));

  it.each([
    ['none in a chain', { a: ['b'], b: ['c'], c: [] }, []],
    ['two files importing each other', { a: ['b'], b: ['a'] }, [['a', 'b', 'a']]],
    [
      'a longer loop, shown by its shortest way round',
      { a: ['b'], b: ['c'], c: ['a', 'd'], d: [] },
      [['a', 'b', 'c', 'a']],
    ],
    [
      'two separate loops',
      { a: ['b'], b: ['a'], c: ['d'], d: ['c'] },
      [
        ['a', 'b', 'a'],
        ['c', 'd', 'c'],
      ],
    ],
  ])('%s', (_, edges, cycles) => {
    expect(findCycles(g(edges)).map((c) => c.cycle)).toEqual(cycles);
  });

  it('groups folders: files of one folder importing each other are no folder cycle', () => {
    const files = g({
      'plan/a.ts': ['plan/b.ts', 'types/x.ts'],
      'plan/b.ts': ['plan/a.ts'],
      'types/x.ts': [],
      'access/y.ts': ['types/x.ts'],
    });
    expect(findCycles(folderGraph(files))).toEqual([]);
    expect(
      findCycles(folderGraph(g({ 'plan/a.ts': ['access/y.ts'], 'access/y.ts': ['plan/b.ts'], 'plan/b.ts': [] }))).map(
        (c) => c.cycle,
      ),
    ).toEqual([['access', 'plan', 'access']]);
  });
});
