/**
 * Work on a thread of its own: the configuration's validation (config/validate-aside.ts) and the embedded
 * default's service (server/aside.ts), so that a command reads, validates and serves on several cores.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Whether a thread can load this build's modules: built JavaScript loads anywhere; the TypeScript sources
 * only where the tsx loader is registered (and inherited by workers), not under vitest's own loader.
 */
export function threadsCanLoad(): boolean {
  return import.meta.url.endsWith('.js') || process.execArgv.some((a) => a.includes('tsx'));
}

/**
 * A worker running the module `name` (without extension) next to `base` (the caller's `import.meta.url`):
 * `./validate-worker.js` in the build; from the TypeScript sources, tsx is registered first.
 */
export function startThread(base: string, name: string, workerData: unknown): Worker {
  if (base.endsWith('.ts')) {
    const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const module = JSON.stringify(new URL(`${name}.ts`, base).href);
    return new Worker(`(async () => { (await import(${tsx})).register(); await import(${module}); })()`, {
      eval: true,
      workerData,
    });
  }
  return new Worker(new URL(`${name}.js`, base), { workerData });
}

/**
 * Lowers the calling thread's scheduling priority, where the system gives threads their own (Linux: a
 * thread is a task with its own id, `/proc/thread-self`); elsewhere it keeps the process's priority.
 */
export function lowerThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // Not Linux, or not allowed: the thread competes at the process's priority.
  }
}
