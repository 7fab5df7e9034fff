/**
 * `roster init --environments` writes the safety defaults of `roster init` (issue #31): `authoritative:`
 * in each environment's folder and a scheduled expire job per environment; its files name only the
 * environments the layout has; and on an existing layout it adds an environment (its folder and jobs)
 * instead of refusing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentsWorkflow } from '../../src/usecases/init/workflow-environments.js';
import { runCli } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-init-envs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const env = { ROSTER_API_URL: undefined, ROSTER_API_KEY: undefined, ROSTER_ENV: undefined, ROSTER_PROJECT: undefined };
const init = (dir: string, ...args: string[]) => runCli(['init', ...args, dir], { cwd: tmp, env });
const read = (dir: string, rel: string) => readFileSync(path.join(dir, rel), 'utf8');
const WORKFLOW = '.github/workflows/roster.yml';
const allText = (dir: string) =>
  (readdirSync(path.join(dir, 'roster'), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => read(dir, path.join('roster', f)))
    .join('\n');

describe('roster init --environments: the defaults of roster init', { timeout: 120_000 }, () => {
  it('each environment is authoritative, and has its scheduled expire job', async () => {
    const dir = path.join(tmp, 'defaults');
    const r = await init(dir, '--environments', 'dev,prod');
    expect(r.code, r.stderr).toBe(0);
    for (const e of ['dev', 'prod'])
      expect(read(dir, `roster/envs/${e}/roster.yaml`)).toMatch(/^authoritative: true$/m);
    expect(read(dir, 'roster/shared/roster.yaml')).not.toMatch(/^authoritative:/m);
    const wf = parse(read(dir, WORKFLOW)) as {
      on: { schedule?: unknown[] };
      jobs: Record<string, { steps: { name: string; run?: string }[] }>;
    };
    expect(wf.on.schedule).toHaveLength(2);
    for (const e of ['dev', 'prod']) {
      expect(wf.jobs[`expire-${e}`].steps.find((s) => s.name === 'expire')?.run).toContain(
        `npx --no roster requests expire roster/ --env ${e}`,
      );
    }
    // The layout validates as written, and each environment plans its deletions (authoritative).
    const validate = await runCli(['validate'], { cwd: dir, env });
    expect([validate.code, validate.stdout]).toEqual([0, 'configuration is valid\n']);
  });

  it('names only the environments the layout has', async () => {
    const one = path.join(tmp, 'only-dev');
    expect((await init(one, '--environments', 'dev')).code).toBe(0);
    expect(allText(one)).not.toMatch(/staging|prod/);
    expect(allText(one)).toContain('npx --no roster plan roster/ --env dev');
    expect(allText(one)).not.toContain('roster diff');
    const two = path.join(tmp, 'qa-live');
    expect((await init(two, '--environments', 'qa,live')).code).toBe(0);
    expect(allText(two)).not.toMatch(/staging|prod\b/);
    expect(read(two, 'roster/shared/roster.yaml')).toContain('npx --no roster diff qa live');
  });
});

describe('roster init --environments ENV on an existing layout', { timeout: 120_000 }, () => {
  it('adds the environment: its folder, and its jobs in the workflow; nothing else changes', async () => {
    const dir = path.join(tmp, 'add');
    expect((await init(dir, '--environments', 'dev,prod')).code).toBe(0);
    const shared = read(dir, 'roster/shared/roster.yaml');
    const dev = read(dir, 'roster/envs/dev/roster.yaml');
    const r = await init(dir, '--environments', 'staging');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/created\s+roster\/envs\/staging\/roster\.yaml/);
    expect(r.stdout).toMatch(/updated\s+\.github\/workflows\/roster\.yml\s+\+ the jobs of staging/);
    expect(r.stdout).toContain('plan roster/ --env staging');
    expect(read(dir, 'roster/envs/staging/roster.yaml')).toMatch(/^environment: staging$/m);
    expect(read(dir, 'roster/shared/roster.yaml')).toBe(shared);
    expect(read(dir, 'roster/envs/dev/roster.yaml')).toBe(dev);
    // The workflow was as init wrote it: written again, for the three.
    expect(read(dir, WORKFLOW)).toBe(environmentsWorkflow(['dev', 'prod', 'staging']));
    const validate = await runCli(['validate'], { cwd: dir, env });
    expect([validate.code, validate.stdout]).toEqual([0, 'configuration is valid\n']);
  });

  it('declares every variable the shared folder uses in the added folder, which validates as written', async () => {
    const dir = path.join(tmp, 'variables');
    expect((await init(dir, '--environments', 'dev,prod')).code).toBe(0);
    const file = (rel: string) => path.join(dir, 'roster', rel);
    // The shared folder uses two more variables (one in a file of its own); each environment gives them.
    writeFileSync(
      file('shared/roster.yaml'),
      read(dir, 'roster/shared/roster.yaml').replace('name: Document,', 'name: "Document (${region})",'),
    );
    writeFileSync(
      file('shared/access.yaml'),
      'access_requests:\n  default: { name: "Requests of ${team}", reviewer_roles: [editor] }\n',
    );
    writeFileSync(
      file('envs/dev/roster.yaml'),
      read(dir, 'roster/envs/dev/roster.yaml').replace(
        '  label: dev\n',
        '  label: dev\n  region: eu-west\n  team: "007"\n',
      ),
    );
    writeFileSync(
      file('envs/prod/roster.yaml'),
      read(dir, 'roster/envs/prod/roster.yaml').replace(
        '  label: prod\n',
        '  label: prod\n  region: us-east\n  team: core\n',
      ),
    );
    const before = await runCli(['validate'], { cwd: dir, env });
    expect([before.code, before.stdout + before.stderr]).toEqual([0, 'configuration is valid\n']);
    const r = await init(dir, '--environments', 'qa');
    expect(r.code, r.stderr).toBe(0);
    expect(read(dir, 'roster/envs/qa/roster.yaml')).toContain(
      [
        '# The values of the variables the shared folder uses (`${label}`, `${region}`, `${team}`).',
        'variables:',
        '  label: qa',
        "  region: eu-west # as in dev: set qa's value",
        `  team: "007" # as in dev: set qa's value`,
        '',
        '# Tenants',
      ].join('\n'),
    );
    const validate = await runCli(['validate'], { cwd: dir, env });
    expect([validate.code, validate.stdout + validate.stderr]).toEqual([0, 'configuration is valid\n']);
  });

  it('keeps the edits of an edited workflow, appending the jobs and listing the environment', async () => {
    const dir = path.join(tmp, 'edited');
    expect((await init(dir, '--environments', 'dev')).code).toBe(0);
    const edited = read(dir, WORKFLOW).replace('name: roster\n', 'name: roster # ours\n');
    writeFileSync(path.join(dir, WORKFLOW), edited);
    const r = await init(dir, '--environments', 'prod');
    expect(r.code, r.stderr).toBe(0);
    const text = read(dir, WORKFLOW);
    expect(text).toContain('name: roster # ours\n');
    expect(text).toMatch(/^ {10}ROSTER_ENVIRONMENTS: dev prod$/m);
    const wf = parse(text) as { jobs: Record<string, unknown> };
    expect(Object.keys(wf.jobs)).toEqual([
      'changes',
      'plan-dev',
      'apply-dev',
      'expire-dev',
      'drift-dev',
      'plan-prod',
      'apply-prod',
      'expire-prod',
      'drift-prod',
    ]);
    expect(wf.jobs['apply-prod']).toEqual(
      (parse(environmentsWorkflow(['prod'])) as { jobs: Record<string, unknown> }).jobs['apply-prod'],
    );
  });

  it('refuses, writing nothing, an environment the layout has, and a workflow it cannot extend', async () => {
    const dir = path.join(tmp, 'refuse');
    expect((await init(dir, '--environments', 'dev,prod')).code).toBe(0);
    const again = await init(dir, '--environments', 'prod,qa');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('roster/envs/ has prod already; nothing was written');
    writeFileSync(path.join(dir, WORKFLOW), 'name: mine\njobs:\n  x: { runs-on: ubuntu-latest, steps: [] }\n');
    const foreign = await init(dir, '--environments', 'qa');
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('has no ROSTER_ENVIRONMENTS list');
    expect(readdirSync(path.join(dir, 'roster/envs')).sort()).toEqual(['dev', 'prod']);
  });
});
