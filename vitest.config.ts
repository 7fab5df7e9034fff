import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Server tests each start their own server on port 0 with a temp dir; files can run in parallel.
    pool: 'forks',
  },
});
