import { configDefaults, defineConfig } from 'vitest/config';
import pg from 'pg';

/**
 * Two projects. `sqlite`: every test, the service on SQLite. `postgres`: the over-HTTP service suites
 * (test/server, test/access-requests) again with ROSTER_TEST_STORE=postgres (each server in a fresh
 * schema; see test/helpers/server.ts), plus the cross-process tests in test/postgres. The PostgreSQL
 * project exists only when PostgreSQL answers at ROSTER_TEST_DATABASE_URL; otherwise it is left out
 * with a printed reason, so `npm test` passes everywhere. `.ci/run` makes sure it answers in CI.
 * One store only: `vitest run --project sqlite` or `--project postgres`.
 */
const PG_URL = process.env.ROSTER_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SERVICE_SUITES = ['test/server/**/*.test.ts', 'test/access-requests/**/*.test.ts'];

async function postgresUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

export default defineConfig(async () => {
  // vitest may evaluate this file more than once per run: probe and print once.
  const probed = process.env.ROSTER_TEST_PG_PROBE;
  const reason = probed !== undefined ? probed || undefined : await postgresUnreachable();
  const first = probed === undefined;
  process.env.ROSTER_TEST_PG_PROBE = reason ?? '';
  // Names this run's schemas (inherited by the workers), so that the teardown drops exactly those.
  process.env.ROSTER_TEST_RUN ??= Math.random().toString(36).slice(2, 10);
  if (reason && first) {
    const shown = PG_URL.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
    process.stderr.write(
      `\nPostgreSQL not reachable at ${shown} (${reason}): skipping the PostgreSQL run of the service suite\n\n`,
    );
  }
  return {
    test: {
      // Far from what a test needs on a quiet machine (the slowest take 5-10 s there), so that a loaded one
      // (the suite beside `npm run bench`, load 8 and more on 2 cores) does not fail them: test/README.md, "Deadlines".
      testTimeout: 120_000,
      hookTimeout: 180_000,
      // The CLI the tests spawn, built from src/ once per run (test/helpers/cli-build.ts).
      globalSetup: ['test/helpers/cli-build.ts'],
      // Server tests each start their own server on port 0 with a temp dir (or a fresh PostgreSQL
      // schema); files can run in parallel.
      pool: 'forks',
      // A worker runs its files one after the other in one module graph, imported once, instead of a fresh
      // process per file: the whole suite's CPU time 1,790 -> 1,190 s (test/README.md, "Where the time goes").
      // Each file still starts its own servers and temp dirs; no test leans on a module's state left by another.
      isolate: false,
      // vitest's default is one worker fewer than the cores: on the 2-core machines, one test file at a time
      // (the profile of test/README.md, "Where the time goes"). Most files wait on servers and child
      // processes: three run side by side (2: 506 s, 3: 418 s for the whole suite on 2 cores).
      maxWorkers: 3,
      projects: [
        {
          extends: true,
          test: {
            name: 'sqlite',
            include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
            exclude: [...configDefaults.exclude, 'test/postgres/**'],
          },
        },
        ...(reason
          ? []
          : [
              {
                extends: true,
                test: {
                  name: 'postgres',
                  include: [...SERVICE_SUITES, 'test/postgres/**/*.test.ts'],
                  globalSetup: ['test/postgres/global-setup.ts'],
                  env: { ROSTER_TEST_STORE: 'postgres', ROSTER_TEST_DATABASE_URL: PG_URL },
                  // Each statement is a round trip to another process (about 0.5 ms on the CI machines,
                  // against microseconds in SQLite): the 10,000-member tests need longer.
                  testTimeout: 180_000,
                },
              },
            ]),
      ],
    },
  };
});
