import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { startProxy, type Proxy } from '../../bench/proxy.js';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { createWaitingNotices } from '../../src/usecases/waiting.js';
import { renderReview } from '../../src/review/index.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { fileRequest, seedReviewWorld } from './world.js';

/**
 * A slow service under `roster review`: the client's "still waiting for …" notices go to the review's
 * status line while the UI is mounted (a line on stderr would land in the middle of Ink's frame), and
 * back to stderr once it is gone. The real server behind a proxy that delays every answer; the terminal
 * (ink-testing-library, stderr) is the only fake, and the notice interval is shortened to keep the test
 * short.
 */
let server: TestServer;
let proxy: Proxy;
const clients: ApiClient[] = [];

beforeAll(async () => {
  server = await startTestServer();
  await seedReviewWorld(server);
  await fileRequest(
    server,
    'alice',
    { role: 'editor', resource: 'document', resource_instance: 'readme' },
    'release notes',
  );
  proxy = await startProxy({ upstream: server.url, latencyMs: 600 });
});
afterEach(async () => {
  cleanup();
  vi.restoreAllMocks();
  for (const c of clients.splice(0)) await c.close();
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

/** What is written to stderr (the terminal's), captured instead of printed. */
function captureStderr(): string[] {
  const written: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  return written;
}

async function until(check: () => boolean, what: () => string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('still waiting for a slow answer', { timeout: 30_000 }, () => {
  it('shows on the review status line while it is mounted, never on stderr; on stderr again after quitting', async () => {
    const stderr = captureStderr();
    const notices = createWaitingNotices();
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      onWaiting: notices.onWaiting,
      waitingNoticeMs: 200,
    });
    clients.push(client);
    let ui!: ReturnType<typeof render>;
    const frame = () => (ui?.lastFrame() ?? '').replace(/\s+/g, ' ');
    const review = renderReview({
      client,
      user: 'bob',
      tenant: 'acme',
      color: false,
      routeWaiting: notices.route,
      mount: (app) => (ui = render(app)),
    });

    // The first reads take 600 ms each: the notice shows on the status line, naming a request and the time.
    await until(() => frame().includes('still waiting for the service:'), frame);
    expect(frame()).toMatch(
      /still waiting for the service: \d+ s so far \(attempt 1, gives up after 120 s; --timeout\) · GET \/v2\//,
    );
    // Once the answers are in, the status line is the position again.
    await until(() => frame().includes('1–1 of 1') && !frame().includes('still waiting'), frame);
    expect(frame()).toMatch(/alice\s+editor\s+document:readme/);
    expect(ui.frames.some((f) => f.includes('still waiting for the service'))).toBe(true);
    expect(stderr.filter((l) => l.includes('still waiting'))).toEqual([]);

    ui.stdin.write('q');
    await review;

    // Unmounted: a slow read says so on stderr, as every other command does.
    await client.get('/v2/facts/p/e/users/bob');
    const lines = stderr.filter((l) => l.includes('still waiting'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(
      /^still waiting for GET \/v2\/facts\/p\/e\/users\/bob: \d+ s so far \(attempt 1, gives up after 120 s; --timeout\)\n$/,
    );
  });

  it('a notice that comes while a decision is slow shows until the decision is answered', async () => {
    captureStderr();
    const notices = createWaitingNotices();
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      onWaiting: notices.onWaiting,
      waitingNoticeMs: 200,
    });
    clients.push(client);
    let ui!: ReturnType<typeof render>;
    const frame = () => (ui?.lastFrame() ?? '').replace(/\s+/g, ' ');
    const review = renderReview({
      client,
      user: 'bob',
      tenant: 'acme',
      color: false,
      routeWaiting: notices.route,
      mount: (app) => (ui = render(app)),
    });
    await until(() => frame().includes('1–1 of 1') && !frame().includes('still waiting'), frame);
    const press = async (key: string) => {
      ui.stdin.write(key);
      await new Promise((r) => setTimeout(r, 30));
    };
    await press('a');
    await press('\r');
    await press('y');
    // The status line is cut at the terminal's width: the path's start is what shows at 80 columns.
    await until(
      () =>
        /approving alice's request/.test(frame()) &&
        /still waiting for the service: \d+ s so far .* · PUT \/v2\//.test(frame()),
      frame,
    );
    await until(() => frame().includes("approved alice's request") && !frame().includes('still waiting'), frame);
    ui.stdin.write('q');
    expect((await review).log.map((e) => e.text)).toEqual([
      expect.stringContaining("approved alice's request for editor on document:readme"),
    ]);
  });
});
