import type { AccessPath } from './facts.js';
import { cmp, comparePaths } from './paths.js';

/** One role held on one instance, with why; lists of these are kept sorted by (instance, role). */
export interface Held {
  instance: string;
  role: string;
  paths: readonly AccessPath[];
}

export function compareHeld(a: Held, b: Held): number {
  return cmp(a.instance, b.instance) || cmp(a.role, b.role);
}

/**
 * Merges lists sorted by (instance, role) into one, joining the paths of equal keys (kept sorted).
 * Pairwise, in order: a user has only a few sources (direct roles, tenant roles, a few groups), and a
 * linear merge beats hashing every entry. Entries of a single source are reused as they are.
 */
export function mergeHeld(lists: readonly (readonly Held[])[], join: JoinPaths = joinPaths): readonly Held[] {
  let out: readonly Held[] = [];
  for (const list of lists) {
    if (list.length === 0) continue;
    out = out.length === 0 ? list : mergeTwo(out, list, join);
  }
  return out;
}

/** The paths of one (instance, role) held from two sources, sorted. */
export type JoinPaths = (a: readonly AccessPath[], b: readonly AccessPath[]) => readonly AccessPath[];

const joinPaths: JoinPaths = (a, b) => [...a, ...b].sort(comparePaths);

/** The entries of a sorted list on one instance: [start, end). */
export function rangeOf(list: readonly Held[], instance: string): [number, number] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].instance < instance) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < list.length && list[end].instance === instance) end++;
  return [lo, end];
}

function mergeTwo(a: readonly Held[], b: readonly Held[], join: JoinPaths): Held[] {
  const out: Held[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareHeld(a[i], b[j]);
    if (c < 0) out.push(a[i++]);
    else if (c > 0) out.push(b[j++]);
    else {
      out.push({ instance: a[i].instance, role: a[i].role, paths: join(a[i].paths, b[j].paths) });
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}
