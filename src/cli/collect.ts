import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Plans from this many changes collect before their writes (below, the heap is small anyway). */
export const COLLECT_FROM_CHANGES = 10_000;

/**
 * A full garbage collection, now. Before an apply's writes most of the heap is garbage (the access
 * section's graphs, the planner's maps), but V8 sets its next collection by the largest heap it has seen,
 * so that garbage and the writes' own stay resident: at ×10 the bench's environment (455,097 changes,
 * bench/scale.bench.ts) the live heap before the writes is 248 MB and the process still peaked at
 * 1,147 MB during them; collected first, 852 MB. Node has no public call for it: `--expose-gc` set at
 * run time gives `gc` to contexts made after it. Where it gives none, nothing happens.
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
  gc?.();
}
