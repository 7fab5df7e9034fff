import { cmp } from './paths.js';
import { typeOf } from '../types/refs.js';
import type { InstanceTally } from './summary.js';

/** Ids of shared instance lists, so that two sets built from the same lists have the same `key`. */
const listIds = new WeakMap<readonly string[], number>();
let nextListId = 0;
const idOf = (list: readonly string[]) => {
  let id = listIds.get(list);
  if (id === undefined) listIds.set(list, (id = nextListId++));
  return id;
};

/**
 * The instances one tenant-wide change covers, without a copy of them: shared sorted lists (the
 * tenant's instances of one type listed on one or both sides of a diff: disjoint, each made once per
 * diff), less a few instances where the change does not hold (`except`). A tenant-wide role reaches
 * every instance of its tenant, and the users holding it are many: a list per (user, instance) pair
 * would be users × instances (tenant-wide.ts). Built from the diff's canonical lists, with no list
 * whose every instance is excepted, two sets of the same instances have the same lists and `key`.
 */
export class CoveredInstances {
  readonly size: number;
  /** Per list, the indices of its excepted instances, ascending. */
  private readonly skipped: number[][];

  constructor(
    readonly lists: readonly (readonly string[])[],
    readonly except: ReadonlySet<string>,
  ) {
    this.skipped = lists.map((list) => [...except].map((i) => indexIn(list, i)).filter((k) => k >= 0));
    for (const s of this.skipped) s.sort((a, b) => a - b);
    this.size = lists.reduce((n, l, k) => n + l.length - this.skipped[k].length, 0);
  }

  /** The first `n` instances, sorted. */
  first(n: number): string[] {
    const out: string[] = [];
    const at = this.lists.map(() => 0);
    while (out.length < n) {
      let best = -1;
      for (let k = 0; k < this.lists.length; k++) {
        while (at[k] < this.lists[k].length && this.except.has(this.lists[k][at[k]])) at[k]++;
        if (at[k] < this.lists[k].length && (best < 0 || this.lists[k][at[k]] < this.lists[best][at[best]])) best = k;
      }
      if (best < 0) break;
      out.push(this.lists[best][at[best]++]);
    }
    return out;
  }

  /** Every instance, sorted. For small sets and tests: this is the enumeration the class avoids. */
  all(): string[] {
    return this.first(this.size);
  }

  /** The `j`-th instance (`0 <= j < size`) in a fixed order, each list in turn: for even sampling. */
  at(j: number): string {
    for (let k = 0; k < this.lists.length; k++) {
      const kept = this.lists[k].length - this.skipped[k].length;
      if (j >= kept) {
        j -= kept;
        continue;
      }
      let index = j;
      for (const s of this.skipped[k]) if (s <= index) index++;
      return this.lists[k][index];
    }
    throw new RangeError(`instance ${j} of ${this.size}`);
  }

  /** How many of each type, by type key. */
  byType(): Map<string, number> {
    const out = new Map<string, number>();
    const add = (type: string, n: number) => n > 0 && out.set(type, (out.get(type) ?? 0) + n);
    this.lists.forEach((list, k) => list.length > 0 && add(typeOf(list[0]), list.length - this.skipped[k].length));
    return new Map([...out].sort(([a], [b]) => cmp(a, b)));
  }

  /** Their number, per type, and the first `n`: what a line says of them. */
  tally(n: number): InstanceTally {
    return { count: this.size, byType: Object.fromEntries(this.byType()), first: this.first(n) };
  }

  /** Equal for two sets of the same instances built from the same lists (what groups users into one line). */
  key(): string {
    const lists = this.lists.map(idOf).sort((a, b) => a - b);
    return `${lists.join(',')}\u0000${[...this.except].sort(cmp).join('\u0000')}`;
  }
}

/** The index of `item` in a sorted list, or -1. */
export function indexIn(list: readonly string[], item: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < item) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length && list[lo] === item ? lo : -1;
}
