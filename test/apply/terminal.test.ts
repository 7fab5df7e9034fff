import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { cliEntry, ROOT } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The real `roster apply` in a pseudo-terminal (tmux) against the real server: the confirmation
 * prompts (y/N, and the environment's name with --prune and deletions) and the live progress view.
 * What was applied is read back through the API. Skipped, with the reason printed, where tmux is not
 * installed. CI is unset in the session: with CI set, apply would refuse to ask (docs/plan.md, Safety).
 */

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('skipping the roster apply terminal tests: tmux is not installed (apt-get install -y tmux)');

const SOCKET = `roster-apply-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/** One command in its own detached tmux session; the shell prints `[roster exited N]` when it ends. */
class Term {
  private static n = 0;
  readonly name = `apply${Term.n++}`;
  constructor(cwd: string, argv: string[], env: Record<string, string>) {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const command = ['env', '-u', 'CI', ...vars, process.execPath, ...cliEntry(), ...argv];
    // Wide enough that no plan line wraps; the sleep keeps the pane readable after the command ended.
    tmux(
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      cwd,
      `${command.map(quote).join(' ')}; echo "[roster exited $?]"; sleep 60`,
    );
  }
  screen(): string {
    return tmux('capture-pane', '-p', '-J', '-t', this.name, '-S', '-500');
  }
  /** Polls the pane until it shows `text` (whitespace-insensitive); returns the screen. */
  async until(text: string | RegExp, timeoutMs = 60_000): Promise<string> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      let s = '';
      try {
        s = this.screen();
      } catch {
        /* not up yet */
      }
      const flat = s.replace(/\s+/g, ' ');
      if (typeof text === 'string' ? flat.includes(text) : text.test(flat)) return s;
      if (Date.now() > end) throw new Error(`timed out waiting for ${String(text)}; screen:\n${s}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  /** Waits for the command to end; returns its exit code and the screen. */
  async exit(timeoutMs?: number): Promise<{ code: number; screen: string }> {
    const screen = await this.until(/\[roster exited \d+\]/, timeoutMs);
    return { code: Number(/\[roster exited (\d+)\]/.exec(screen)![1]), screen };
  }
  keys(...k: string[]): void {
    tmux('send-keys', '-t', this.name, ...k);
  }
  type(text: string): void {
    tmux('send-keys', '-t', this.name, '-l', text);
  }
  kill(): void {
    spawnSync('tmux', ['-L', SOCKET, 'kill-session', '-t', this.name]);
  }
}

/**
 * A pass-through proxy to the test server that can hold every write (non-GET) request until released,
 * so that the test sees the live progress view with changes in flight, without relying on timing.
 */
async function startGate(upstream: string) {
  const target = new URL(upstream);
  let held: (() => void)[] = [];
  let closed = true;
  let writes = 0;
  const server = http.createServer((req, res) => {
    const forward = () => {
      const up = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (req.method === 'GET') return forward();
    writes++;
    if (closed) held.push(forward);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Write requests waiting at the gate. */
    held: () => held.length,
    writes: () => writes,
    /** Lets `n` held requests through (all, and every later one, without `n`). */
    release(n?: number) {
      if (n === undefined) closed = false;
      const go = n === undefined ? held : held.slice(0, n);
      held = n === undefined ? [] : held.slice(n);
      for (const f of go) f();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const tenants = (...keys: string[]) =>
  `version: 1\ntenants:\n${keys.map((k) => `  ${k}: { name: ${k.toUpperCase()} }`).join('\n')}\n`;

describe.skipIf(!hasTmux)('roster apply on a terminal (tmux)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let dir: string;
  const terms: Term[] = [];
  const screens: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-apply-tty-'));
  });
  afterEach(() => {
    for (const t of terms.splice(0)) {
      try {
        screens.push(t.screen());
      } catch {
        /* gone */
      }
      t.kill();
    }
  });
  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    // Nothing on any screen ever showed the key.
    for (const s of screens) expect(s).not.toContain(ORG_KEY);
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const apply = (file: string, text: string, extra: string[] = [], url = server.url) => {
    writeFileSync(path.join(dir, file), text);
    const t = new Term(dir, ['apply', file, '--api-url', url, '--project', 'p', '--env', 'e', ...extra], {
      ROSTER_API_KEY: ORG_KEY,
      NO_COLOR: '1',
    });
    terms.push(t);
    return t;
  };
  const tenantStatus = async (key: string) => (await server.facts('GET', `/tenants/${key}`)).status;
  /** The prompts name the environment by its keys and the target by its host. */
  const on = () => `p/e on ${new URL(server.url).host}`;

  it('shows the plan and asks; n applies nothing, y applies', async () => {
    let t = apply('ask.yaml', tenants('asked1', 'asked2'));
    let s = await t.until(`Apply 2 changes to ${on()} (nobody's access changes)? [y/N]`);
    expect(s).toContain('+ tenant:asked1');
    expect(s).toContain('+ tenant:asked2');
    t.type('n');
    t.keys('Enter');
    let end = await t.exit();
    expect(end.code).toBe(1);
    expect(end.screen).toContain('error: not confirmed: nothing was applied');
    expect(end.screen).not.toContain('Applied');
    expect(await tenantStatus('asked1')).toBe(404);
    expect(await tenantStatus('asked2')).toBe(404);

    // Just Enter is the default, no.
    t = apply('ask.yaml', tenants('asked1', 'asked2'));
    await t.until('[y/N]');
    t.keys('Enter');
    end = await t.exit();
    expect(end.code).toBe(1);
    expect(end.screen).toContain('not confirmed');
    expect(await tenantStatus('asked1')).toBe(404);

    t = apply('ask.yaml', tenants('asked1', 'asked2'));
    await t.until(`Apply 2 changes to ${on()} (nobody's access changes)? [y/N]`);
    t.type('y');
    t.keys('Enter');
    end = await t.exit();
    expect(end.screen).toContain('Applied 2 of 2 changes');
    expect(end.code).toBe(0);
    expect(await tenantStatus('asked1')).toBe(200);
    expect(await tenantStatus('asked2')).toBe(200);
  });

  it('shows who gains access before asking, and the prompt says how many users it concerns', async () => {
    const config = `version: 1\nresources:\n  doc: { name: Doc, actions: [read] }\nroles:\n  reader: { name: Reader, permissions: [doc:read] }\ntenants:\n  shown: { name: Shown }\nusers:\n  vera: { tenants: [shown], roles: [reader] }\nresource_instances:\n  doc:d1: { tenant: shown }\n`;
    const t = apply('access.yaml', config);
    const s = await t.until(`to ${on()} (1 user gains or loses access: see above)? [y/N]`);
    expect(s.replace(/\s+/g, ' ')).toMatch(
      /Access changes: 1 user;.*\+1 user gains reader tenant-wide in shown, on doc:d1 .*vera/,
    );
    t.type('n');
    t.keys('Enter');
    expect((await t.exit()).code).toBe(1);
    expect(await tenantStatus('shown')).toBe(404);
  });

  it('takes Ctrl-D (end of input) or Ctrl-C at the prompt as no: nothing applied, exit 1, not an internal error', async () => {
    for (const key of ['C-d', 'C-c']) {
      const t = apply('eof.yaml', tenants('eof1'));
      await t.until(`Apply 1 change to ${on()} (nobody's access changes)? [y/N]`);
      t.keys(key);
      const end = await t.exit();
      expect(end.screen, key).toMatch(/\[y\/N\] *\n+error: not confirmed: nothing was applied/);
      expect(end.screen, key).not.toContain('internal error');
      expect(end.code, key).toBe(1);
      expect(await tenantStatus('eof1')).toBe(404);
    }
  });

  it('with --prune and deletions, asks for the environment name: a wrong name refuses, the right one applies', async () => {
    // Two tenants live that the configuration below drops.
    for (const key of ['gone1', 'gone2'])
      expect((await server.facts('POST', '/tenants', { key, name: key })).status).toBe(200);
    const live = (await server.facts('GET', '/tenants')).body;
    const keep = (Array.isArray(live) ? live : live.data)
      .map((x: { key: string }) => x.key)
      .filter((k: string) => !k.startsWith('gone'));
    const config = tenants(...keep, 'pruned1');

    let t = apply('prune.yaml', config, ['--prune']);
    let s = await t.until(
      `This plan deletes 2 objects in ${on()} (nobody's access changes). Type the environment's key (e) to apply:`,
    );
    expect(s).toContain('- tenant:gone1');
    expect(s).toContain('- tenant:gone2');
    expect(s).toContain('+ tenant:pruned1');
    t.type('p');
    t.keys('Enter');
    let end = await t.exit();
    expect(end.code).toBe(1);
    expect(end.screen).toContain('not confirmed: nothing was applied');
    expect(await tenantStatus('gone1')).toBe(200);
    expect(await tenantStatus('pruned1')).toBe(404);

    // `y` is not the name either.
    t = apply('prune.yaml', config, ['--prune']);
    await t.until("Type the environment's key (e) to apply:");
    t.type('y');
    t.keys('Enter');
    end = await t.exit();
    expect(end.code).toBe(1);
    expect(await tenantStatus('gone1')).toBe(200);

    t = apply('prune.yaml', config, ['--prune']);
    await t.until("Type the environment's key (e) to apply:");
    t.type('e');
    t.keys('Enter');
    end = await t.exit();
    // The configuration names the tenant 'default' (every environment comes with it): its name is updated too.
    expect(end.screen, end.screen).toContain('Applied 4 of 4 changes');
    expect(end.code).toBe(0);
    expect(await tenantStatus('gone1')).toBe(404);
    expect(await tenantStatus('gone2')).toBe(404);
    expect(await tenantStatus('pruned1')).toBe(200);
  });

  it('shows the live progress view: in-flight changes, then counts, then the summary', async () => {
    const gate = await startGate(server.url);
    try {
      const t = apply('progress.yaml', tenants('live1', 'live2', 'live3'), ['--yes'], gate.url);
      // All three creates are in flight (held at the gate): each shown live, none done.
      let s = await t.until(/(… create tenant:live\d .*){3}0\/3 done/);
      for (const k of ['live1', 'live2', 'live3']) expect(s).toContain(`… create tenant:${k}`);
      // (The view shows a change once it starts, a moment before its request reaches the gate.)
      await vi.waitFor(() => expect(gate.held()).toBe(3), { timeout: 10_000, interval: 20 });

      gate.release(1);
      s = await t.until('1/3 done');
      // One finished (scrolled into the static part), two still live, and an estimate of what is left.
      expect(s).toMatch(/^created tenant:live\d$/m);
      expect(s).toMatch(/1\/3 done · (about \d+ s|under a second) left/);
      expect(s.match(/… create tenant:live\d/g)).toHaveLength(2);

      gate.release();
      const end = await t.exit();
      expect(end.code).toBe(0);
      // The final frame stays: everything done, nothing in flight; the summary line follows it.
      expect(end.screen).toMatch(/3\/3 done\s*\n+\s*Applied 3 of 3 changes in \d+\.\ds\./);
      expect(end.screen).not.toMatch(/\n… create/);
      for (const k of ['live1', 'live2', 'live3']) {
        expect(end.screen.match(new RegExp(`^created tenant:${k}$`, 'gm'))).toHaveLength(1);
        expect(await tenantStatus(k)).toBe(200);
      }
      expect(gate.writes()).toBe(3);
    } finally {
      await gate.close();
    }
  });
});
