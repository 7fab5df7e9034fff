/**
 * The workflow `roster init --environments` writes (src/usecases/init/workflow-environments.ts) and the
 * Action's environment input: valid YAML, one plan job (and comment) and one apply job per environment,
 * each apply bound to its GitHub environment; the comment script keeping one comment per environment;
 * the step that finds the environments a change touches, run on a real git history.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { environmentsWorkflow } from '../../src/usecases/init/workflow-environments.js';
import { parseEnvironments } from '../../src/usecases/init/environments.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { action, fakeGitHub, runGitHubScript, runStep, stepEnv, stepNamed, workflow, type Step } from './ci-steps.js';

const DOCS = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
type Job = {
  steps: Step[];
  needs?: string;
  if?: string;
  environment?: string;
  concurrency?: unknown;
  outputs?: Record<string, string>;
};
const envWorkflow = (envs: string[]) =>
  parse(environmentsWorkflow(envs)) as { on: any; permissions: unknown; jobs: Record<string, Job> };
const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-ci-envs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the workflow roster init --environments writes', () => {
  it('is the one docs/ci.md shows for dev, staging and prod, character for character', () => {
    const section = DOCS.slice(DOCS.indexOf('## Several environments'));
    expect(/```yaml\n([\s\S]*?)```/.exec(section)?.[1]).toBe(environmentsWorkflow(['dev', 'staging', 'prod']));
  });

  it('is valid YAML: a job finding the touched environments, then per environment a plan job and an apply job bound to its GitHub environment', () => {
    const wf = envWorkflow(['dev', 'staging', 'prod']);
    expect(Object.keys(wf.jobs)).toEqual([
      'changes',
      'plan-dev',
      'plan-staging',
      'plan-prod',
      'apply-dev',
      'apply-staging',
      'apply-prod',
      'expire-dev',
      'expire-staging',
      'expire-prod',
      'drift-dev',
      'drift-staging',
      'drift-prod',
    ]);
    expect(wf.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(wf.on.push.branches).toEqual(['main']);
    // The same schedule as the one-environment workflow: grant_for enforced in every environment.
    expect(wf.on.schedule).toEqual(workflow().on.schedule);
    expect(wf.jobs.changes.if).toBe("github.event_name != 'schedule'");
    for (const env of ['dev', 'staging', 'prod']) {
      const plan = wf.jobs[`plan-${env}`];
      const apply = wf.jobs[`apply-${env}`];
      expect(plan.needs).toBe('changes');
      expect(plan.if).toBe(
        `github.event_name == 'pull_request' && contains(fromJSON(needs.changes.outputs.environments), '${env}')`,
      );
      expect(plan.environment).toBeUndefined(); // a plan needs no approval
      expect(stepNamed(plan.steps, 'validate').run).toBe(
        `npx --no roster validate roster/ --env ${env} --format github`,
      );
      expect(stepNamed(plan.steps, 'plan').run).toContain(
        `npx --no roster plan roster/ --env ${env} --format markdown --detailed-exitcode \${replay[@]+"\${replay[@]}"} > plan.md`,
      );
      expect(stepNamed(plan.steps, 'comment').env).toEqual({ ROSTER_PLAN_FILE: 'plan.md', ROSTER_ENVIRONMENT: env });
      expect(apply.environment).toBe(env);
      expect(apply.if).toBe(
        `github.event_name == 'push' && contains(fromJSON(needs.changes.outputs.environments), '${env}')`,
      );
      expect(apply.concurrency).toBe(`roster-apply-${env}`);
      expect(stepNamed(apply.steps, 'apply').run).toContain(`npx --no roster apply roster/ --env ${env} --yes`);
      const expire = wf.jobs[`expire-${env}`];
      expect(expire.if).toBe("github.event_name == 'schedule'");
      expect(expire.needs).toBeUndefined();
      expect(expire.environment).toBe(env);
      expect(expire.concurrency).toBe(`roster-apply-${env}`); // never beside the environment's apply
      expect(stepNamed(expire.steps, 'expire').run).toContain(`npx --no roster requests expire roster/ --env ${env}`);
      // The drift job: the one-environment workflow's, with --env, its own issue and its own cache key.
      const drift = wf.jobs[`drift-${env}`];
      expect(drift.if).toBe(workflow().jobs.drift.if);
      expect(drift.environment).toBe(env);
      expect(drift.concurrency).toBe(`roster-apply-${env}`);
      expect(stepNamed(drift.steps, 'drift').run).toContain(
        `npx --no roster drift roster/ --env ${env} --format markdown --detailed-exitcode > drift.md`,
      );
      expect(stepNamed(drift.steps, 'keep snapshot').with).toEqual({
        path: '.roster/snapshots',
        key: `roster-snapshot-${env}-\${{ github.run_id }}`,
      });
      const issue = stepNamed(drift.steps, 'issue');
      expect(issue.env).toMatchObject({ ROSTER_DRIFT_FILE: 'drift.md', ROSTER_ENVIRONMENT: env });
      expect(issue.with!.script).toBe(stepNamed(workflow().jobs.drift.steps, 'issue').with!.script);
    }
  });

  it('names one comment per environment, with the comment script of the one-environment workflow, unchanged', () => {
    const wf = envWorkflow(['staging', 'prod']);
    const script = stepNamed(workflow().jobs.plan.steps, 'comment').with!.script;
    expect(stepNamed(wf.jobs['plan-staging'].steps, 'comment').with!.script).toBe(script);
    expect(stepNamed(wf.jobs['plan-prod'].steps, 'comment').with!.script).toBe(script);
  });

  it('gives the key to the plan and apply steps only', () => {
    for (const [job, j] of Object.entries(envWorkflow(['staging', 'prod']).jobs)) {
      for (const step of j.steps) {
        expect(JSON.stringify(step).includes('secrets.ROSTER_API_KEY'), `${job}:${step.name}`).toBe(
          ['plan', 'apply', 'expire', 'drift'].includes(step.name ?? ''),
        );
      }
    }
  });

  it('refuses environment names that cannot be a folder and a job', () => {
    expect(parseEnvironments(' dev, staging ,prod')).toEqual(['dev', 'staging', 'prod']);
    expect(() => parseEnvironments('dev,dev')).toThrow('--environments names dev twice');
    expect(() => parseEnvironments('dev,pro d')).toThrow(/"pro d" cannot name an environment folder/);
    expect(() => parseEnvironments(',')).toThrow(/needs at least one environment/);
  });

  it('is what roster init --environments writes', async () => {
    const dir = path.join(tmp, 'init');
    const r = await runCli(['init', '--environments', 'staging,prod', dir], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, '.github/workflows/roster.yml'), 'utf8')).toBe(
      environmentsWorkflow(['staging', 'prod']),
    );
    expect(r.stdout).toContain('Settings > Environments: create staging, prod');
  }, 60_000);
});

describe('the comment script, with several environments', () => {
  const script = stepNamed(workflow().jobs.plan.steps, 'comment').with!.script;
  let n = 0;
  const planFile = (text: string) => {
    const file = path.join(tmp, `plan-${++n}.md`);
    writeFileSync(file, text);
    return file;
  };

  it('keeps one comment per environment, each updated in place, the marker naming the environment', async () => {
    const gh = fakeGitHub([{ id: 1, body: '<!-- roster-plan -->\nan older one-environment plan' }]);
    const run = (env: string, text: string) =>
      runGitHubScript(script, {
        env: { ROSTER_PLAN_FILE: planFile(`<!-- roster-plan -->\n${text}`), ROSTER_ENVIRONMENT: env },
        github: gh.github,
      });
    await run('staging', '+ user:erin');
    await run('prod', 'No changes.');
    await run('staging', '+ user:erin\n+ user:finn');
    expect(gh.calls).toEqual(['list 7', 'create 7', 'list 7', 'create 7', 'list 7', 'update 1000']);
    expect(gh.comments).toEqual([
      { id: 1, body: '<!-- roster-plan -->\nan older one-environment plan' },
      { id: 1000, body: '<!-- roster-plan:staging -->\n+ user:erin\n+ user:finn' },
      { id: 1001, body: '<!-- roster-plan:prod -->\nNo changes.' },
    ]);
  });
});

describe('the step finding the environments a change touches', () => {
  const changes = stepNamed(envWorkflow(['staging', 'prod']).jobs.changes.steps, 'changes');
  const repo = path.join(tmp, 'repo');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t',
      },
    }).trim();
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    writeFileSync(path.join(repo, rel), text);
  };
  const commit = (files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) write(rel, text);
    git('add', '-A');
    git('commit', '-qm', 'change');
    return git('rev-parse', 'HEAD');
  };
  const touched = async (context: Record<string, unknown>) => {
    const r = await runStep(changes, { cwd: repo, env: stepEnv(changes, context) });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.outputs.environments) as string[];
  };

  it('a pull request: its environment folders touch those; shared/ or package.json touch all; other paths none', async () => {
    mkdirSync(repo, { recursive: true });
    git('init', '-q');
    const base = commit({
      'roster/shared/roster.yaml': 'a',
      'roster/envs/staging/roster.yaml': 'a',
      'roster/envs/prod/roster.yaml': 'a',
      'README.md': 'a',
      'package.json': '{}',
    });
    const pr = (sha: string) => ({ github: { event: { pull_request: { base: { sha } } } } });
    commit({ 'roster/envs/prod/roster.yaml': 'b' });
    expect(await touched(pr(base))).toEqual(['prod']);
    commit({ 'README.md': 'b' });
    expect(await touched(pr(base))).toEqual(['prod']);
    const second = git('rev-parse', 'HEAD');
    commit({ 'README.md': 'c' });
    expect(await touched(pr(second))).toEqual([]);
    commit({ 'roster/shared/roster.yaml': 'b' });
    expect(await touched(pr(second))).toEqual(['staging', 'prod']);
    const third = git('rev-parse', 'HEAD');
    commit({ 'package.json': '{"x":1}' });
    expect(await touched(pr(third))).toEqual(['staging', 'prod']);
  });

  it('a push: from the commit before it; a first push (no such commit) touches every environment', async () => {
    const before = git('rev-parse', 'HEAD');
    commit({ 'roster/envs/staging/roster.yaml': 'b' });
    expect(await touched({ github: { event: { before } } })).toEqual(['staging']);
    expect(await touched({ github: { event: { before: '0000000000000000000000000000000000000000' } } })).toEqual([
      'staging',
      'prod',
    ]);
  });
});

describe('the Action with an environment', () => {
  const a = action();
  const run = stepNamed(a.runs.steps, 'run');

  it('takes the environment as an input: --env for validate, plan and apply, and the comment marker', () => {
    expect(a.inputs.environment.default).toBe('');
    expect(run.env!.ROSTER_ENVIRONMENT).toBe('${{ inputs.environment }}');
    for (const command of ['validate', 'plan', 'apply'])
      expect(run.run).toMatch(
        new RegExp(
          `"\\$ROSTER_BIN" ${command} "\\$\\{config\\[@\\]\\}" \\$\\{envflag\\[@\\]\\+"\\$\\{envflag\\[@\\]\\}"\\}`,
        ),
      );
    expect(stepNamed(a.runs.steps, 'comment').env!.ROSTER_ENVIRONMENT).toBe('${{ inputs.environment }}');
  });

  it('passes --env to the command when set, and nothing when not', async () => {
    const bin = path.join(tmp, 'fake-roster.js');
    writeFileSync(
      bin,
      'console.error(JSON.stringify(process.argv.slice(2)));\nif (process.argv[2] === "plan") console.log("<!-- roster-plan -->\\nNo changes.");\n',
    );
    const context = (environment: string) => ({
      steps: { install: { outputs: { bin } } },
      inputs: {
        command: 'plan',
        config: 'roster/',
        options: '',
        'api-url': 'http://127.0.0.1:1',
        'api-key': 'k',
        environment,
      },
    });
    const withEnv = await runStep(run, { cwd: tmp, env: stepEnv(run, context('prod')) });
    expect(withEnv.code, withEnv.stderr).toBe(0);
    expect(withEnv.stderr).toContain('["validate","roster/","--env","prod","--format","github"]');
    expect(withEnv.stderr).toContain('["plan","roster/","--env","prod","--format","markdown","--detailed-exitcode"]');
    expect(withEnv.outputs['plan-file']).toMatch(/roster-plan-prod\.md$/);
    const without = await runStep(run, { cwd: tmp, env: stepEnv(run, context('')) });
    expect(without.stderr).toContain('["plan","roster/","--format","markdown","--detailed-exitcode"]');
  });
});
