/**
 * `roster plan` and `apply` against a remote service: the snapshot under the data directory, the read
 * in the header, an out-of-band change seen by the next plan, `--refresh=full|incremental`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `version: 1
tenants:
  acme: { name: Acme }
users:
  alice: { email: alice@example.test, tenants: [acme] }
  bob: { email: bob@example.test, tenants: [acme] }
`;

describe('incremental plans from the CLI', { timeout: 120_000 }, () => {
  let server: TestServer;
  let dir: string;
  const roster = (...args: string[]) =>
    runCli([...args, '--api-url', server.url, '--project', 'p', '--env', 'e'], {
      cwd: dir,
      env: { ROSTER_API_KEY: ORG_KEY, ROSTER_DATA_DIR: path.join(dir, 'data') },
      timeoutMs: 60_000,
    });
  beforeAll(async () => {
    server = await startTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-incremental-cli-'));
    writeFileSync(path.join(dir, 'roster.yaml'), CONFIG);
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads in full first, then from the snapshot the apply kept, and sees a change made out of band', async () => {
    const first = await roster('plan', 'roster.yaml');
    expect(first.stdout).toContain('Read the live state in full (');
    expect(first.stdout).toContain('): no snapshot yet.');
    const applied = await roster('apply', 'roster.yaml', '--yes');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toMatch(/snapshot after the apply: Read the live state incrementally \(\d+ requests\)/);
    // The snapshot is two sealed files, its head and its lists: no e-mail in either.
    const files = readdirSync(path.join(dir, 'data', 'snapshots')).sort();
    expect(files.map((f) => path.extname(f))).toEqual(['.lists', '.snapshot']);
    for (const f of files)
      expect(readFileSync(path.join(dir, 'data', 'snapshots', f)).includes('alice@example.test')).toBe(false);
    const quiet = await roster('plan', 'roster.yaml', '--detailed-exitcode');
    expect(quiet.code).toBe(0);
    // 4 or 5: the minute before the plan holds the apply's writes unless they all fell in the plan's own second
    // (then no calls in flight are asked for); src/read/history.ts.
    expect(quiet.stdout).toMatch(
      /Read the live state incrementally \([45] requests\): .* 0 writes .*; nothing read again\./,
    );
    expect((await server.facts('PATCH', '/users/bob', { email: 'robert@example.test' })).status).toBe(200);
    const drift = await roster('plan', 'roster.yaml', '--detailed-exitcode', '--format', 'json');
    expect(drift.code).toBe(2);
    const plan = JSON.parse(drift.stdout);
    expect(plan.read).toMatchObject({ mode: 'incremental', calls: 1 });
    expect(plan.read.reread).toContain('users');
    expect(plan.changes.map((c: { id: string }) => c.id)).toEqual(['user:bob']);
  });

  it('an apply whose verification reads the whole environment keeps the snapshot from that read, not from a second one', async () => {
    rmSync(path.join(dir, 'data'), { recursive: true, force: true });
    writeFileSync(
      path.join(dir, 'full.yaml'),
      CONFIG.replace('bob: {', 'carol: { email: carol@example.test, tenants: [acme] }\n  bob: {'),
    );
    // A budget of 3 calls, fewer than the apply's writes: its read begins once they left the span of the
    // history the next plan lists again (src/read/live.ts), or that plan would read in full.
    const budget = ['--refresh-max-calls', '3'];
    const applied = await roster('apply', 'full.yaml', '--yes', '--verify', 'full', ...budget);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toMatch(
      /snapshot after the apply: from the verification's read: Read the live state in full \(\d+ requests\)\.$/m,
    );
    // That snapshot holds the writes: the next plan reads nothing again, and sees an out-of-band change.
    const quiet = await roster('plan', 'full.yaml', '--detailed-exitcode', ...budget);
    expect(quiet.code, quiet.stdout).toBe(0);
    expect(quiet.stdout).toMatch(
      /Read the live state incrementally \(\d+ requests\): .* 0 writes .*; nothing read again\./,
    );
    expect((await server.facts('PATCH', '/users/carol', { email: 'caroline@example.test' })).status).toBe(200);
    const drift = await roster('plan', 'full.yaml', '--detailed-exitcode', '--format', 'json');
    expect(drift.code).toBe(2);
    expect(JSON.parse(drift.stdout).changes.map((c: { id: string }) => c.id)).toEqual(['user:carol']);
  });

  it('--refresh=full reads everything; --refresh=incremental fails without a snapshot', async () => {
    const full = await roster('plan', 'roster.yaml', '--refresh=full');
    expect(full.stdout).toMatch(/^Read the live state in full \(\d+ requests\)\.$/m);
    rmSync(path.join(dir, 'data', 'snapshots'), { recursive: true });
    const strict = await roster('plan', 'roster.yaml', '--refresh=incremental');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(
      '--refresh=incremental: the live state cannot be read incrementally: no snapshot yet',
    );
    const wrong = await roster('plan', 'roster.yaml', '--refresh=sometimes');
    expect(wrong.stderr).toContain("--refresh must be one of auto, full, incremental, got 'sometimes'");
  });
});
