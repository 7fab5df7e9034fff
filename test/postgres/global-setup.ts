import pg from 'pg';

/**
 * The `postgres` project's global setup: at the end of the run, drops every schema this run created
 * (`roster_test_<run>_...`, see test/helpers/server.ts `freshSchema`), also those of servers a test
 * restarted on its own data directory or never closed. Other runs' schemas (parallel runs on the same
 * database) have another run id and are left alone.
 */
export default function setup() {
  return async function teardown() {
    const run = process.env.ROSTER_TEST_RUN;
    if (!run) return;
    const client = new pg.Client({
      connectionString: process.env.ROSTER_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
    });
    client.on('error', () => {});
    try {
      await client.connect();
      const { rows } = await client.query<{ nspname: string }>(
        `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`,
        [`roster_test_${run}_`],
      );
      for (const r of rows) await client.query(`DROP SCHEMA IF EXISTS ${r.nspname} CASCADE`);
    } catch {
      /* best effort */
    } finally {
      await client.end().catch(() => {});
    }
  };
}
