import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Where this run's JavaScript build of src/ is (test/helpers/cli-build.ts): one per vitest run
 * (`ROSTER_TEST_RUN`, set in vitest.config.ts), so that two runs in one checkout do not share it.
 */
export function cliBuildDir(): string {
  const run = process.env.ROSTER_TEST_RUN;
  if (!run) throw new Error('ROSTER_TEST_RUN is not set: run the tests through vitest (vitest.config.ts)');
  return path.join(ROOT, `.test-build-${run}`);
}
