/**
 * Reading and running the steps of the workflow `roster init` writes (templates/workflow.yml) and of the
 * Action (action.yml), outside GitHub: `run` scripts in bash with the step's `env` (its `${{ }}`
 * expressions evaluated from a given context), `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` as files, and
 * the `github-script` comment script with a GitHub stand-in that keeps comments in memory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../helpers/cli.js';

export const WORKFLOW_TEMPLATE = path.join(ROOT, 'templates/workflow.yml');
export const ACTION_FILE = path.join(ROOT, 'action.yml');

export interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}

export const readYaml = (file: string) => parse(readFileSync(file, 'utf8'));
export const workflow = () =>
  readYaml(WORKFLOW_TEMPLATE) as {
    on: any;
    permissions: any;
    env?: unknown;
    jobs: Record<string, { steps: Step[]; env?: unknown; if?: string; concurrency?: unknown }>;
  };
export const action = () =>
  readYaml(ACTION_FILE) as {
    inputs: Record<string, { default?: string; required?: boolean; description: string }>;
    outputs: Record<string, { value: string }>;
    runs: { using: string; steps: Step[] };
  };

export function stepNamed(steps: Step[], name: string): Step {
  const step = steps.find((s) => s.name === name);
  if (!step) throw new Error(`no step named ${name}: ${steps.map((s) => s.name).join(', ')}`);
  return step;
}

/** Every `${{ ... }}` expression in a string. */
export function expressions(text: string): string[] {
  return [...text.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)].map((m) => m[1]);
}

/**
 * Evaluates the step's `env` values: each `${{ a.b.c }}` is a lookup in `context` (a path of property
 * names). Anything else in an expression is refused: the steps keep their expressions that simple.
 */
export function stepEnv(step: Step, context: Record<string, unknown>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(step.env ?? {})) {
    env[key] = String(value).replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
      if (!/^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/.test(expr))
        throw new Error(`expression too complex for this harness: ${expr}`);
      let v: unknown = context;
      for (const part of expr.split('.')) v = (v as Record<string, unknown> | undefined)?.[part];
      return v === undefined || v === null ? '' : String(v);
    });
  }
  return env;
}

export interface StepRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Runs a `run` script as GitHub's bash shell does (`bash -e -o pipefail`), in `cwd`. */
export async function runStep(
  step: Step,
  options: { cwd: string; env: Record<string, string>; runnerTemp?: string; timeoutMs?: number },
): Promise<StepRun> {
  if (step.run === undefined) throw new Error(`step ${step.name} has no run script`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-step-'));
  const files = {
    GITHUB_OUTPUT: path.join(dir, 'output'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
    RUNNER_TEMP: options.runnerTemp ?? dir,
  };
  writeFileSync(files.GITHUB_OUTPUT, '');
  writeFileSync(files.GITHUB_STEP_SUMMARY, '');
  const script = path.join(dir, 'step.sh');
  writeFileSync(script, step.run);
  try {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd: options.cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          CI: 'true',
          GITHUB_ACTIONS: 'true',
          NO_COLOR: '1',
          ...files,
          ...options.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
    const outputs = Object.fromEntries(
      readFileSync(files.GITHUB_OUTPUT, 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    return { ...result, outputs, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the runner shows of a step's output: workflow commands such as `::add-mask::` are consumed, not printed. */
export function shownLog(run: Pick<StepRun, 'stdout' | 'stderr'>): string {
  return `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
}

export interface Comment {
  id: number;
  body: string;
}

/** A pull request's comments, and the part of the Octokit client the comment script uses. */
export function fakeGitHub(initial: Comment[] = [], pulls: { number: number; merged_at: string | null }[] = []) {
  const comments = [...initial];
  const calls: string[] = [];
  let next = 1000;
  const github = {
    paginate: async (fn: (p: unknown) => Promise<{ data: Comment[] }>, params: unknown) => (await fn(params)).data,
    rest: {
      repos: {
        listPullRequestsAssociatedWithCommit: async (p: { commit_sha: string }) => {
          calls.push(`pulls of ${p.commit_sha}`);
          return { data: pulls.map((x) => ({ ...x })) };
        },
      },
      issues: {
        listComments: async (p: { issue_number: number }) => {
          calls.push(`list ${p.issue_number}`);
          return { data: comments.map((c) => ({ ...c })) };
        },
        createComment: async (p: { issue_number: number; body: string }) => {
          calls.push(`create ${p.issue_number}`);
          comments.push({ id: next++, body: p.body });
        },
        updateComment: async (p: { comment_id: number; body: string }) => {
          calls.push(`update ${p.comment_id}`);
          const c = comments.find((x) => x.id === p.comment_id);
          if (!c) throw new Error(`no comment ${p.comment_id}`);
          c.body = p.body;
        },
      },
    },
  };
  return { github, comments, calls };
}

/** Runs a `github-script` script as actions/github-script does: the body of an async function. */
export async function runGitHubScript(
  script: string,
  options: {
    env: Record<string, string>;
    github: unknown;
    issue?: number;
    sha?: string;
    outputs?: Record<string, string>;
  },
): Promise<string[]> {
  const warnings: string[] = [];
  const context = {
    repo: { owner: 'o', repo: 'r' },
    issue: { owner: 'o', repo: 'r', number: options.issue ?? 7 },
    sha: options.sha ?? 'c0ffee',
  };
  const core = {
    warning: (m: string) => warnings.push(m),
    setOutput: (k: string, v: string) => void (options.outputs && (options.outputs[k] = v)),
  };
  const { createRequire } = await import('node:module');
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...a: unknown[]) => Promise<unknown>;
  const saved = { ...process.env };
  Object.assign(process.env, options.env);
  try {
    await new AsyncFunction('github', 'context', 'core', 'require', script)(
      options.github,
      context,
      core,
      createRequire(import.meta.url),
    );
  } finally {
    for (const key of Object.keys(options.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
  return warnings;
}
