/** Small statistics shared by the benches. */

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Runs `fn` `runs` times; the median time and the last value. */
export function time<T>(fn: () => T, runs = 3): { ms: number; value: T } {
  const ms: number[] = [];
  let value!: T;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    value = fn();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), value };
}
