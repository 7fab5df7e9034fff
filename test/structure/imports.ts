/**
 * The import graph of src/, read with the TypeScript compiler's pre-processor (imports only, no type
 * check: the whole tree reads in well under a second). Every kind of import counts, `import type` and
 * `import()` included: a cycle of types is still two files that cannot be read apart.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export type ImportGraph = Map<string, Set<string>>;

/** Every .ts/.tsx file under `root`, as paths relative to `root` with `/` separators. */
export function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** Resolves a relative specifier (`../types/desired.js`) to a file of `files`, or undefined. */
function resolveSpecifier(from: string, spec: string, files: Set<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve('/', dirname(from), spec).slice(1);
  const stem = base.replace(/\.(js|jsx|ts|tsx)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${stem}/index.ts`])
    if (files.has(candidate)) return candidate;
  return undefined;
}

/** File → the files of the same tree it imports. */
export function importGraph(
  root: string,
  read: (path: string) => string = (p) => readFileSync(join(root, p), 'utf8'),
): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(read(file), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolveSpecifier(file, ref.fileName, known);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The top-level folder of a file (`plan/types.ts` → `plan`); files at the root are their own unit (`errors.ts`). */
export function folderOf(file: string): string {
  const i = file.indexOf('/');
  return i < 0 ? file : file.slice(0, i);
}

/** Folder → folders it imports (self excluded). */
export function folderGraph(graph: ImportGraph): ImportGraph {
  const out: ImportGraph = new Map();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (!out.has(from)) out.set(from, new Set());
    for (const t of targets) if (folderOf(t) !== from) out.get(from)!.add(folderOf(t));
  }
  return out;
}

/**
 * The strongly connected components with more than one node (Tarjan): every node of one reaches every
 * other, so each holds at least one cycle. Each as its members and the shortest cycle through the first
 * (`a → b → a`), sorted: empty when the graph has no cycle.
 */
export function findCycles(graph: ImportGraph): { members: string[]; cycle: string[] }[] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) visit(v);
  return components
    .map((c) => ({ members: [...c].sort(), cycle: cyclePath(graph, new Set(c)) }))
    .sort((a, b) => (a.members[0] < b.members[0] ? -1 : 1));
}

/** One cycle through a strongly connected component, starting at its smallest node: a path to show. */
function cyclePath(graph: ImportGraph, component: Set<string>): string[] {
  const start = [...component].sort()[0];
  // Breadth-first from start back to start, inside the component: the shortest cycle through it.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
