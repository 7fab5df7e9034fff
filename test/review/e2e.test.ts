import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { cliEntry, ROOT, runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { readUserIds, seedReviewWorld } from './world.js';

/**
 * The real `roster review` in a pseudo-terminal (tmux) against the real server: requests filed with
 * `roster requests create`, one approved and one denied through keystrokes, the outcome read back
 * through the API. Skipped, with the reason printed, where tmux is not installed.
 */

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux)
  console.warn('skipping the roster review end-to-end test: tmux is not installed (apt-get install -y tmux)');

const SOCKET = `roster-e2e-${process.pid}`;
const SESSION = 'review';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', SESSION, '-S', '-200');

async function until(text: string, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let s = '';
    try {
      s = screen();
    } catch {
      /* the session may be gone once the app quits */
    }
    if (s.replace(/\s+/g, ' ').includes(text)) return s;
    if (Date.now() > end) throw new Error(`timed out waiting for "${text}"; screen:\n${s}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const keys = (...k: string[]) => tmux('send-keys', '-t', SESSION, ...k);
const type = (text: string) => tmux('send-keys', '-t', SESSION, '-l', text);

describe.skipIf(!hasTmux)('roster review in a terminal (tmux)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    await seedReviewWorld(server);
  });
  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    await server.close();
  });

  const target = () => ['--api-url', server.url, '--project', 'p', '--env', 'e'];

  /** Starts `roster review ARGS` in a fresh tmux session `name` of `width` x `height`. */
  const start = (name: string, width: number, height: number, args: string[]) => {
    // `env -u CI`: the test runner may run under CI, and the review refuses to start there.
    const command = [
      'env',
      '-u',
      'CI',
      `ROSTER_API_KEY=${ORG_KEY}`,
      'NO_COLOR=1',
      process.execPath,
      ...cliEntry(),
      'review',
      ...args,
      ...target(),
    ];
    tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      String(width),
      '-y',
      String(height),
      '-c',
      ROOT,
      command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ') + '; sleep 30',
    );
  };
  const file = async (user: string, role: string, instance: string, reason: string, tenant = 'acme') => {
    const r = await runCli(
      [
        'requests',
        'create',
        '--user',
        user,
        '--tenant',
        tenant,
        '--role',
        role,
        '--resource',
        'document',
        '--instance',
        instance,
        '--reason',
        reason,
        '--format',
        'json',
        ...target(),
      ],
      { env: { ROSTER_API_KEY: ORG_KEY } },
    );
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout).id as string;
  };
  const read = async (id: string) =>
    (await server.facts('GET', `/access_requests/default/user/bob/tenant/acme/${id}`)).body;

  it('approves one request and denies another through keystrokes', async () => {
    const denied = await file('alice', 'editor', 'readme', 'fix the release notes');
    const approved = await file('dave', 'viewer', 'roadmap', 'onboarding');
    start(SESSION, 100, 30, ['--user', 'bob', '--tenant', 'acme']);

    // Oldest first: alice's request, then dave's.
    let s = await until('1–2 of 2');
    expect(s).toMatch(/› alice\s+editor\s+document:readme/);
    keys('j');
    await until('› dave');
    keys('a');
    await until('comment (optional)');
    type('welcome aboard');
    keys('Enter');
    await until(`with comment "welcome aboard"? [y/N]`);
    keys('y');
    await until("✓ approved dave's request for viewer on document:roadmap");

    // Approved, dave's request left the queue: alice's is the one selected.
    await until('› alice');
    keys('d');
    await until('comment (optional)');
    type('use a branch');
    keys('Enter');
    await until('[y/N]');
    keys('y');
    s = await until("✓ denied alice's request for editor on document:readme");
    expect(s).not.toContain(ORG_KEY);
    await until('no pending request');
    keys('q');
    s = await until('roster review: 2 decisions recorded');
    expect(s).not.toContain(ORG_KEY);

    // The public read model names the reviewer by id.
    const bob = (await readUserIds(server)).id.bob;
    expect(await read(approved)).toMatchObject({
      status: 'approved',
      reviewer_comment: 'welcome aboard',
      reviewer_user_id: bob,
    });
    expect(await read(denied)).toMatchObject({
      status: 'deny',
      reviewer_comment: 'use a branch',
      reviewer_user_id: bob,
    });
    const allowed = async (user: string, action: string, key: string) =>
      (
        await server.call(
          'POST',
          '/allowed',
          { user: { key: user }, action, resource: { type: 'document', key, tenant: 'acme' } },
          { key: ENV_KEY },
        )
      ).body.allow;
    expect(await allowed('dave', 'read', 'roadmap')).toBe(true);
    expect(await allowed('alice', 'write', 'readme')).toBe(false);
  }, 90_000);

  it('at 80 x 24: oldest first, tab counts, the tenant only, jj moves twice, the whole reason, Enter at [y/N] is no', async () => {
    // A second tenant bob also reviews: its request must not show in acme's queue.
    await server.facts('POST', '/tenants', { key: 'beta', name: 'Beta' });
    await server.facts('POST', '/role_assignments', { user: 'bob', role: 'approver', tenant: 'beta' });
    await server.facts('POST', '/tenants/beta/users', { key: 'dave' });
    await server.facts('POST', '/resource_instances', { key: 'plan', resource: 'document', tenant: 'beta' });
    const inBeta = await file('dave', 'viewer', 'plan', 'a request in beta', 'beta');
    // bob sees it when he asks for beta.
    expect((await server.facts('GET', `/access_requests/default/user/bob/tenant/beta/${inBeta}`)).status).toBe(200);
    const reason =
      'I need write access to the readme for the release on Friday: the install section still documents the old flags, the upgrade notes are missing and the examples do not run';
    const oldest = await file('alice', 'editor', 'readme', reason);
    await file('dave', 'viewer', 'readme', 'second');
    await file('alice', 'viewer', 'roadmap', 'third');
    start('small', 80, 24, ['--user', 'bob', '--tenant', 'acme']);
    const at = (name: string) => tmux('capture-pane', '-p', '-t', name);
    const keys = (...k: string[]) => tmux('send-keys', '-t', 'small', ...k);
    const type = (text: string) => tmux('send-keys', '-t', 'small', '-l', text);
    const seen = async (text: string | RegExp) => {
      const end = Date.now() + 30_000;
      for (;;) {
        const f = at('small');
        if (typeof text === 'string' ? f.replace(/\s+/g, ' ').includes(text) : text.test(f)) return f;
        if (Date.now() > end) throw new Error(`timed out waiting for ${text}; screen:\n${f}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };

    // The counts: 3 pending in acme (beta's is not counted), and the two decided above.
    let f = await seen('[1 pending (3)]');
    await seen('2 decided (2)');
    expect(f).toContain('oldest first');
    expect(f).not.toContain('in beta');
    f = await seen('1–3 of 3');
    const rows = f.split('\n').filter((l) => /^[› ] (alice|dave)/.test(l));
    // Oldest first: requester, role, instance of each row, in the order filed (the title names the tenant).
    expect(rows.map((l) => l.slice(2).trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'alice editor document:readme',
      'dave viewer document:readme',
      'alice viewer document:roadmap',
    ]);
    expect(f.split('\n').every((l) => l.length <= 80)).toBe(true);

    // Two keys in one write: the cursor moves twice.
    type('jj');
    await seen(/› alice\s+viewer\s+document:roadmap/);
    keys('g');
    await seen(/› alice\s+editor\s+document:readme/);

    // The details: the whole reason, wrapped at 80 columns.
    keys('Enter');
    f = await seen('examples do not run');
    expect(f.replace(/\s+/g, ' ')).toContain(`reason: ${reason}`);
    expect(f.split('\n').every((l) => l.length <= 80)).toBe(true);
    keys('Escape');
    await seen('1–3 of 3');

    // [y/N]: Enter answers no.
    keys('a');
    await seen('comment (optional)');
    keys('Enter');
    await seen('[y/N]');
    keys('Enter');
    await seen('nothing was changed');
    expect(await read(oldest)).toMatchObject({ status: null });
    keys('q');
    await seen('roster review: no decision made');
  }, 90_000);

  it('an unknown user or tenant is an error with the name meant, before the screen starts', async () => {
    start('unknown', 80, 24, ['--user', 'bbo', '--tenant', 'acm']);
    const end = Date.now() + 30_000;
    let f = '';
    while (!f.includes('did you mean "acme"?')) {
      f = tmux('capture-pane', '-p', '-J', '-t', 'unknown').replace(/\s+/g, ' ');
      if (Date.now() > end) throw new Error(`timed out; screen:\n${f}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(f).toContain('--user bbo: no user "bbo"');
    expect(f).toContain('did you mean "bob"?');
    expect(f).not.toContain('press R');
  }, 60_000);
});
