import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, renderText } from '../../src/config/index.js';
import { readConfigFiles } from '../../src/config/read.js';
import { capProblems } from '../../src/config/render.js';
import { runCli } from '../helpers/cli.js';

const TENANT = 'tenants:\n  acme: {name: Acme}\n';
const USERS = 'users:\n  ada: {tenants: [acme]}\n';

function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'roster-read-'));
}

describe('reading configuration files', () => {
  it('follows a symlinked file and a symlinked folder inside a configuration directory', async () => {
    const shared = tempDir();
    writeFileSync(path.join(shared, 'users.yaml'), USERS);
    mkdirSync(path.join(shared, 'more'));
    writeFileSync(path.join(shared, 'more', 'tenants.yaml'), TENANT);
    const dir = tempDir();
    symlinkSync(path.join(shared, 'users.yaml'), path.join(dir, 'users.yaml'));
    symlinkSync(path.join(shared, 'more'), path.join(dir, 'linked'));
    const r = await loadConfig([dir]);
    expect(r.errors).toEqual([]);
    expect([...r.desired!.users.keys()]).toEqual(['ada']);
    expect([...r.desired!.tenants.keys()]).toEqual(['acme']);
  });

  it('walks a folder loop once, reads a file under two names once, and names a dangling link', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'all.yaml'), TENANT + USERS);
    symlinkSync(path.join(dir, 'all.yaml'), path.join(dir, 'again.yaml'));
    symlinkSync(dir, path.join(dir, 'loop'));
    symlinkSync(path.join(dir, 'gone.yaml'), path.join(dir, 'dangling.yaml'));
    const read = await readConfigFiles([dir]);
    expect(read.sources.map((s) => path.basename(s.file))).toEqual(['again.yaml']);
    expect(read.errors).toEqual([
      expect.objectContaining({
        file: path.join(dir, 'dangling.yaml'),
        message: 'a symbolic link that cannot be followed: no such file or directory',
      }),
    ]);
  });

  it('refuses a FIFO by name without waiting for a writer, inside a folder or given outright', async () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    const r = await loadConfig([dir, fifo]);
    expect(r.errors).toEqual([
      expect.objectContaining({ file: fifo, message: 'a named pipe (FIFO), not a configuration file' }),
    ]);
  });

  it('refuses what feeds /dev/stdin (a pipe, or the socket a spawned process gets) by name, exit 1', async () => {
    const r = await runCli(['validate', '/dev/stdin'], { input: TENANT });
    expect(r.stdout).toMatch(/\/dev\/stdin: error: a (named pipe \(FIFO\)|socket), not a configuration file/);
    expect(r.code).toBe(1);
  });

  it('refuses a device instead of reading it without end', async () => {
    const r = await loadConfig(['/dev/zero']);
    expect(r.errors).toEqual([
      expect.objectContaining({ file: '/dev/zero', message: 'a character device, not a configuration file' }),
    ]);
  });

  it('counts the bytes it reads instead of trusting stat(): a /proc file says 0 and still has text', async () => {
    // /proc/self/status reports size 0; reading it proves the size is what was read.
    const read = await readConfigFiles(['/proc/self/status']);
    expect(read.errors).toEqual([]);
    expect(read.sources[0].text).toMatch(/^Name:/);
  });

  it('two YAML documents in one file: one house-style problem at the second document', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'two.yaml');
    writeFileSync(file, `${TENANT}---\n${USERS}`);
    const r = await loadConfig([file]);
    expect(r.errors).toEqual([
      expect.objectContaining({
        file,
        line: 3,
        column: 1,
        message: 'a second YAML document starts here: a configuration file holds one document',
        hint: expect.stringContaining('remove this --- line'),
      }),
    ]);
  });
});

describe('huge error counts', { timeout: 180_000 }, () => {
  it('130,000 errors are reported, and rendered capped with the rest counted, without overflowing the stack', async () => {
    const dir = tempDir();
    const lines = [TENANT, 'users:'];
    for (let i = 0; i < 130_000; i++) lines.push(`  u${i}: {tenants: [nope]}`);
    writeFileSync(path.join(dir, 'big.yaml'), lines.join('\n') + '\n');
    const r = await loadConfig([dir]);
    expect(r.errors).toHaveLength(130_000);
    const text = renderText(r, { sourceOf: () => undefined });
    expect(text).toContain('and 129,800 more (--format json lists them all)');
    expect(text.split('\n').filter((l) => l.includes('error:'))).toHaveLength(200);
    expect(text.trimEnd().endsWith('130,000 errors, 0 warnings')).toBe(true);
  });

  it('capProblems shows all under the cap and counts the rest over it', () => {
    expect(capProblems([1, 2, 3], 3)).toEqual({ shown: [1, 2, 3] });
    expect(capProblems([1, 2, 3, 4, 5], 2)).toEqual({
      shown: [1, 2],
      more: 'and 3 more (--format json lists them all)',
    });
  });
});
