/**
 * The README's commands for approving install scripts before the first install (npm 11's
 * `allowScripts`), run as written in an empty repository (issue #41: `npm pkg set …` alone fails there,
 * having no package.json to edit). The same key `roster init` writes (test/package/package-json.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'roster-readme-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's bullet on install scripts, up to the next bullet of its list. */
function installScriptsBullet(): string {
  const start = readme.indexOf('- **Install scripts (npm 11).**');
  expect(start).toBeGreaterThan(0);
  const end = readme.indexOf('\n- **', start + 1);
  return readme.slice(start, end);
}

/** Every `npm init` and `npm pkg set` command of the bullet, in order: inline code or lines of a code block. */
function commands(text: string): string[] {
  const command = 'npm (?:init|pkg set \\S)';
  const found = [...text.matchAll(new RegExp(`\`(${command}[^\`]*)\`|^\\s*(${command}[^\\n]*)$`, 'gm'))].map(
    (m) => m[1] ?? m[2],
  );
  return found.map((c) => c.replace(/\s+#.*$/, '').trim());
}

/** npm as a user runs it: nothing inherited from an outer `npm test`. */
function npmEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

describe("the README's install-scripts commands", () => {
  it('run as written in an empty repository, and approve the scripts roster init approves', () => {
    const cmds = commands(installScriptsBullet());
    expect(cmds.some((c) => c.includes('allowScripts.better-sqlite3=true'))).toBe(true);
    for (const cmd of cmds) {
      try {
        execFileSync('sh', ['-c', cmd], { cwd: dir, env: npmEnv(), stdio: 'pipe', timeout: 60_000 });
      } catch (err) {
        const e = err as { stderr?: Buffer };
        throw new Error(
          `\`${cmd}\` failed in an empty repository: ${
            e.stderr
              ?.toString()
              .split('\n')
              .find((l) => l.includes('error')) ?? err
          }`,
        );
      }
    }
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true, 'git+https://github.com/OWNER/roster.git': true });
  });
});
