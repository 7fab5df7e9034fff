import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

/** Without --api-url, plan and apply use the embedded default over ROSTER_DATA_DIR. */
// Spawned CLIs and a busy machine: a test may take well over the default 30 s.
describe('the embedded default', { timeout: 120_000 }, () => {
  const data = mkdtempSync(path.join(os.tmpdir(), 'roster-embedded-'));
  const env = {
    ROSTER_DATA_DIR: data,
    ROSTER_API_URL: undefined,
    ROSTER_API_KEY: undefined,
    ROSTER_PROJECT: undefined,
    ROSTER_ENV: undefined,
  };
  const example = path.join(ROOT, 'examples/getting-started/roster.yaml');
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it('plans the getting-started example, applies it, and then has nothing to plan', async () => {
    const plan = await runCli(['plan', example], { cwd: data, env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan for default/default');
    expect(plan.stdout).toContain('19 to create, 0 to update, 0 to delete.');
    const apply = await runCli(['apply', '--yes', example], { cwd: data, env });
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Applied 19 of 19 changes');
    // The decision check names the embedded service as the plan's header does, not by its random port (issue #41).
    expect(apply.stdout).toContain(
      'Decisions: the decision point agrees with the plan on 5 changed decisions (1 request to the embedded service).',
    );
    expect(apply.stdout).not.toMatch(/127\.0\.0\.1:\d+/);
    const again = await runCli(['plan', '--detailed-exitcode', example], { cwd: data, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes.');
    // Nothing to change: `--format json` still writes the outcome (issue #41); the plan is on stderr.
    const json = await runCli(['apply', '--yes', '--format', 'json', example], { cwd: data, env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      total: 0,
      seconds: 0,
      applied: [],
      alreadyThere: [],
      failed: [],
      skipped: [],
    });
    expect(json.stderr).toContain('No changes.');
  });

  it("a data directory that cannot be used is reported as the user's to fix, with its path", async () => {
    const file = path.join(data, 'not-a-directory');
    writeFileSync(file, '');
    const plan = await runCli(['plan', example], {
      cwd: data,
      env: { ...env, ROSTER_DATA_DIR: path.join(file, 'sub') },
    });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `cannot use the embedded service's data directory ${path.join(file, 'sub')} (--data or ROSTER_DATA_DIR): ENOTDIR`,
    );
    expect(plan.stderr).not.toContain('internal error');
  });
});
