import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import {
  LIST_PARAMS,
  readUserIds,
  seedReviewWorld,
  startRecordedWorld,
  startRecorder,
  type RecordedWorld,
  type SeenRequest,
} from '../review/world.js';

/**
 * `roster requests` and the non-terminal path of `roster review`, as a user runs them, against the real
 * server, through a proxy that records what the CLI sends.
 */

let world: RecordedWorld;
let server: TestServer;
let recorder: RecordedWorld['recorder'];
let users: RecordedWorld['users'];
beforeAll(async () => {
  world = await startRecordedWorld();
  ({ server, recorder, users } = world);
});
afterAll(() => world.close());

const cli = (args: string[]) =>
  runCli([...args, '--api-url', recorder.url, '--project', 'p', '--env', 'e'], { env: { ROSTER_API_KEY: ORG_KEY } });

/** The list reads among `seen`, as `{page, per_page, ...}` objects (a parameter given twice would show as an array). */
const listReads = (seen: SeenRequest[]) =>
  seen
    .filter((r) => r.method === 'GET' && /\/access_requests\/default\/user\/[^/]+\/tenant\/acme$/.test(r.path))
    .map((r) => Object.fromEntries(r.query));

/** Query parameters the public list does not declare (and would ignore), among the list reads of `seen`. */
const undeclared = (seen: SeenRequest[]) =>
  listReads(seen)
    .flatMap((q) => Object.keys(q))
    .filter((k) => !LIST_PARAMS.includes(k));

const noKey = (r: { stdout: string; stderr: string }) => expect(r.stdout + r.stderr).not.toContain(ORG_KEY);

async function allowed(user: string, action: string, key: string): Promise<boolean> {
  const r = await server.call(
    'POST',
    '/allowed',
    { user: { key: user }, action, resource: { type: 'document', key, tenant: 'acme' } },
    { key: ENV_KEY },
  );
  return (r.body as { allow: boolean }).allow;
}

describe('roster requests', { timeout: 120_000 }, () => {
  let readme: string;
  let roadmap: string;

  it('create: a requester files a request (text and json)', async () => {
    const text = await cli([
      'requests',
      'create',
      '--user',
      'alice',
      '--tenant',
      'acme',
      '--role',
      'editor',
      '--resource',
      'document',
      '--instance',
      'readme',
      '--reason',
      'release notes',
    ]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^created access request [0-9a-f-]{36}\n/);
    expect(text.stdout).toMatch(/ {2}status {11}pending\n/);
    // The read model names the requester by id; the CLI shows the key.
    expect(text.stdout).toMatch(/ {2}requester {8}alice\n/);
    readme = /request ([0-9a-f-]{36})/.exec(text.stdout)![1];
    const json = await cli([
      'requests',
      'create',
      '--user',
      'dave',
      '--tenant',
      'acme',
      '--role',
      'editor',
      '--instance',
      'document:roadmap',
      '--format',
      'json',
    ]);
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({
      requesting_user_id: users.id.dave,
      status: null,
      access_request_details: { role: 'editor', resource: 'document', resource_instance: 'roadmap' },
    });
    roadmap = body.id;
    noKey(text);
  });

  it('list: filters and paging, text and json', async () => {
    const all = await cli([
      'requests',
      'list',
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--status',
      'pending',
      '--format',
      'json',
    ]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ total_count: 2, data: [{ id: roadmap }, { id: readme }] });
    const text = await cli([
      'requests',
      'list',
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--resource',
      'document',
      '--instance',
      'readme',
      '--per-page',
      '1',
    ]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+REQUESTER\s+TENANT\s+ROLE\s+RESOURCE\/INSTANCE\s+AGE\s+REASON$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${readme}\\s+pending\\s+alice\\s+acme\\s+editor\\s+document:readme\\s+\\d+s\\s+release notes$`),
    );
    expect(lines[2]).toBe('1–1 of 1 · page 1/1');
    expect(listReads(recorder.seen).at(-1)).toEqual({
      page: '1',
      per_page: '1',
      resource: 'document',
      resource_instance_id: 'document:readme',
    });
    // The requester sees only their own.
    const mine = await cli([
      'requests',
      'list',
      '--user',
      'alice',
      '--tenant',
      'acme',
      '--format',
      'json',
      '--page',
      '1',
      '--per-page',
      '10',
    ]);
    expect(JSON.parse(mine.stdout).data.map((r: { id: string }) => r.id)).toEqual([readme]);
  });

  it("list --requester: one requester's requests, picked from what the user sees, never asked of the service", async () => {
    const n = recorder.seen.length;
    const dave = await cli([
      'requests',
      'list',
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--requester',
      'dave',
      '--format',
      'json',
    ]);
    expect(dave.code).toBe(0);
    expect(JSON.parse(dave.stdout)).toEqual({
      total_count: 1,
      page_count: 1,
      data: [expect.objectContaining({ id: roadmap, requesting_user_id: users.id.dave })],
    });
    // One page of the service's list (100 rows, the public maximum) held everything: read once, without a requester.
    expect(listReads(recorder.seen.slice(n))).toEqual([{ page: '1', per_page: '100' }]);
    const text = await cli([
      'requests',
      'list',
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--requester',
      'alice',
      '--status',
      'pending',
      '--per-page',
      '1',
    ]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${readme}\\s+pending\\s+alice\\s`));
    expect(lines[2]).toBe('1–1 of 1 · page 1/1');
    expect(listReads(recorder.seen.slice(n)).at(-1)).toEqual({ page: '1', per_page: '100', status: 'pending' });
    // alice sees only her own: filtering on dave finds nothing.
    const other = await cli(['requests', 'list', '--user', 'alice', '--tenant', 'acme', '--requester', 'dave']);
    expect({ code: other.code, stdout: other.stdout }).toEqual({ code: 0, stdout: 'no access request\n' });
    expect(undeclared(recorder.seen)).toEqual([]);
  });

  it('approve with a comment grants the role; approving again is refused with the API error (exit 1)', async () => {
    expect(await allowed('alice', 'write', 'readme')).toBe(false);
    const ok = await cli(['requests', 'approve', readme, '--user', 'bob', '--tenant', 'acme', '--comment', 'go ahead']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^approved access request/);
    expect(ok.stdout).toMatch(/reviewer comment +go ahead/);
    expect(await allowed('alice', 'write', 'readme')).toBe(true);
    const again = await cli(['requests', 'approve', readme, '--user', 'carol', '--tenant', 'acme']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(
      /^error: the service refused a request: PUT \/v2\/facts\/p\/e\/access_requests\/default\/user\/carol\/tenant\/acme\/[0-9a-f-]+\/approve answered 409 CONFLICT: access request is no longer pending \(status: approved\)/,
    );
    noKey(again);
  });

  it('a requester may not approve their own; update, deny, get and cancel', async () => {
    const own = await cli(['requests', 'approve', roadmap, '--user', 'dave', '--tenant', 'acme']);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('403');
    const upd = await cli([
      'requests',
      'update',
      roadmap,
      '--user',
      'carol',
      '--tenant',
      'acme',
      '--comment',
      'which part?',
      '--role',
      'viewer',
      '--format',
      'json',
    ]);
    expect(upd.code).toBe(0);
    expect(JSON.parse(upd.stdout)).toMatchObject({
      status: null,
      reviewer_comment: 'which part?',
      access_request_details: { role: 'viewer' },
    });
    const deny = await cli(['requests', 'deny', roadmap, '--user', 'carol', '--tenant', 'acme', '--comment', 'no']);
    expect(deny.code).toBe(0);
    const get = await cli(['requests', 'get', roadmap, '--user', 'dave', '--tenant', 'acme', '--format', 'json']);
    expect(JSON.parse(get.stdout)).toMatchObject({
      status: 'deny',
      reviewer_comment: 'no',
      reviewer_user_id: users.id.carol,
    });
    const getText = await cli(['requests', 'get', roadmap, '--user', 'dave', '--tenant', 'acme']);
    expect(getText.stdout).toMatch(/ {2}status {11}denied\n {2}requester {8}dave\n/);
    expect(getText.stdout).toMatch(/ {2}reviewer {9}carol\n/);
    const created = JSON.parse(
      (await cli(['requests', 'create', '--user', 'dave', '--tenant', 'acme', '--role', 'viewer', '--format', 'json']))
        .stdout,
    );
    const cancel = await cli([
      'requests',
      'cancel',
      created.id,
      '--user',
      'dave',
      '--tenant',
      'acme',
      '--reason',
      'not needed',
      '--format',
      'json',
    ]);
    expect(cancel.code).toBe(0);
    // The public read model has no field for the reason: the status says it is canceled.
    expect(JSON.parse(cancel.stdout)).toMatchObject({
      id: created.id,
      status: 'cancel',
      requesting_user_id: users.id.dave,
    });
    const sent = recorder.seen.filter((r) => r.method === 'PUT' && r.path.endsWith(`/${created.id}/cancel`));
    expect(sent).toHaveLength(1);
  });

  it('input errors exit 1 with a message', async () => {
    const format = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--format', 'yaml']);
    expect({ code: format.code, stderr: format.stderr }).toEqual({
      code: 1,
      stderr: 'error: unknown --format "yaml": use text or json\n',
    });
    const status = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--status', 'maybe']);
    expect(status.stderr).toBe('error: unknown --status "maybe": use pending, approved, denied or canceled\n');
  });
});

describe('roster requests list --requester over several pages of the service', { timeout: 120_000 }, () => {
  let big: TestServer;
  let rec: Awaited<ReturnType<typeof startRecorder>>;
  let ids: Awaited<ReturnType<typeof readUserIds>>['id'];
  /** Each requester's request ids, newest first (the list's order). */
  const filed: Record<string, string[]> = { alice: [], dave: [] };

  beforeAll(async () => {
    // A second per call of the server's clock, so that the list's order (newest first) is the filing order.
    let tick = 0;
    big = await startTestServer({ now: () => new Date(Date.UTC(2026, 2, 1) + tick++ * 1000) });
    await seedReviewWorld(big);
    ids = (await readUserIds(big)).id;
    // 250 requests, two in five alice's: 40 of hers on each of the service's first two pages of 100, 20 on the last.
    for (let i = 0; i < 250; i++) {
      const who = i % 5 === 0 || i % 5 === 3 ? 'alice' : 'dave';
      const r = await big.facts('POST', `/access_requests/default/user/${who}/tenant/acme`, {
        access_request_details: { tenant: 'acme', role: 'viewer', resource: 'document', resource_instance: 'roadmap' },
        reason: `${who} ${i}`,
      });
      if (r.status !== 200) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
      filed[who].unshift(r.body.id);
    }
    rec = await startRecorder(big.url);
  });
  afterAll(async () => {
    await rec.close();
    await big.close();
  });

  const list = async (...args: string[]) => {
    const n = rec.seen.length;
    const r = await runCli(
      [
        'requests',
        'list',
        '--user',
        'bob',
        '--tenant',
        'acme',
        ...args,
        '--api-url',
        rec.url,
        '--project',
        'p',
        '--env',
        'e',
      ],
      { env: { ROSTER_API_KEY: ORG_KEY } },
    );
    // 150 identical requests by dave, 100 by alice: warned about as duplicates, on stderr only.
    expect(r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning: '))).toEqual([]);
    expect(r.code).toBe(0);
    noKey(r);
    return { ...r, seen: rec.seen.slice(n) };
  };
  const pages = (seen: SeenRequest[]) => listReads(seen).map((q) => Number(q.page));
  // Lookups of users by id (the acting user's check, by key, is not one).
  const lookups = (seen: SeenRequest[]) =>
    seen
      .filter((r) => r.path.startsWith('/v2/facts/p/e/users/'))
      .map((r) => r.path.slice('/v2/facts/p/e/users/'.length))
      .filter((x) => x.includes('-'));

  it('a page past the first server page: the right rows, counted once the list has ended', async () => {
    expect(filed.alice).toHaveLength(100);
    const r = await list('--requester', 'alice', '--per-page', '30', '--page', '3', '--format', 'json');
    const body = JSON.parse(r.stdout);
    expect(body.data.map((x: { id: string }) => x.id)).toEqual(filed.alice.slice(60, 90));
    expect(body.data.every((x: { requesting_user_id: string }) => x.requesting_user_id === ids.alice)).toBe(true);
    // 90 rows needed: pages 1 and 2 held 80, page 3 (the last) the rest; the total is hers, not the service's 250.
    expect(body).toMatchObject({ total_count: 100, page_count: 4 });
    expect(listReads(r.seen)).toEqual([1, 2, 3].map((page) => ({ page: String(page), per_page: '100' })));
    expect(undeclared(r.seen)).toEqual([]);
    // Each requester looked up once, over three pages.
    expect(lookups(r.seen).sort()).toEqual([ids.alice, ids.dave].sort());
  });

  it('reads only the service pages it needs: a first page full before the list ends has no total', async () => {
    const r = await list('--requester', 'alice', '--per-page', '30');
    expect(pages(r.seen)).toEqual([1]);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(32);
    expect(lines.slice(1, 31).map((l) => l.split(/\s+/)[0])).toEqual(filed.alice.slice(0, 30));
    expect(lines.slice(1, 31).every((l) => /^\S+\s+pending\s+alice\s+acme\s+viewer\s+document:roadmap\s/.test(l))).toBe(
      true,
    );
    expect(lines[31]).toBe('1–30');
    const json = JSON.parse((await list('--requester', 'alice', '--per-page', '30', '--format', 'json')).stdout);
    expect(json).toEqual({ data: expect.any(Array) });
    expect(json.data).toHaveLength(30);
  });

  it('the last page of the other requester, and pages past the end', async () => {
    const dave = await list('--requester', 'dave', '--per-page', '100', '--page', '2', '--format', 'json');
    expect(JSON.parse(dave.stdout)).toMatchObject({ total_count: 150, page_count: 2 });
    expect(JSON.parse(dave.stdout).data.map((x: { id: string }) => x.id)).toEqual(filed.dave.slice(100, 150));
    expect(pages(dave.seen)).toEqual([1, 2, 3]);
    const past = await list('--requester', 'alice', '--per-page', '30', '--page', '5');
    expect(past.stdout).toBe('no access request on page 5\n');
    expect(pages(past.seen)).toEqual([1, 2, 3]);
    const nobody = await list('--requester', 'carol');
    expect(nobody.stdout).toBe('no access request\n');
    expect(pages(nobody.seen)).toEqual([1, 2, 3]);
    // With the service's own filters: pending only, the same rows (all are pending).
    const pending = await list(
      '--requester',
      'alice',
      '--status',
      'pending',
      '--per-page',
      '50',
      '--page',
      '2',
      '--format',
      'json',
    );
    expect(JSON.parse(pending.stdout).data.map((x: { id: string }) => x.id)).toEqual(filed.alice.slice(50, 100));
    expect(listReads(pending.seen)).toEqual(
      [1, 2, 3].map((page) => ({ page: String(page), per_page: '100', status: 'pending' })),
    );
    expect(undeclared(rec.seen)).toEqual([]);
  });
});

describe('roster review without a terminal', () => {
  it('does not start Ink: it says so and points to roster requests', async () => {
    const r = await cli(['review', '--user', 'bob', '--tenant', 'acme']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: roster review needs an interactive terminal (CI is set)\n' +
        '  to list and decide access requests from scripts or CI, use roster requests (roster requests list --user bob --tenant acme)\n',
    );
  });
});
