import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { fileRequest, seedReviewWorld } from '../review/world.js';

/**
 * One repository, one target (issue 41): commands that take no configuration path (`requests`,
 * `review`, `export`, `explain --live` without PATHs) act on the environment the repository's
 * configuration names, and say so; a configuration exported from a remote service is not read against
 * the embedded one by default. Against the real server, with an organisation-wide key (which names no
 * environment of its own).
 */

let s: TestServer;
let repo: string;
const cli = (args: string[], env: Record<string, string | undefined> = {}, cwd = repo) =>
  runCli(args, {
    cwd,
    env: {
      ROSTER_API_KEY: ORG_KEY,
      ROSTER_API_URL: undefined,
      ROSTER_PROJECT: undefined,
      ROSTER_ENV: undefined,
      ROSTER_DATA_DIR: undefined,
      ...env,
    },
  });

beforeAll(async () => {
  s = await startTestServer();
  await seedReviewWorld(s);
  repo = mkdtempSync(path.join(os.tmpdir(), 'roster-repo-'));
  // What `init --from-live --project p --env e` writes: the export, with the environment named.
  const init = await cli(['init', '--from-live', '--api-url', s.url, '--project', 'p', '--env', 'e']);
  expect(init.code, init.stderr).toBe(0);
});
afterAll(async () => {
  await s?.close();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

describe('commands without a configuration path, inside the repository', { timeout: 120_000 }, () => {
  // First: the requests below change the live state.
  it('export --diff of the file init wrote: no drift, its own header aside', async () => {
    const file = path.join(repo, 'roster/roster.yaml');
    const before = readFileSync(file, 'utf8');
    // As an older Roster wrote the header (no host): where it came from is not drift.
    writeFileSync(file, before.replace(/ at [^:\s]+: the live environment/, ': the live environment'));
    try {
      const r = await cli(['export', '--api-url', s.url, '--diff', 'roster/roster.yaml']);
      expect(r.stdout).toBe('');
      expect(r.code, r.stderr).toBe(0);
    } finally {
      writeFileSync(file, before);
    }
  });

  it('requests list and approve act on the environment roster/ names, and say so', async () => {
    const id = await fileRequest(
      s,
      'dave',
      { role: 'viewer', resource: 'document', resource_instance: 'roadmap' },
      'release',
    );
    const list = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--api-url', s.url]);
    expect(list.stderr).not.toContain('name it with --project and --env');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain('using project p and environment e, as roster/roster.yaml names them');
    expect(list.stdout).toContain(id);
    const approve = await cli([
      'requests',
      'approve',
      id.slice(0, 8),
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--api-url',
      s.url,
    ]);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain(`approved access request ${id}`);
    // A flag names another environment: the flag wins (the command is not given the configuration).
    const other = await cli([
      'requests',
      'list',
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--api-url',
      s.url,
      '--env',
      'nope',
    ]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("environment 'nope' does not exist in project 'p'");
    expect(other.stderr).not.toContain('contradicts');
  });

  it('export and explain --live too; outside the repository, the old refusal names the flags', async () => {
    const exported = await cli(['export', '--api-url', s.url]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain('using project p and environment e, as roster/roster.yaml names them');
    expect(exported.stdout).toContain(
      `# Exported by \`roster export\` from p/e at ${new URL(s.url).host}: the live environment as configuration.`,
    );
    const explain = await cli(['explain', 'alice', 'read', 'document:readme', '--live', '--api-url', s.url]);
    expect(explain.code, explain.stderr).toBe(0);
    expect(explain.stdout).toContain('alice can document:read on document:readme');
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'roster-norepo-'));
    try {
      const bare = await cli(
        ['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--api-url', s.url],
        {},
        elsewhere,
      );
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain('name it with --project and --env');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('a configuration exported from a remote service, with no service named', { timeout: 120_000 }, () => {
  it('plan refuses, saying where it came from, and creates no .roster/; --data uses the embedded service on purpose', async () => {
    const host = new URL(s.url).host;
    const r = await cli(['plan', 'roster/']);
    expect(r.stdout).not.toContain('to create');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: roster/roster.yaml was exported from p/e at ${host}, but no --api-url or ROSTER_API_URL names a service: roster plan would read the embedded service (./.roster), an empty local stand-in, not ${host}; nothing was read or written`,
    );
    expect(r.stderr).toContain(
      `set ROSTER_API_URL to the URL of ${host} and ROSTER_API_KEY, or pass --api-url; to use the embedded service on purpose, pass --data ./.roster`,
    );
    expect(existsSync(path.join(repo, '.roster'))).toBe(false);
    // ROSTER_API_URL set to '' (CI's unset variable) is no service either; apply refuses the same way.
    const apply = await cli(['apply', 'roster/', '--yes'], { ROSTER_API_URL: '' });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('roster apply would read the embedded service');
    // Commands without a path read the same configuration: refused too; so are the others that read it against a service.
    const list = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme']);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('roster requests list would read the embedded service');
    for (const args of [
      ['check', '--live'],
      ['requests', 'adopt', '--dry-run'],
    ]) {
      const r = await cli(args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(
        `roster ${args.slice(0, args[0] === 'requests' ? 2 : 1).join(' ')} would read the embedded service`,
      );
    }
    expect(existsSync(path.join(repo, '.roster'))).toBe(false);
    // On purpose: the embedded service, named with --data.
    const data = mkdtempSync(path.join(os.tmpdir(), 'roster-data-'));
    try {
      const local = await cli(['plan', 'roster/', '--data', data]);
      expect(local.code, local.stderr).toBe(0);
      expect(local.stdout).toContain('to create');
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('the service named at another host than the export: planned, with a warning naming both', async () => {
    const host = new URL(s.url).host;
    const other = s.url.replace('127.0.0.1', 'localhost');
    const r = await cli(['plan', 'roster/', '--api-url', other]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('No changes.');
    expect(r.stderr).toContain(
      `warning: roster/roster.yaml was exported from p/e at ${host}; roster plan reads ${new URL(other).host}`,
    );
    // The same host: no warning.
    const same = await cli(['plan', 'roster/', '--api-url', s.url]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain('was exported from');
  });
});
