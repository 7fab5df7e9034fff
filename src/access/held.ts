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
export function mergeHeld(lists: readonly (readonly Held[])[]): readonly Held[] {
  let out: readonly Held[] = [];
  for (const list of lists) {
    if (list.length === 0) continue;
    out = out.length === 0 ? list : mergeTwo(out, list);
  }
  return out;
}

function mergeTwo(a: readonly Held[], b: readonly Held[]): Held[] {
  const out: Held[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compareHeld(a[i], b[j]);
    if (c < 0) out.push(a[i++]);
    else if (c > 0) out.push(b[j++]);
    else {
      const paths = [...a[i].paths, ...b[j].paths].sort(comparePaths);
      out.push({ instance: a[i].instance, role: a[i].role, paths });
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]);
  while (j < b.length) out.push(b[j++]);
  return out;
}
