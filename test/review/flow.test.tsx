import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { ReviewApp } from '../../src/review/ui/App.js';
import { createReviewController, createReviewSource, type ReviewController } from '../../src/review/index.js';
import { createClient, type ApiClient, type ReadOptions } from '../../src/api/index.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { clientFor, fileRequest, readUserIds, seedReviewWorld } from './world.js';

/**
 * Flows over the real server and the real client: only the terminal (ink-testing-library) and the
 * clocks are fake. Each test files its own requests in a tenant of its own world.
 */

let server: TestServer;
let client: ApiClient;
let users: Awaited<ReturnType<typeof readUserIds>>;
let minute = 0;
const START = Date.parse('2026-03-01T09:00:00Z');
// Server clock: a minute per call, so "newest first" is deterministic.
const serverNow = () => new Date(START + minute++ * 60_000);
const NOW = START + 24 * 3600_000;

beforeAll(async () => {
  server = await startTestServer({ now: serverNow });
  await seedReviewWorld(server);
  client = clientFor(server);
  users = await readUserIds(server);
});
afterAll(async () => {
  await client.close();
  await server.close();
});
afterEach(() => cleanup());

interface Mounted {
  controller: ReviewController;
  frame(): string;
  press(...keys: string[]): Promise<void>;
  until(text: string | RegExp, timeoutMs?: number): Promise<string>;
}

const KEYS: Record<string, string> = {
  enter: '\r',
  esc: '\u001b',
  down: '\u001b[B',
  up: '\u001b[A',
  tab: '\t',
  backspace: '\u007f',
};

async function mount(
  user: string,
  o: { readonly?: boolean; perPage?: number; c?: ApiClient; order?: 'oldest' | 'newest' } = {},
): Promise<Mounted> {
  const source = createReviewSource({ client: o.c ?? client, user, tenant: 'acme' });
  const controller = createReviewController({
    source,
    user,
    tenant: 'acme',
    readonly: o.readonly,
    perPage: o.perPage,
    order: o.order ?? 'newest',
  });
  const ui = render(
    <ReviewApp store={controller} onKey={controller.key} onResize={controller.resize} now={() => NOW} color={false} />,
  );
  controller.dispatch({ type: 'start' });
  const frame = () => ui.lastFrame() ?? '';
  const until = async (text: string | RegExp, timeoutMs = 5000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const f = frame();
      // Messages wrap: compare strings with the frame's whitespace folded.
      if (typeof text === 'string' ? f.replace(/\s+/g, ' ').includes(text) : text.test(f)) return f;
      if (Date.now() > end) throw new Error(`timed out waiting for ${text}; last frame:\n${f}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const press = async (...keys: string[]) => {
    for (const k of keys) {
      ui.stdin.write(KEYS[k] ?? k);
      // Ink reads input asynchronously; let it land before the next key.
      await new Promise((r) => setTimeout(r, 15));
    }
    await controller.idle();
  };
  return { controller, frame, press, until };
}

/**
 * Uuids and ISO times replaced, so frames can be snapshotted; so is the count of detail lines below the
 * screen, which counts the fields our server sends beyond the public read model (shown as sent, and
 * not this test's subject).
 */
const stable = (f: string) =>
  f
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
    .replace(/… \d+ more lines/, '… <n> more lines');

async function requestOf(id: string) {
  const r = await server.facts('GET', `/access_requests/default/user/bob/tenant/acme/${id}`);
  return r.body as {
    status: string | null;
    reviewer_comment: string | null;
    reviewer_user_id: string | null;
    access_request_details: { role: string };
  };
}

async function allowed(user: string, action: string, key: string): Promise<boolean> {
  const r = await server.call(
    'POST',
    '/allowed',
    { user: { key: user }, action, resource: { type: 'document', key, tenant: 'acme' } },
    { key: ENV_KEY },
  );
  return (r.body as { allow: boolean }).allow;
}

async function clearQueue() {
  // Deny whatever is still pending so each test starts from its own requests.
  const r = await server.facts('GET', `/access_requests/default/user/bob/tenant/acme?status=pending&per_page=100`);
  for (const x of (r.body as { data: { id: string; requesting_user_id: string }[] }).data) {
    // A reviewer's own requests are canceled by them (no self-review); the others denied.
    const requester = users.keyOf(x.requesting_user_id)!;
    if (['bob', 'carol'].includes(requester))
      await server.facts('PUT', `/access_requests/default/user/${requester}/tenant/acme/${x.id}/cancel`, {});
    else
      await server.facts('PUT', `/access_requests/default/user/carol/tenant/acme/${x.id}/deny`, {
        reviewer_comment: 'cleanup',
      });
  }
}

describe('roster review flows (real server)', () => {
  it('renders the queue, moves, opens details, approves with a comment', async () => {
    await clearQueue();
    const readme = await fileRequest(
      server,
      'alice',
      { role: 'editor', resource: 'document', resource_instance: 'readme' },
      'fix the release notes',
    );
    await fileRequest(
      server,
      'dave',
      { role: 'viewer', resource: 'document', resource_instance: 'roadmap' },
      'onboarding',
    );
    const ui = await mount('bob');
    // The tabs' counts arrive on their own reads, after the page: the snapshot waits for both.
    await ui.until('1–2 of 2');
    expect(stable(await ui.until('decided (0)'))).toMatchSnapshot('queue');
    await ui.press('j');
    expect(ui.frame()).toMatch(/› alice\s+editor\s+document:readme/);
    await ui.press('enter');
    // The whole environment read: the full view, not the partial one shown until then.
    const details = await ui.until('set rules on stored attributes included; R reads it again');
    expect(details).toContain('+ editor: document:write on document:readme');
    expect(details).toContain("alice's roles in acme: viewer on document:readme");
    expect(stable(details)).toMatchSnapshot('details');
    await ui.press('a', 'ship it', 'enter');
    await ui.until(`Approve alice's request for editor on document:readme with comment "ship it"? [y/N]`);
    expect(await allowed('alice', 'write', 'readme')).toBe(false);
    await ui.press('y');
    await ui.until(
      "✓ approved alice's request for editor on document:readme: alice now holds editor on document:readme",
    );
    expect(await requestOf(readme)).toMatchObject({
      status: 'approved',
      reviewer_comment: 'ship it',
      reviewer_user_id: users.id.bob,
    });
    expect(await allowed('alice', 'write', 'readme')).toBe(true);
  });

  it('denies, and changes the role before approving', async () => {
    await clearQueue();
    const deny = await fileRequest(
      server,
      'dave',
      { role: 'editor', resource: 'document', resource_instance: 'readme' },
      'want to edit',
    );
    const asViewer = await fileRequest(
      server,
      'dave',
      { role: 'editor', resource: 'document', resource_instance: 'roadmap' },
      'just reading really',
    );
    const ui = await mount('bob');
    await ui.until('1–2 of 2');
    // Newest first: roadmap, then readme.
    await ui.press('j', 'd', 'no', 'enter', 'y');
    await ui.until("✓ denied dave's request for editor on document:readme");
    expect(await requestOf(deny)).toMatchObject({
      status: 'deny',
      reviewer_comment: 'no',
      reviewer_user_id: users.id.bob,
    });
    await ui.press('k', 'r');
    expect(stable(await ui.until('Approve as which role? (asked: editor)'))).toContain('› editor (asked)');
    await ui.press('down', 'enter', 'enter', 'y');
    await ui.until("✓ approved dave's request for viewer on document:roadmap");
    expect(await requestOf(asViewer)).toMatchObject({ status: 'approved', access_request_details: { role: 'viewer' } });
    expect(await allowed('dave', 'read', 'roadmap')).toBe(true);
    expect(await allowed('dave', 'write', 'roadmap')).toBe(false);
  });

  it('a 409: someone else decided first; the new status shows and the app goes on', async () => {
    await clearQueue();
    const id = await fileRequest(server, 'alice', {
      role: 'editor',
      resource: 'document',
      resource_instance: 'roadmap',
    });
    const ui = await mount('bob');
    await ui.until('1–1 of 1');
    await server.facts('PUT', `/access_requests/default/user/carol/tenant/acme/${id}/deny`, {
      reviewer_comment: 'too late',
    });
    await ui.press('a', 'enter', 'y');
    const f = await ui.until('already denied by carol; nothing changed');
    // No longer pending: it leaves the pending queue at once; decided lists it, denied by carol.
    expect(f).not.toMatch(/› alice/);
    await ui.until('no pending request');
    await ui.press('2');
    await ui.until(/› alice\s+editor\s+document:roadmap\s+\S+\s+denied/);
    await ui.press('enter');
    await ui.until('denied by carol');
    expect(ui.frame()).not.toContain('If approved');
  });

  it('pages forward as the user scrolls, with the total shown', async () => {
    await clearQueue();
    for (let i = 0; i < 23; i++)
      await fileRequest(
        server,
        'dave',
        { role: 'viewer', resource: 'document', resource_instance: i % 2 ? 'readme' : 'roadmap' },
        `request ${i}`,
      );
    const ui = await mount('bob', { perPage: 10 });
    await ui.until('1–16 of 23 · page 1/3');
    await ui.press('G');
    const f = await ui.until('8–23 of 23 · page 3/3');
    expect(f).toMatch(/› dave.*request 0$/m);
    await ui.press('g');
    await ui.until(/› dave.*request 22$/m);
  });

  it('filters by role and by requester, and switches to the mine view', async () => {
    await clearQueue();
    await fileRequest(
      server,
      'alice',
      { role: 'viewer', resource: 'document', resource_instance: 'roadmap' },
      'alice wants to read',
    );
    await fileRequest(
      server,
      'dave',
      { role: 'editor', resource: 'document', resource_instance: 'roadmap' },
      'dave wants to write',
    );
    await fileRequest(
      server,
      'bob',
      { role: 'editor', resource: 'document', resource_instance: 'readme' },
      'bob wants to write',
    );
    const ui = await mount('bob');
    await ui.until('1–3 of 3 · page 1/1');
    await ui.press('/', 'role:editor', 'enter');
    let f = await ui.until('1–2 of 2 · page 1/1');
    expect(f).toContain('filter: role:editor');
    expect(f).not.toContain('alice wants');
    // @user is a user key matched here, exactly (so a prefix matches nobody).
    await ui.press('/', ...Array(11).fill('backspace'), '@dav', 'enter');
    await ui.until('no request matches the filter');
    await ui.press('/', 'e', 'enter');
    f = await ui.until(/^1–1 of 1$/m);
    expect(f).toContain('dave wants');
    expect(f).not.toMatch(/alice wants|bob wants/);
    await ui.press('esc');
    await ui.until('1–3 of 3 · page 1/1');
    await ui.press('3');
    f = await ui.until(/^1–1 of 1$/m);
    expect(f).toContain('[3 mine (1)]');
    expect(f).toMatch(/› bob \(you\)\s+editor\s+document:readme/);
    expect(f).not.toMatch(/alice wants|dave wants/);
    await ui.press('a');
    expect(ui.frame()).toContain('this is your own request: someone else reviews it (x cancels it)');
  });

  it('mine and @user are matched here: only the declared filters are sent, totals once read', async () => {
    await clearQueue();
    for (let i = 0; i < 20; i++)
      await fileRequest(
        server,
        'carol',
        { role: 'viewer', resource: 'document', resource_instance: 'roadmap' },
        `carol ${i}`,
      );
    for (let i = 0; i < 5; i++)
      await fileRequest(
        server,
        'dave',
        { role: 'viewer', resource: 'document', resource_instance: 'readme' },
        `dave ${i}`,
      );
    const lists: Record<string, unknown>[] = [];
    const userReads: string[] = [];
    const counting: ApiClient = {
      ...client,
      get: (path: string, o?: ReadOptions) => {
        // What goes on the wire: the client leaves out undefined and null values.
        const query = Object.fromEntries(
          Object.entries(o?.query ?? {}).filter(([, v]) => v !== undefined && v !== null),
        );
        if (path.includes('/access_requests/')) lists.push(query);
        if (path.startsWith('/v2/facts/p/e/users/')) userReads.push(path.slice('/v2/facts/p/e/users/'.length));
        return client.get(path, o);
      },
    };
    // Everything carol sees in every status: these 25 and the earlier tests' requests she reviews.
    const seen = (await server.facts('GET', '/access_requests/default/user/carol/tenant/acme?per_page=1')).body
      .total_count as number;
    expect(seen).toBeGreaterThanOrEqual(25);
    const ui = await mount('carol', { perPage: 5, c: counting });
    await ui.until('1–16 of 25 · page 1/5');
    await ui.press('3');
    // Her own are 20 (fewer than two screens): everything she sees is read and her own kept.
    let f = await ui.until(/^1–16 of 20$/m);
    expect(f).toMatch(/› carol \(you\)\s+viewer\s+document:roadmap.*carol 19$/m);
    expect(f).not.toContain('dave');
    await ui.press('G');
    f = await ui.until(/^5–20 of 20$/m);
    expect(f).toMatch(/› carol \(you\).*carol 0$/m);
    // Mine is one list in every status, read page by page, each page once.
    const mine = lists.filter((q) => q.status === undefined);
    expect(mine).toEqual(Array.from({ length: Math.ceil(seen / 5) }, (_, i) => ({ page: i + 1, per_page: 5 })));
    await ui.press('1', '/', '@dave', 'enter');
    f = await ui.until(/^1–5 of 5$/m);
    expect(f).toMatch(/› dave\s+viewer\s+document:readme.*dave 4$/m);
    expect(f).not.toMatch(/carol \d+$/m);
    expect(lists.at(-1)).toEqual({ status: 'pending', page: 5, per_page: 5 });
    // In mine, someone else's @user matches nothing, and nothing is asked.
    const before = lists.length;
    await ui.press('3');
    await ui.until('no request matches the filter');
    expect(lists.length).toBe(before);
    // The public list declares these filters and ignores any other: nothing else was sent.
    const declared = ['status', 'role', 'resource', 'resource_instance_id', 'page', 'per_page'];
    expect(lists.flatMap((q) => Object.keys(q)).filter((k) => !declared.includes(k))).toEqual([]);
    // Users are named by id and looked up by id (how often: test/review/source.test.ts).
    expect(userReads).toEqual(expect.arrayContaining([users.id.carol, users.id.dave]));
    expect(userReads.filter((id) => !Object.values(users.id).includes(id))).toEqual([]);
  });

  it('a network error shows a retry hint and the app does not exit', async () => {
    await clearQueue();
    const id = await fileRequest(server, 'dave', { role: 'viewer', resource: 'document', resource_instance: 'readme' });
    // Refused at once, and not waited out (minSilenceMs 0; the default 8 s is src/api/breaker.ts's, tested
    // in test/apply/faults.test.ts): this test is about the hint the screen shows.
    const dead = createClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      retries: 0,
      minSilenceMs: 0,
    });
    const good = await mount('bob');
    await good.until('1–1 of 1');
    // The same screen, but decisions go to a dead address.
    const source = createReviewSource({ client: dead, user: 'bob', tenant: 'acme' });
    const broken = createReviewController({ source, user: 'bob', tenant: 'acme' });
    broken.dispatch({
      type: 'pageLoaded',
      gen: 1,
      fetch: { source: 0, page: 1 },
      items: [await createReviewSource({ client, user: 'bob', tenant: 'acme' }).get(id)],
      total: 1,
    });
    const ui = render(
      <ReviewApp store={broken} onKey={broken.key} onResize={broken.resize} now={() => NOW} color={false} />,
    );
    for (const k of ['d', '\r', 'y']) {
      ui.stdin.write(k);
      await new Promise((r) => setTimeout(r, 15));
    }
    await broken.idle();
    await new Promise((r) => setTimeout(r, 20));
    expect(ui.lastFrame()!.replace(/\s+/g, ' ')).toContain(
      'could not reach the service (NETWORK_ERROR: ECONNREFUSED): nothing was changed; press d to try again',
    );
    expect(broken.getState().quit).toBe(false);
    expect((await requestOf(id)).status).toBe(null);
    await dead.close();
  });

  it('--readonly: decision keys do nothing', async () => {
    await clearQueue();
    const id = await fileRequest(server, 'dave', { role: 'viewer', resource: 'document', resource_instance: 'readme' });
    const ui = await mount('bob', { readonly: true });
    await ui.until('1–1 of 1');
    await ui.press('a', 'enter', 'y', 'd', 'x', 'c', 'r');
    expect(ui.frame()).toContain('read-only (--readonly): decision keys are off');
    expect((await requestOf(id)).status).toBe(null);
  });
});
