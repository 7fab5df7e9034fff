/**
 * Errors that point the right way (issue #31), run as users run the CLI against the real server: a URL
 * with no /v2 API behind it is not "project does not exist"; https:// against plain HTTP asks "is it
 * http://?"; no answer at all does not read "answered 0"; a missing --api-key-file names the option and
 * the path.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { noJitterEnv } from '../helpers/no-jitter.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'roster-errors-point-'));
const dir = path.join(tmp, 'repo');
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ environments: [{ project: 'corp', env: 'prod' }] });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'roster.yaml'),
    'version: 1\nproject: corp\nenvironment: prod\ntenants: { acme: { name: Acme } }\n',
  );
});
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});
const env = { ROSTER_API_KEY: ORG_KEY, ROSTER_API_URL: undefined, ROSTER_PROJECT: undefined, ROSTER_ENV: undefined };
const plan = (url: string, ...args: string[]) =>
  runCli(['plan', '--api-url', url, ...args], { cwd: dir, env, timeoutMs: 60_000 });

function oneLine(r: CliResult): string {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.code).toBe(1);
  return lines[0];
}

describe('a URL with no /v2 API behind it', { timeout: 90_000 }, () => {
  it('a path prefix (a proxy, a typo): the router\'s 404 is "no /v2 API at", not "project does not exist"', async () => {
    const r = await plan(`${server.url}/api`);
    expect(oneLine(r)).toBe(
      `error: no /v2 API at ${server.url}/api (GET /api/v2/projects/corp: 404 ROUTE_NOT_FOUND); check ROSTER_API_URL (--api-url)`,
    );
  });

  it("a 404 that is not the service's NOT_FOUND (a proxy page) is no endpoint either, whatever the request", async () => {
    const proxy = await startFaultProxy(server.url, (r) =>
      r.path.endsWith('/roles') ? { kind: 'status', status: 404, body: { detail: 'Not Found' } } : undefined,
    );
    try {
      const line = oneLine(await plan(proxy.url));
      expect(line).toContain(
        `error: no /v2 API at ${proxy.url} (GET /v2/schema/corp/prod/roles: 404); check ROSTER_API_URL`,
      );
    } finally {
      await proxy.close();
    }
  });

  it("the service's own NOT_FOUND still says the project does not exist", async () => {
    const other = path.join(tmp, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, 'roster.yaml'), 'version: 1\nproject: corq\nenvironment: prod\n');
    const wrong = await runCli(['plan', '--api-url', server.url], { cwd: other, env });
    expect(oneLine(wrong)).toContain("project 'corq' does not exist");
    expect(wrong.stderr).toContain("did you mean 'corp'?");
  });
});

describe('no answer, and the wrong scheme', { timeout: 90_000 }, () => {
  it('https:// against a plain-HTTP server asks "is it http://?", without OpenSSL\'s internals', async () => {
    const line = oneLine(await plan(server.url.replace('http://', 'https://')));
    expect(line).toMatch(
      /^error: https:\/\/127\.0\.0\.1:\d+ did not answer TLS \(.+\): is it http:\/\/\? Check the scheme of --api-url \(ROSTER_API_URL\)$/,
    );
    expect(line).not.toMatch(/SSL routines|ssl3_|0A00010B/);
  });

  it('a connection closed without an answer reads "got no answer", not "answered 0"', async () => {
    // A port that accepts and closes at once: no HTTP answer, ever.
    const closer = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => closer.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(closer.address() as net.AddressInfo).port}`;
    try {
      // The reset is retried as every read is: jitter 0, the retries do not wait (test/README.md).
      const line = oneLine(
        await runCli(['plan', '--api-url', url], { cwd: dir, env: { ...env, ...noJitterEnv() }, timeoutMs: 60_000 }),
      );
      expect(line).toMatch(
        /^error: could not reach the service: GET \/v2\/projects\/corp got no answer \((NETWORK_ERROR|UNREACHABLE)\)/,
      );
      expect(line).not.toContain('answered 0');
    } finally {
      closer.close();
    }
  });
});

describe('--api-key-file', { timeout: 60_000 }, () => {
  it('a file that does not exist: the option and the path, not a bare ENOENT', async () => {
    const missing = path.join(tmp, 'no-such-key');
    const r = await runCli(['plan', '--api-url', server.url, '--api-key-file', missing], {
      cwd: dir,
      env: { ...env, ROSTER_API_KEY: undefined },
    });
    expect(oneLine(r)).toBe(
      `error: --api-key-file ${missing}: no such file; give the path of a file holding the API key, or set ROSTER_API_KEY instead`,
    );
  });

  it('an empty file is refused as such', async () => {
    const empty = path.join(tmp, 'empty-key');
    writeFileSync(empty, '\n');
    const r = await runCli(['plan', '--api-url', server.url, '--api-key-file', empty], {
      cwd: dir,
      env: { ...env, ROSTER_API_KEY: undefined },
    });
    expect(oneLine(r)).toBe(`error: --api-key-file ${empty} is empty; it must hold the API key`);
  });
});

describe('usage errors', { timeout: 60_000 }, () => {
  it.each([
    ['?pool=abc', "?pool= must be a positive integer, got 'abc'"],
    ['?pool=0', "?pool= must be a positive integer, got '0'"],
    ['?schema=a-b', "?schema= must be a plain SQL identifier (letters, digits, _; at most 63), got 'a-b'"],
  ])(
    'roster serve --database with %s is a usage error naming the setting, not an internal one (exit 70)',
    async (query, says) => {
      const r = await runCli(
        [
          'serve',
          '--port',
          '0',
          '--api-key',
          'k',
          '--database',
          `postgres://roster:secret@127.0.0.1:5432/test${query}`,
        ],
        { env: { ROSTER_DATABASE_URL: undefined } },
      );
      expect(oneLine(r)).toBe(
        `error: --database (or ROSTER_DATABASE_URL) postgres://roster:***@127.0.0.1:5432/test${query}: ${says}`,
      );
      expect(r.stderr).not.toContain('secret');
    },
  );

  it.each([
    [['plan', '--bogus'], "error: unknown option '--bogus'", 'roster plan'],
    [['plna'], "error: unknown command 'plna'", 'roster'],
    [['requests', 'creat'], "error: unknown command 'creat'", 'roster requests'],
  ])('%j: the error and one line pointing at --help, not the whole help', async (args, error, command) => {
    const r = await runCli(args, { cwd: tmp });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(error);
    expect(lines[lines.length - 1]).toBe(`(run '${command} --help' for its usage)`);
    expect(lines.length).toBeLessThanOrEqual(3); // with commander's "(Did you mean plan?)" for a near command
    expect(r.stderr).not.toContain('Usage:');
  });
});
