/**
 * The workflow `roster init` writes, docs/ci.md and the Action describe one thing: the same steps, the
 * same comment script, the same exit codes. The steps' scripts run end to end in test/package/pack.test.ts
 * against an installed package; here, their shape and the comment script's behaviour.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import {
  action,
  expressions,
  fakeGitHub,
  runGitHubScript,
  runStep,
  stepEnv,
  stepNamed,
  WORKFLOW_TEMPLATE,
  workflow,
  type Step,
} from './ci-steps.js';

const DOCS = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
const MARKER = '<!-- roster-plan -->';

describe('the workflow roster init writes', () => {
  it('is the one docs/ci.md shows, character for character', () => {
    const section = DOCS.slice(DOCS.indexOf('## The workflow'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(WORKFLOW_TEMPLATE, 'utf8'));
  });

  it('is valid YAML with exactly the steps docs/ci.md names, in order', () => {
    const documented = [...DOCS.matchAll(/^\| (plan|apply|expire|drift) \| `([^`]+)` \|/gm)].map(
      (m) => `${m[1]}:${m[2]}`,
    );
    const wf = workflow();
    const actual = Object.entries(wf.jobs).flatMap(([job, j]) => j.steps.map((s) => `${job}:${s.name}`));
    expect(documented.length).toBeGreaterThan(0);
    expect(actual).toEqual(documented);
    expect(wf.on.pull_request.paths).toContain('roster/**');
    expect(wf.on.push.branches).toEqual(['main']);
    expect(wf.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(wf.jobs.apply.concurrency).toBe('roster-apply');
    // The schedules run the expire job (every 15 minutes) and the drift job (once a day), never beside an apply.
    expect(wf.on.schedule).toEqual([{ cron: '*/15 * * * *' }, { cron: '17 5 * * *' }]);
    expect(wf.jobs.expire.if).toBe("github.event_name == 'schedule'");
    expect(wf.jobs.expire.concurrency).toBe('roster-apply');
    expect(stepNamed(wf.jobs.expire.steps, 'expire').run).toContain('npx --no roster requests expire roster/');
    for (const job of ['plan', 'apply']) expect(wf.jobs[job].if).not.toContain('schedule');
  });

  it('gives the key to the plan and apply steps only, and runs Roster with npx --no', () => {
    const wf = workflow();
    expect(wf.env).toBeUndefined();
    for (const [job, j] of Object.entries(wf.jobs)) {
      expect(j.env, job).toBeUndefined();
      for (const step of j.steps) {
        const usesKey = JSON.stringify(step).includes('secrets.ROSTER_API_KEY');
        expect(usesKey, `${job}:${step.name}`).toBe(
          step.name === 'plan' || step.name === 'apply' || step.name === 'expire' || step.name === 'drift',
        );
        if (step.run?.includes('roster ')) expect(step.run).not.toMatch(/npx (?!--no )roster/);
      }
    }
  });

  it('fails the job on every plan exit code but 0 and 2, after the comment', () => {
    const plan = workflow().jobs.plan.steps;
    expect(stepNamed(plan, 'result').if).toBe(
      "steps.plan.outputs.exitcode != '0' && steps.plan.outputs.exitcode != '2'",
    );
    expect(plan.map((s) => s.name).indexOf('comment')).toBeLessThan(plan.map((s) => s.name).indexOf('result'));
  });
});

describe('the Action (action.yml)', () => {
  const a = action();
  const steps = a.runs.steps;

  it('is a composite action with the inputs and outputs docs/ci.md lists', () => {
    expect(a.runs.using).toBe('composite');
    const table = (from: string, to?: string) =>
      [
        ...DOCS.slice(DOCS.indexOf(from), to ? DOCS.indexOf(to) : undefined).matchAll(
          /^\| `([^`]+)`(?:, `([^`]+)`)? \|/gm,
        ),
      ]
        .flatMap((m) => [m[1], m[2]])
        .filter(Boolean)
        .sort();
    expect(Object.keys(a.inputs).sort()).toEqual(table('| input |', '| output |'));
    expect(Object.keys(a.outputs).sort()).toEqual(table('| output |', '## Install scripts'));
    expect(Object.keys(a.outputs)).toEqual(expect.arrayContaining(['exitcode', 'has-changes']));
    expect(a.inputs.command.default).toBe('plan');
    expect(a.inputs.config.default).toBe('roster/');
    // command: expire runs the scheduled revocation, with the same config and options.
    expect(stepNamed(steps, 'run').run).toMatch(
      /\n {0,}expire\)\n\s+set \+e\n\s+node "\$ROSTER_BIN" requests expire "\$\{config\[@\]\}" \$\{options\[@\]\+"\$\{options\[@\]\}"\}\n/,
    );
  });

  it('refers only to declared inputs and step ids; its scripts read inputs from env, never ${{ }}', () => {
    const ids = new Set(steps.map((s) => s.id).filter(Boolean));
    const all = [
      ...Object.values(a.outputs).map((o) => o.value),
      ...Object.values(a.inputs).map((i) => String(i.default ?? '')),
      ...steps.flatMap((s) => [
        s.if ?? '',
        s['working-directory'] ?? '',
        ...Object.values(s.env ?? {}),
        ...Object.values(s.with ?? {}),
      ]),
    ];
    for (const text of all) {
      for (const expr of [...expressions(text), text]) {
        for (const m of expr.matchAll(/\binputs\.([\w-]+)/g)) expect(a.inputs, m[0]).toHaveProperty([m[1]]);
        for (const m of expr.matchAll(/\bsteps\.([\w-]+)\.outputs/g)) expect(ids.has(m[1]), m[0]).toBe(true);
      }
    }
    for (const step of steps.filter((s) => s.run !== undefined)) {
      expect(step.shell, step.name).toBe('bash');
      expect(expressions(step.run!), step.name).toEqual([]);
    }
  });

  it("runs the workflow's comment script, unchanged, and the same plan exit codes", () => {
    const workflowScript = stepNamed(workflow().jobs.plan.steps, 'comment').with!.script;
    expect(stepNamed(steps, 'comment').with!.script).toBe(workflowScript);
    const run = stepNamed(steps, 'run').run!;
    expect(run).toContain('--format markdown --detailed-exitcode');
    expect(run).toContain('if [ "$code" != 0 ] && [ "$code" != 2 ] && [ ! -s "$plan_file" ]; then exit "$code"; fi');
    expect(stepNamed(steps, 'result').if).toBe(
      "inputs.command == 'plan' && steps.run.outputs.exitcode != '0' && steps.run.outputs.exitcode != '2'",
    );
  });
});

describe('the comment script', () => {
  const script = stepNamed(workflow().jobs.plan.steps, 'comment').with!.script;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-comment-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const planFile = (text: string) => {
    const file = path.join(dir, `plan-${Math.random().toString(36).slice(2)}.md`);
    writeFileSync(file, text);
    return file;
  };

  it('creates the comment, then updates the same one on the next push, leaving others alone', async () => {
    const gh = fakeGitHub([{ id: 1, body: 'LGTM' }]);
    await runGitHubScript(script, {
      env: { ROSTER_PLAN_FILE: planFile(`${MARKER}\n## Plan\n+ tenant:acme\n`) },
      github: gh.github,
    });
    expect(gh.calls).toEqual(['list 7', 'create 7']);
    const created = gh.comments.find((c) => c.body.startsWith(MARKER))!;
    await runGitHubScript(script, {
      env: { ROSTER_PLAN_FILE: planFile(`${MARKER}\nNo changes.\n`) },
      github: gh.github,
    });
    expect(gh.calls.slice(2)).toEqual(['list 7', `update ${created.id}`]);
    expect(gh.comments).toEqual([
      { id: 1, body: 'LGTM' },
      { id: created.id, body: `${MARKER}\nNo changes.\n` },
    ]);
  });

  it('comments nothing for an empty plan file, with a warning', async () => {
    const gh = fakeGitHub();
    const warnings = await runGitHubScript(script, { env: { ROSTER_PLAN_FILE: planFile('') }, github: gh.github });
    expect(gh.calls).toEqual([]);
    expect(warnings[0]).toMatch(/is empty: no plan to comment/);
  });

  it('cuts a plan longer than a comment allows at a line, keeping the marker', async () => {
    const gh = fakeGitHub();
    const lines = Array.from({ length: 3000 }, (_, i) => `+ user:user-${String(i).padStart(5, '0')} in tenant acme`);
    await runGitHubScript(script, {
      env: { ROSTER_PLAN_FILE: planFile(`${MARKER}\n${lines.join('\n')}\n`) },
      github: gh.github,
    });
    const body = gh.comments[0].body;
    expect(body.length).toBeLessThanOrEqual(65536);
    expect(body.startsWith(MARKER)).toBe(true);
    expect(body).toMatch(
      /\+ user:user-\d{5} in tenant acme\n\n_The plan is longer than a comment allows: the whole plan is in the job summary._\n$/,
    );
  });
});

// Names are what docs/ci.md and the checks above refer to.
it('names every step of the workflow and of the Action', () => {
  const named = (list: Step[]) => list.every((s) => typeof s.name === 'string' && s.name.length > 0);
  expect(Object.values(workflow().jobs).every((j) => named(j.steps))).toBe(true);
  expect(named(action().runs.steps)).toBe(true);
});

describe('the reviewed checksum beside the applied one (issue #31)', () => {
  const reviewed = stepNamed(workflow().jobs.apply.steps, 'reviewed').with!.script!;
  const comment = (marker: string, checksum: string) =>
    `${marker}\n### Roster plan\n\n<sub>checksum \`${checksum}\`</sub>\n`;

  it("reads the checksum of the merged pull request's plan comment (its environment's, with ROSTER_ENVIRONMENT)", async () => {
    const gh = fakeGitHub(
      [
        { id: 1, body: 'a review comment' },
        { id: 2, body: comment('<!-- roster-plan:prod -->', 'bbbb') },
        { id: 3, body: comment('<!-- roster-plan -->', 'a1b2c3') },
      ],
      [
        { number: 9, merged_at: null },
        { number: 7, merged_at: '2026-01-01T00:00:00Z' },
      ],
    );
    const outputs: Record<string, string> = {};
    await runGitHubScript(reviewed, { env: {}, github: gh.github, sha: 'abc123', outputs });
    expect(outputs).toEqual({ checksum: 'a1b2c3', 'pull-request': '7' });
    expect(gh.calls).toEqual(['pulls of abc123', 'list 7']);
    const prod: Record<string, string> = {};
    await runGitHubScript(reviewed, { env: { ROSTER_ENVIRONMENT: 'prod' }, github: gh.github, outputs: prod });
    expect(prod.checksum).toBe('bbbb');
  });

  it('a direct push (no pull request) or a pull request without a plan comment: empty outputs, no failure', async () => {
    const none: Record<string, string> = {};
    await runGitHubScript(reviewed, { env: {}, github: fakeGitHub([], []).github, outputs: none });
    expect(none).toEqual({ checksum: '', 'pull-request': '' });
    const bare: Record<string, string> = {};
    await runGitHubScript(reviewed, {
      env: {},
      github: fakeGitHub([{ id: 1, body: 'lgtm' }], [{ number: 3, merged_at: 'x' }]).github,
      outputs: bare,
    });
    expect(bare).toEqual({ checksum: '', 'pull-request': '3' });
  });

  it("the apply step prints both checksums, warns when they differ, and keeps apply's exit code", async () => {
    const apply = stepNamed(workflow().jobs.apply.steps, 'apply');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-reviewed-'));
    try {
      // A stand-in for `npx`: prints a plan ending in its checksum, exits as told.
      mkdirSync(path.join(dir, 'bin'));
      writeFileSync(
        path.join(dir, 'bin/npx'),
        '#!/bin/sh\nprintf "Plan for p/e\\n  + user:ada\\nchecksum 0a0a\\n"\nexit "${FAKE_EXIT:-0}"\n',
        { mode: 0o755 },
      );
      const env = (extra: Record<string, string>) => ({
        ...stepEnv(apply, {
          vars: { ROSTER_API_URL: 'http://127.0.0.1:1' },
          secrets: { ROSTER_API_KEY: 'k' },
          steps: { reviewed: { outputs: extra } },
        }),
        PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
      });
      const same = await runStep(apply, { cwd: dir, env: env({ checksum: '0a0a', 'pull-request': '7' }) });
      expect(same.code, same.stderr).toBe(0);
      expect(same.stdout).toContain(
        'checksum reviewed (pull request #7, its plan comment): 0a0a\nchecksum applied: 0a0a\n',
      );
      expect(same.stdout).not.toContain('::warning::');
      const moved = await runStep(apply, {
        cwd: dir,
        env: { ...env({ checksum: 'ffff', 'pull-request': '7' }), FAKE_EXIT: '1' },
      });
      expect(moved.code).toBe(1);
      expect(moved.stdout).toContain(
        '::warning::the plan applied (checksum 0a0a) is not the one reviewed on pull request #7 (checksum ffff)',
      );
      const direct = await runStep(apply, { cwd: dir, env: env({}) });
      expect(direct.stdout).toContain('checksum reviewed (pull request #?, its plan comment): none found');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
