import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { readUserIds, seedReviewWorld } from './world.js';

/**
 * The real `roster review` in a pseudo-terminal (tmux) against the real server: requests filed with
 * `roster requests create`, one approved and one denied through keystrokes, the outcome read back
 * through the API. Skipped, with the reason printed, where tmux is not installed.
 */

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('skipping the roster review end-to-end test: tmux is not installed (apt-get install -y tmux)');

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

  it('approves one request and denies another through keystrokes', async () => {
    const file = async (user: string, role: string, instance: string, reason: string) => {
      const r = await runCli(['requests', 'create', '--user', user, '--tenant', 'acme', '--role', role, '--resource', 'document', '--instance', instance, '--reason', reason, '--format', 'json', ...target()], { env: { ROSTER_API_KEY: ORG_KEY } });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).id as string;
    };
    const denied = await file('alice', 'editor', 'readme', 'fix the release notes');
    const approved = await file('dave', 'viewer', 'roadmap', 'onboarding');

    // `env -u CI`: the test runner may run under CI, and the review refuses to start there.
    const command = ['env', '-u', 'CI', `ROSTER_API_KEY=${ORG_KEY}`, 'NO_COLOR=1', process.execPath, '--import', 'tsx', path.join(ROOT, 'src/cli/run.ts'), 'review', '--user', 'bob', '--tenant', 'acme', ...target()];
    tmux('new-session', '-d', '-s', SESSION, '-x', '100', '-y', '30', '-c', ROOT, command.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ') + '; sleep 30');

    let s = await until('1–2 of 2');
    expect(s).toMatch(/› dave\s+viewer\s+document:roadmap/);
    keys('a');
    await until('comment (optional)');
    type('welcome aboard');
    keys('Enter');
    await until(`with comment "welcome aboard"? [y/N]`);
    keys('y');
    await until("✓ approved dave's request for viewer on document:roadmap");

    keys('j');
    await until('› alice');
    keys('d');
    await until('comment (optional)');
    type('use a branch');
    keys('Enter');
    await until('[y/N]');
    keys('y');
    s = await until("✓ denied alice's request for editor on document:readme");
    expect(s).not.toContain(ORG_KEY);
    keys('q');
    s = await until('roster review: 2 decisions recorded');
    expect(s).not.toContain(ORG_KEY);

    // The public read model names the reviewer by id.
    const bob = (await readUserIds(server)).id.bob;
    const read = async (id: string) => (await server.facts('GET', `/access_requests/default/user/bob/tenant/acme/${id}`)).body;
    expect(await read(approved)).toMatchObject({ status: 'approved', reviewer_comment: 'welcome aboard', reviewer_user_id: bob });
    expect(await read(denied)).toMatchObject({ status: 'deny', reviewer_comment: 'use a branch', reviewer_user_id: bob });
    const allowed = async (user: string, action: string, key: string) =>
      (await server.call('POST', '/allowed', { user: { key: user }, action, resource: { type: 'document', key, tenant: 'acme' } }, { key: ENV_KEY })).body.allow;
    expect(await allowed('dave', 'read', 'roadmap')).toBe(true);
    expect(await allowed('alice', 'write', 'readme')).toBe(false);
  }, 90_000);
});
