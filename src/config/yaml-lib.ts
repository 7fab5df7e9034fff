import { createRequire } from 'node:module';

let loaded: typeof import('yaml') | undefined;

/**
 * The yaml library, loaded on first use: a configuration the fast path reads (fast.ts) and that has no
 * problem to point at never needs it, and loading it costs ~35 ms of every validating run.
 */
export function yaml(): typeof import('yaml') {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return loaded;
}
