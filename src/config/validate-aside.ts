import { startThread, threadsCanLoad } from '../threads.js';
import type { LoadResult } from './index.js';
import type { SourceText } from './read.js';

/** Below this much YAML, validating takes less than starting a thread: it runs here. */
const ASIDE_FROM_BYTES = 256 * 1024;

/**
 * `validateSources` on a worker thread, so that this thread goes on reading the live state meanwhile
 * (issue #12: the 10,000-user configuration takes ~0.8 s to validate). The result is the same plain data
 * (structured clone keeps the Maps). Small configurations, and runs from TypeScript sources without a
 * loader the worker could use (vitest), validate on this thread.
 */
export async function validateAside(sources: SourceText[]): Promise<LoadResult> {
  const bytes = sources.reduce((n, s) => n + s.text.length, 0);
  // The pipeline (yaml, the rules, ~45 ms to load) is loaded on this thread only when it runs here.
  const here = async () => (await import('./index.js')).validateSources(sources);
  if (bytes < ASIDE_FROM_BYTES || !threadsCanLoad()) return here();
  return new Promise<LoadResult>((resolve, reject) => {
    let settled = false;
    const worker = startThread(import.meta.url, './validate-worker', { sources });
    worker.once('message', (result: LoadResult) => {
      settled = true;
      resolve(result);
      void worker.terminate();
    });
    // A thread that cannot start or fails leaves the work to this one: the same result, only not aside.
    const fallBack = () => {
      if (settled) return;
      settled = true;
      here().then(resolve, reject);
    };
    worker.once('error', fallBack);
    worker.once('exit', (code) => code !== 0 && fallBack());
  });
}
