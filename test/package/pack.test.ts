/**
 * The path every user takes, end to end: pack Roster from a clean clone, install the tarball into an
 * empty project, `roster init`, then validate, apply (embedded default) and plan there; then the steps
 * of the workflow `roster init` wrote and of the Action, run as GitHub runs them, against the real
 * server. Slow (a build and an install): one clone, one pack, one install.
 *
 * Two shortcuts, both leaving what is tested as users meet it:
 * - The clone builds dist/ with the project's installed TypeScript (its node_modules linked in, installed
 *   from the same lock file): what is tested is what `npm pack` builds and ships, not installing tsc.
 * - better-sqlite3's install script runs as it does for users (npm approves it through allowScripts, then
 *   prebuild-install); its prebuilt binary comes from a local prebuild made of the project's own build
 *   of the same version (prebuild-install's `local-prebuilds`), instead of a download: the path GitHub's
 *   runners take, without compiling SQLite a second time (about 75 s here). When the fresh install
 *   resolves another version of better-sqlite3, there is no such file and it compiles from source.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { action, runStep, shownLog, stepEnv, stepNamed, workflow } from './ci-steps.js';

const MINUTES = 60_000;
const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'roster-pack-')));
const clone = path.join(tmp, 'clone');
const packDir = path.join(tmp, 'pack');
const project = path.join(tmp, 'project');

/** A clean environment for npm: nothing inherited from an outer `npm test` (its npm_* settings, its node_modules/.bin on PATH). */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v === undefined ||
      /^npm_/i.test(k) ||
      ['INIT_CWD', 'NODE_ENV', 'NODE_OPTIONS', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID'].includes(k)
    )
      continue;
    env[k] = v;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((p) => !p.includes(`node_modules${path.sep}.bin`))
    .join(path.delimiter);
  return {
    ...env,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    CI: 'true',
    NO_COLOR: '1',
    ...extra,
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  cmd: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 2 * MINUTES);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const ok = (r: Run) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
const roster = (args: string[], env?: Record<string, string>) =>
  run('npx', ['--no', 'roster', ...args], { cwd: project, env: cleanEnv(env) });

/** better-sqlite3's binary from the project's own install, as the prebuilt archive prebuild-install looks for. */
function localPrebuild(): string {
  const dir = path.join(tmp, 'prebuilds');
  mkdirSync(dir);
  const pkgDir = path.join(ROOT, 'node_modules/better-sqlite3');
  const version = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
  const archive = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', path.join(dir, archive), '-C', pkgDir, 'build/Release/better_sqlite3.node']);
  return dir;
}

let tarball: string;
let files: string[];
let commit: string;
let installed: Run;

beforeAll(async () => {
  commit = execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--untracked-files=no'], {
    encoding: 'utf8',
  }).trim();
  if (dirty)
    process.stderr.write(
      `test/package/pack.test.ts: packs the last commit, ${commit.slice(0, 10)}; uncommitted changes are not in it:\n${dirty}\n`,
    );
  execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, clone]);
  execFileSync('git', ['-C', clone, 'checkout', '--quiet', '--detach', commit]);
  symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(clone, 'node_modules'), 'dir');
  mkdirSync(packDir);
  const pack = await run('npm', ['pack', '--json', '--pack-destination', packDir], {
    cwd: clone,
    timeoutMs: 5 * MINUTES,
  });
  expect(pack.code, ok(pack)).toBe(0);
  const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  tarball = path.join(packDir, info.filename);
  files = (info.files as { path: string }[]).map((f) => f.path).sort();

  mkdirSync(project);
  const install = await run('npm', ['install', '--save-dev', '--prefer-offline', path.relative(project, tarball)], {
    cwd: project,
    env: cleanEnv({ npm_config_better_sqlite3_local_prebuilds: localPrebuild() }),
    timeoutMs: 10 * MINUTES,
  });
  expect(install.code, ok(install)).toBe(0);
  installed = install;
}, 16 * MINUTES);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the package (npm pack in a clean clone)', () => {
  it("is named roster-authz (the registry's roster is another package) and installs the command roster", () => {
    expect(path.basename(tarball)).toMatch(/^roster-authz-\d+\.\d+\.\d+\.tgz$/);
    expect(
      JSON.parse(readFileSync(path.join(project, 'node_modules/roster-authz/package.json'), 'utf8')),
    ).toMatchObject({ name: 'roster-authz', bin: { roster: 'bin/roster.js' } });
  });

  it('ships what runs, and nothing the runtime does not need', () => {
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'bin/roster.js',
      'dist/cli/main.js',
      'dist/cli/commands/init.js',
      'schemas/roster.schema.json',
      'examples/getting-started/roster.yaml',
      'docs/ci.md',
      'templates/roster.yaml',
      'templates/workflow.yml',
    ]) {
      expect(files, f).toContain(f);
    }
    const allowed = /^(dist|bin|schemas|examples|docs|templates)\/|^(package\.json|README\.md|LICENSE)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(files.filter((f) => /\.(ts|tsx|map)$/.test(f))).toEqual([]);
  });

  it('has every module of src/ compiled in dist/', () => {
    const sources = execFileSync('git', ['-C', clone, 'ls-files', 'src'], { encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
    const modules = sources.map((f) => f.replace(/^src\//, 'dist/').replace(/\.tsx?$/, '.js'));
    expect(modules.length).toBeGreaterThan(50);
    expect(modules.filter((m) => !files.includes(m))).toEqual([]);
  });
});

describe('installed into an empty project', () => {
  it(`installs on this Node (${process.version}) without an engine warning: every dependency supports it`, () => {
    // fastify's light-my-request 6.7+ wants cookie@2 (node >= 22): package.json pins light-my-request
    // 6.6.0 (cookie@1, node >= 18), which fastify's ^6.0.0 accepts; an `overrides` would not reach a consumer.
    expect(installed.stdout + installed.stderr).not.toMatch(/EBADENGINE|Unsupported engine/);
  });

  it(
    'roster init, then validate, apply and plan against the embedded default',
    async () => {
      const init = await roster(['init']);
      expect(init.code, ok(init)).toBe(0);
      const spec = `file:${path.relative(project, tarball)}`;
      const pkg = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8'));
      expect(pkg.devDependencies).toEqual({ 'roster-authz': spec });
      expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true, [spec]: true });
      expect(init.stdout).toContain('1. npm install');
      expect(init.stdout).not.toContain('npm rebuild'); // the native module loads
      for (const f of ['roster/roster.yaml', '.github/workflows/roster.yml', '.gitignore'])
        expect(existsSync(path.join(project, f)), f).toBe(true);
      // The schema line points into the installed package.
      const schemaLine = readFileSync(path.join(project, 'roster/roster.yaml'), 'utf8').split('\n')[0];
      expect(
        existsSync(path.resolve(project, 'roster', schemaLine.replace('# yaml-language-server: $schema=', ''))),
      ).toBe(true);

      const validate = await roster(['validate']);
      expect(validate.code, ok(validate)).toBe(0);
      const apply = await roster(['apply', '--yes']);
      expect(apply.code, ok(apply)).toBe(0);
      expect(apply.stdout).toMatch(/Applied \d+ of \d+ changes/);
      const plan = await roster(['plan', '--detailed-exitcode']);
      expect(plan.code, ok(plan)).toBe(0);
      expect(readdirSync(path.join(project, '.roster'))).toContain('roster.db');
    },
    5 * MINUTES,
  );

  it(
    'approves every install script in its tree: npm ci passes --strict-allow-scripts',
    async () => {
      const ci = await run('npm', ['ci', '--dry-run', '--strict-allow-scripts'], { cwd: project });
      expect(ci.code, ok(ci)).toBe(0);
      expect(ci.stderr).not.toContain('install scripts not yet covered');
      const ls = await run('npm', ['install-scripts', 'ls'], { cwd: project });
      expect(ls.stdout, ok(ls)).toContain('No packages with unreviewed install scripts');
    },
    5 * MINUTES,
  );

  it(
    "when npm skipped better-sqlite3's build, roster init says to rebuild it, and that works",
    async () => {
      const prebuilds = path.join(tmp, 'prebuilds');
      rmSync(path.join(project, 'node_modules/better-sqlite3/build'), { recursive: true }); // what a skipped install script leaves
      const other = path.join(tmp, 'other');
      const init = await run('npx', ['--no', 'roster', 'init', other], { cwd: project });
      expect(init.code, ok(init)).toBe(0);
      expect(init.stdout).toMatch(
        /npm rebuild better-sqlite3 +\(its install script has not run, so the embedded default cannot start: /,
      );
      const rebuild = await run('npm', ['rebuild', 'better-sqlite3'], {
        cwd: project,
        env: cleanEnv({ npm_config_better_sqlite3_local_prebuilds: prebuilds }),
        timeoutMs: 10 * MINUTES,
      });
      expect(rebuild.code, ok(rebuild)).toBe(0);
      const again = await run('npx', ['--no', 'roster', 'init', other, '--force'], { cwd: project });
      expect(again.code, ok(again)).toBe(0);
      expect(again.stdout).not.toContain('npm rebuild');
    },
    12 * MINUTES,
  );
});

describe('the workflow and the Action, run as GitHub runs them (real server)', () => {
  let server: TestServer;
  const leaks: string[] = [];
  const context = () => ({ vars: { ROSTER_API_URL: server.url }, secrets: { ROSTER_API_KEY: ENV_KEY } });
  const wfStep = (job: string, name: string) => stepNamed(workflow().jobs[job].steps, name);
  const actionContext = (inputs: Record<string, string>, steps: Record<string, unknown> = {}) => {
    const defaults = Object.fromEntries(Object.entries(action().inputs).map(([k, v]) => [k, String(v.default ?? '')]));
    return { inputs: { ...defaults, ...inputs }, github: { action_path: clone, token: 'gh-token' }, steps };
  };
  const runIn = async (step: ReturnType<typeof wfStep>, env: Record<string, string>) => {
    const r = await runStep(step, { cwd: project, env: cleanEnv(env), runnerTemp });
    leaks.push(shownLog(r), JSON.stringify(r.outputs), r.summary);
    return r;
  };

  const runnerTemp = path.join(tmp, 'runner-temp');
  beforeAll(async () => {
    server = await startTestServer();
    mkdirSync(runnerTemp);
  });
  afterAll(async () => {
    await server.close();
  });

  it(
    'the workflow plan step refuses to run without ROSTER_API_URL',
    async () => {
      const r = await runIn(wfStep('plan', 'plan'), stepEnv(wfStep('plan', 'plan'), { vars: {}, secrets: {} }));
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('::error::set the repository variable ROSTER_API_URL');
    },
    5 * MINUTES,
  );

  it(
    'plan (workflow) → apply (Action) → plan (Action) → apply (workflow)',
    async () => {
      const validate = await runIn(wfStep('plan', 'validate'), {});
      expect(validate.code, shownLog(validate)).toBe(0);

      const first = await runIn(wfStep('plan', 'plan'), stepEnv(wfStep('plan', 'plan'), context()));
      expect(first.code, shownLog(first)).toBe(0);
      expect(first.outputs).toEqual({ exitcode: '2', 'has-changes': 'true' });
      const planMd = readFileSync(path.join(project, 'plan.md'), 'utf8');
      expect(planMd.startsWith('<!-- roster-plan -->')).toBe(true);
      expect(planMd).toContain('team:writers');
      expect(first.summary).toBe(planMd);

      const steps = action().runs.steps;
      const install = await runIn(stepNamed(steps, 'install'), stepEnv(stepNamed(steps, 'install'), actionContext({})));
      expect(install.code, shownLog(install)).toBe(0);
      expect(install.outputs).toEqual({ bin: path.join(project, 'node_modules/roster-authz/bin/roster.js') });

      const step = stepNamed(steps, 'run');
      const inputs = { 'api-url': server.url, 'api-key': ENV_KEY };
      const applied = await runIn(step, stepEnv(step, actionContext({ ...inputs, command: 'apply' }, { install })));
      expect(applied.code, shownLog(applied)).toBe(0);
      expect(applied.outputs).toEqual({ exitcode: '0' });
      expect(applied.stdout).toContain(`::add-mask::${ENV_KEY}`); // consumed by the runner, never shown

      const planned = await runIn(
        step,
        stepEnv(step, actionContext({ ...inputs, command: 'plan', options: '--prune' }, { install })),
      );
      expect(planned.code, shownLog(planned)).toBe(0);
      expect(planned.outputs).toMatchObject({ exitcode: '0', 'has-changes': 'false' });
      expect(planned.stdout).toContain('configuration is valid');
      expect(readFileSync(planned.outputs['plan-file'] ?? '', 'utf8').startsWith('<!-- roster-plan -->')).toBe(true);

      const bad = await runIn(
        step,
        stepEnv(step, actionContext({ ...inputs, command: 'plan', options: '--no-such-option' }, { install })),
      );
      expect(bad.code).toBe(1);
      expect(bad.outputs).toMatchObject({ exitcode: '1', 'has-changes': 'false' });

      const apply = wfStep('apply', 'apply');
      const converged = await runIn(apply, stepEnv(apply, context()));
      expect(converged.code, shownLog(converged)).toBe(0);
    },
    5 * MINUTES,
  );

  it("never shows the key: not in any step's log, outputs or job summary", () => {
    expect(leaks.length).toBeGreaterThan(20);
    for (const text of leaks) expect(text).not.toContain(ENV_KEY);
  });
});
