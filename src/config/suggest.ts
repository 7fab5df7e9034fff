/** "Did you mean" for unknown fields and references. */

/** The closest candidate within a small edit distance, or undefined. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 2)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    if (Math.abs(c.length - word.length) >= bestDistance) continue;
    const d = distance(word.toLowerCase(), c.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const c = closest(word, candidates);
  return c === undefined ? undefined : `did you mean "${c}"?`;
}

/**
 * Edit distance counting a swap of two neighbours as one edit (optimal string alignment), giving up
 * (returning `cap`) once every path costs at least `cap`.
 */
export function distance(a: string, b: string, cap = Infinity): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, before[j - 2] + 1);
      row.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= cap) return cap;
    before = prev;
    prev = row;
  }
  return prev[b.length];
}
