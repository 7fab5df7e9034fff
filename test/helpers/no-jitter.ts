import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { ROOT } from './cli-build-dir.js';

/**
 * The environment for `runCli` that sets the child's jitter to 0 (test/README.md, "Deadlines"): the CLI's
 * retries then follow each other without waiting. Only where the retries are not what the test is about;
 * a connection refused still waits out its minimum silence (src/api/breaker.ts), by time, not by jitter.
 */
export function noJitterEnv(): { NODE_OPTIONS: string } {
  const preload = `--import=${pathToFileURL(path.join(ROOT, 'test/helpers/no-jitter.mjs')).href}`;
  return { NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' ') };
}
