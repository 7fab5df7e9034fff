import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const fixture = (name: string) => `test/fixtures/config/${name}.yaml`;

describe('roster validate', () => {
  it.each(['examples/getting-started/roster.yaml', 'examples/company'])('exits 0 on %s', async (example) => {
    const r = await runCli(['validate', example]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('configuration is valid\n');
    expect(r.code).toBe(0);
  });

  it('two examples together collide, naming both places', async () => {
    const r = await runCli(['validate', 'examples/getting-started/roster.yaml', 'examples/company']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'examples/company/00-schema.yaml:8:3: error: resource "document" is declared twice: here and at examples/getting-started/roster.yaml:7:3',
    );
  });

  it('exits 1 and reports every error of every file in one run (text)', async () => {
    const r = await runCli(['validate', fixture('schema-wrong-type'), fixture('yaml-duplicate-key')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatchInlineSnapshot(`
      "test/fixtures/config/schema-wrong-type.yaml:2:21: error: expected a list, found the string "acme"
        at users.alice.tenants
        2 |   alice: { tenants: acme }
          |                     ^^^^

      test/fixtures/config/yaml-duplicate-key.yaml:4:3: error: duplicate key "acme" (first written at line 2, column 3)
        at tenants.acme
        4 |   acme: { name: Acme again }
          |   ^^^^
        hint: merge the two entries into one

      2 errors, 0 warnings
      "
    `);
  });

  describe('a schema mistake and a semantic one in the same file are both reported in one run', () => {
    const file = fixture('schema-and-rule-mistakes');

    it('text', async () => {
      const r = await runCli(['validate', file]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatchInlineSnapshot(`
        "test/fixtures/config/schema-and-rule-mistakes.yaml:21:5: error: unknown field "member_off"
          at groups.team:docs.member_off
          21 |     member_off: [team:eng]
             |     ^^^^^^^^^^
          hint: did you mean "member_of"?

        test/fixtures/config/schema-and-rule-mistakes.yaml:22:21: error: unknown role "editr"
          at groups.team:docs.roles[0].role
          22 |     roles: [{ role: editr, on: document:readme }]
             |                     ^^^^^
          hint: did you mean "editor"?

        2 errors, 0 warnings
        "
      `);
    });

    it('json', async () => {
      const r = await runCli(['validate', '--format', 'json', file]);
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out.errors.map((e: Record<string, unknown>) => [e.line, e.column, e.path, e.message, e.hint])).toEqual([
        [21, 5, 'groups.team:docs.member_off', 'unknown field "member_off"', 'did you mean "member_of"?'],
        [22, 21, 'groups.team:docs.roles[0].role', 'unknown role "editr"', 'did you mean "editor"?'],
      ]);
      expect(out.warnings).toEqual([]);
    });

    it('github', async () => {
      const r = await runCli(['validate', '--format', 'github', file]);
      expect(r.code).toBe(1);
      expect(r.stdout.trimEnd().split('\n')).toEqual([
        `::error file=${file},line=21,col=5,endLine=21,endColumn=15,title=roster validate%3A groups.team%3Adocs.member_off::unknown field "member_off" (did you mean "member_of"?)`,
        `::error file=${file},line=22,col=21,endLine=22,endColumn=26,title=roster validate%3A groups.team%3Adocs.roles[0].role::unknown role "editr" (did you mean "editor"?)`,
        '2 errors, 0 warnings',
      ]);
    });
  });

  it('prints warnings and still exits 0', async () => {
    const r = await runCli(['validate', fixture('unused-role')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('unused-role.yaml:5:3: warning: role "auditor" is not given to any user or group');
    expect(r.stdout).toContain('configuration is valid, 1 warning');
  });

  it('--format json', async () => {
    const r = await runCli(['validate', '--format', 'json', fixture('member-of-cycle')]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.valid).toBe(false);
    expect(out.errors[0]).toMatchObject({ line: 16, column: 17, path: 'groups.team:b.member_of[0]' });
  });

  it('--format github', async () => {
    const r = await runCli(['validate', '--format', 'github', fixture('group-member-unknown')]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe(
      '::error file=test/fixtures/config/group-member-unknown.yaml,line=14,col=22,endLine=14,endColumn=27,title=roster validate%3A groups.team%3Aeng.members[1]::unknown user "alcie" (did you mean "alice"?)',
    );
  });

  it('refuses an unknown format', async () => {
    const r = await runCli(['validate', '--format', 'xml', fixture('valid-minimal')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown --format "xml"');
  });

  it('defaults to roster.yaml, then roster/, in the working directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'roster-cli-'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')); // runCli imports tsx from the cwd
    const none = await runCli(['validate'], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no configuration found');

    mkdirSync(path.join(dir, 'roster/teams'), { recursive: true });
    writeFileSync(path.join(dir, 'roster/a.yaml'), 'tenants: { acme: {} }\n');
    writeFileSync(path.join(dir, 'roster/teams/b.yaml'), 'groups: { team:x: { tenant: acmee } }\n');
    const fromDir = await runCli(['validate'], { cwd: dir });
    expect(fromDir.code).toBe(1);
    expect(fromDir.stdout).toContain(`${path.join('roster', 'teams', 'b.yaml')}:1:29: error: unknown tenant "acmee"`);

    writeFileSync(path.join(dir, 'roster.yaml'), 'tenants: { acme: {} }\n');
    const fromFile = await runCli(['validate'], { cwd: dir });
    expect(fromFile.code).toBe(0);
  });

  it('never colours when NO_COLOR is set or output is not a terminal', async () => {
    const r = await runCli(['validate', fixture('member-of-cycle')], { env: { NO_COLOR: undefined } });
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('lists validate in --help', async () => {
    const r = await runCli(['--help'], { cwd: ROOT });
    expect(r.stdout).toContain('validate');
  });
});
