/**
 * `roster init` end to end from source (the installed package runs it in pack.test.ts): the files it
 * writes, what it refuses, what it merges, and --from-live against the real server.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { authoritative } from '../../src/usecases/init.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-init-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(tmp, `repo-${++n}`);
const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');

describe('roster init', () => {
  it('scaffolds an empty directory: starter, workflow, .gitignore, package.json, and the next steps', async () => {
    const dir = freshDir();
    const r = await runCli(['init', dir], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    expect(read(dir, 'roster/roster.yaml')).toBe(read(ROOT, 'templates/roster.yaml'));
    expect(read(dir, 'roster/roster.yaml').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../node_modules/roster-authz/schemas/roster.schema.json',
    );
    expect(read(dir, '.github/workflows/roster.yml')).toBe(read(ROOT, 'templates/workflow.yml'));
    expect(read(dir, '.gitignore').split('\n')).toEqual(expect.arrayContaining(['node_modules/', '.roster/']));
    // Run from a clone, Roster cannot know where the project will get it from: it says so.
    expect(JSON.parse(read(dir, 'package.json'))).toEqual({
      name: path.basename(dir),
      private: true,
      allowScripts: { 'better-sqlite3': true },
    });
    expect(r.stdout).toMatch(/created +roster\/roster\.yaml +a starter configuration/);
    expect(r.stdout).toMatch(/created +package\.json +\+ name, private, allowScripts\.better-sqlite3/);
    expect(r.stdout).toContain(`1. cd ${path.basename(dir)} && npm install --save-dev ROSTER`);
    expect(r.stdout).toContain('npx --no roster validate roster/ && npx --no roster plan roster/');
    expect(r.stdout).toContain('the variable ROSTER_API_URL and the secret ROSTER_API_KEY');
    expect(r.stdout).not.toContain('npm rebuild'); // the native module loads here
  });

  it('writes a starter that validates, applies to the embedded default and then plans no changes', async () => {
    const dir = freshDir();
    expect((await runCli(['init', dir])).code).toBe(0);
    const validate = await runCli(['validate', 'roster/'], { cwd: dir });
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect((await runCli(['apply', 'roster/', '--yes'], { cwd: dir })).code).toBe(0);
    const plan = await runCli(['plan', 'roster/', '--detailed-exitcode'], { cwd: dir });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(existsSync(path.join(dir, '.roster'))).toBe(true);
  });

  it('refuses to overwrite the configuration or the workflow, writing nothing; --force replaces them', async () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, '.github/workflows'), { recursive: true });
    writeFileSync(path.join(dir, '.github/workflows/roster.yml'), 'mine\n');
    const refused = await runCli(['init'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('roster init would overwrite what exists');
    expect(refused.stderr).toContain(`${path.join(dir, '.github/workflows/roster.yml')}: exists`);
    expect(existsSync(path.join(dir, 'roster'))).toBe(false);
    expect(existsSync(path.join(dir, 'package.json'))).toBe(false);
    expect(existsSync(path.join(dir, '.gitignore'))).toBe(false);

    const forced = await runCli(['init', '--force'], { cwd: dir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/replaced +\.github\/workflows\/roster\.yml/);
    expect(read(dir, '.github/workflows/roster.yml')).toBe(read(ROOT, 'templates/workflow.yml'));
    expect((await runCli(['init'], { cwd: dir })).code).toBe(1); // both exist now
  });

  it('refuses a roster/ that holds a configuration already', async () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, 'roster/teams'), { recursive: true });
    writeFileSync(path.join(dir, 'roster/teams/eng.yaml'), 'version: 1\n');
    const r = await runCli(['init', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('holds a configuration already (teams/eng.yaml)');
    expect(existsSync(path.join(dir, 'roster/roster.yaml'))).toBe(false);
  });

  it('merges into an existing package.json and .gitignore: adds entries, changes none, keeps the indentation', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    const pkg = {
      name: 'infra',
      version: '1.0.0',
      devDependencies: { 'roster-authz': 'github:acme/roster#v0.1.0' },
      allowScripts: { 'better-sqlite3': false },
    };
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 4));
    writeFileSync(path.join(dir, '.gitignore'), 'dist/\nnode_modules');
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const text = read(dir, 'package.json');
    expect(JSON.parse(text)).toEqual({ ...pkg, allowScripts: { 'better-sqlite3': false, 'github:acme/roster': true } });
    expect(text).toContain('\n    "name": "infra"');
    expect(read(dir, '.gitignore')).toBe(
      "dist/\nnode_modules\n# the embedded default's data (roster plan/apply without --api-url)\n.roster/\n",
    );
    expect(r.stdout).toMatch(/updated +package\.json +\+ allowScripts\.github:acme\/roster/);
    expect(r.stdout).toContain("warning: package.json's allowScripts denies better-sqlite3");
    expect(r.stdout).toContain('1. npm install   (writes package-lock.json');
  });

  it('says that a tarball outside the repository cannot be installed by CI', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ devDependencies: { 'roster-authz': 'file:../roster-0.1.0.tgz' } }),
    );
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(read(dir, 'package.json')).allowScripts).toEqual({
      'better-sqlite3': true,
      'file:../roster-0.1.0.tgz': true,
    });
    expect(r.stdout).toContain(
      `note: package.json installs Roster from ${path.join(tmp, 'roster-0.1.0.tgz')}, outside this repository`,
    );
  });

  it('names a vendored tarball in the files to commit (CI installs from it)', async () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, 'vendor'), { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ devDependencies: { 'roster-authz': 'file:vendor/roster-authz-0.1.0.tgz' } }),
    );
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'commit (roster/ .github/ .gitignore package.json package-lock.json vendor/roster-authz-0.1.0.tgz)',
    );
  });

  it('refuses target flags without --from-live', async () => {
    const dir = freshDir();
    const r = await runCli(['init', dir, '--api-url', 'http://127.0.0.1:1', '--project', 'p']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: --api-url, --project only go with --from-live');
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a package.json that is not JSON, writing nothing', async () => {
    const dir = freshDir();
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'package.json'), '{ "name": ');
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path.join(dir, 'package.json')} is not valid JSON; nothing was written`);
    expect(existsSync(path.join(dir, 'roster'))).toBe(false);
  });
});

describe('roster init --from-live (real server)', () => {
  let server: TestServer;
  let source: string;
  const remote = { ROSTER_API_KEY: ENV_KEY };

  beforeAll(async () => {
    server = await startTestServer();
    source = freshDir();
    mkdirSync(source);
    writeFileSync(
      path.join(source, 'roster.yaml'),
      `
resources: { document: [read, write] }
roles: { editor: [document:read, document:write] }
tenants: { acme: { name: Acme } }
users: { alice: { email: alice@acme.test, tenants: [acme] } }
resource_instances: { document:readme: acme }
groups:
  team:eng: { tenant: acme, members: [alice], roles: [{ role: editor, on: document:readme }] }
`,
    );
    const applied = await runCli(['apply', '--yes', '--api-url', server.url], { cwd: source, env: remote });
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    await server.close();
  });

  it('writes what roster export writes; planning it against the same environment shows no changes', async () => {
    const dir = freshDir();
    const r = await runCli(['init', dir, '--from-live', '--api-url', server.url], { env: remote });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /created +roster\/roster\.yaml +the live environment, as `roster export` writes it, authoritative/,
    );
    const exported = await runCli(['export', '--api-url', server.url], { env: remote });
    // What export writes, declared authoritative: from now on a removal is a deletion on merge.
    expect(read(dir, 'roster/roster.yaml')).toBe(authoritative(exported.stdout));
    expect(read(dir, 'roster/roster.yaml')).toMatch(/^version: 1\n#[^\n]*\n#[^\n]*\nauthoritative: true\n/m);
    expect(read(dir, 'roster/roster.yaml')).toContain('team:eng:');
    // The starter's schema line comes first, for the editor's completion and checks.
    expect(read(dir, 'roster/roster.yaml').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../node_modules/roster-authz/schemas/roster.schema.json',
    );
    const plan = await runCli(['plan', 'roster/', '--prune', '--detailed-exitcode', '--api-url', server.url], {
      cwd: dir,
      env: remote,
    });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    for (const out of [r.stdout, r.stderr, plan.stdout, plan.stderr]) expect(out).not.toContain(ENV_KEY);
  });

  it('export --diff of the file init --from-live wrote reports no drift: its header is not a difference (issue #31)', async () => {
    const dir = freshDir();
    expect((await runCli(['init', dir, '--from-live', '--api-url', server.url], { env: remote })).code).toBe(0);
    const diff = await runCli(['export', '--diff', 'roster/roster.yaml', '--api-url', server.url], {
      cwd: dir,
      env: remote,
    });
    expect([diff.code, diff.stdout], diff.stderr).toEqual([0, '']);
    expect(diff.stderr).toContain('roster/roster.yaml matches the live environment.');
    // A real difference still shows, and only it.
    writeFileSync(
      path.join(dir, 'roster/roster.yaml'),
      read(dir, 'roster/roster.yaml').replace('alice@acme.test', 'alice@other.test'),
    );
    const drift = await runCli(['export', '--diff', 'roster/roster.yaml', '--api-url', server.url], {
      cwd: dir,
      env: remote,
    });
    expect(drift.code).toBe(1);
    expect(drift.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      expect.stringContaining('alice@other.test'),
      expect.stringContaining('alice@acme.test'),
    ]);
  });

  it('init --from-live --project P --env E records project: and environment:, and its next steps plan that environment (issue #31)', async () => {
    const dir = freshDir();
    const r = await runCli(['init', dir, '--from-live', '--api-url', server.url, '--project', 'p', '--env', 'e'], {
      env: remote,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(read(dir, 'roster/roster.yaml')).toMatch(
      /^version: 1\nproject: p\nenvironment: e\n#[^\n]*\n#[^\n]*\nauthoritative: true\n/m,
    );
    expect(r.stdout).toMatch(/created +roster\/roster\.yaml +the live environment of p\/e,/);
    expect(r.stdout).toContain(
      `npx --no roster plan roster/ --api-url ${server.url}   (against ${new URL(server.url).host}, p/e, as roster/roster.yaml names it`,
    );
    expect(r.stdout).not.toContain('against the embedded default');
    // The next step, as written (the flags name nothing more): no changes.
    const plan = await runCli(['plan', 'roster/', '--detailed-exitcode', '--api-url', server.url], {
      cwd: dir,
      env: { ...remote, ROSTER_PROJECT: undefined, ROSTER_ENV: undefined },
    });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('p/e');
    const diff = await runCli(
      ['export', '--diff', 'roster/roster.yaml', '--api-url', server.url, '--project', 'p', '--env', 'e'],
      { cwd: dir, env: remote },
    );
    expect([diff.code, diff.stdout], diff.stderr).toEqual([0, '']);
  });

  it('writes nothing when the service refuses the key, and never prints it', async () => {
    const dir = freshDir();
    const wrong = 'wrong-key-0123456789abcdef';
    const r = await runCli(['init', dir, '--from-live', '--api-url', server.url, '--project', 'p', '--env', 'e'], {
      env: { ROSTER_API_KEY: wrong },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: the service refused a request/);
    expect(r.stdout + r.stderr).not.toContain(wrong);
    expect(existsSync(dir)).toBe(false);
  });
});
