import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { seedReviewWorld } from '../review/world.js';

/** `roster requests` and the non-terminal path of `roster review`, as a user runs them, against the real server. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await seedReviewWorld(server);
});
afterAll(() => server.close());

const cli = (args: string[]) =>
  runCli([...args, '--api-url', server.url, '--project', 'p', '--env', 'e'], { env: { ROSTER_API_KEY: ORG_KEY } });

const noKey = (r: { stdout: string; stderr: string }) => expect(r.stdout + r.stderr).not.toContain(ORG_KEY);

async function allowed(user: string, action: string, key: string): Promise<boolean> {
  const r = await server.call('POST', '/allowed', { user: { key: user }, action, resource: { type: 'document', key, tenant: 'acme' } }, { key: ENV_KEY });
  return (r.body as { allow: boolean }).allow;
}

describe('roster requests', () => {
  let readme: string;
  let roadmap: string;

  it('create: a requester files a request (text and json)', async () => {
    const text = await cli(['requests', 'create', '--user', 'alice', '--tenant', 'acme', '--role', 'editor', '--resource', 'document', '--instance', 'readme', '--reason', 'release notes']);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^created access request [0-9a-f-]{36}\n/);
    expect(text.stdout).toMatch(/ {2}status {11}pending\n/);
    readme = /request ([0-9a-f-]{36})/.exec(text.stdout)![1];
    const json = await cli(['requests', 'create', '--user', 'dave', '--tenant', 'acme', '--role', 'editor', '--instance', 'document:roadmap', '--format', 'json']);
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({ requesting_user_key: 'dave', status: null, access_request_details: { role: 'editor', resource: 'document', resource_instance: 'roadmap' } });
    roadmap = body.id;
    noKey(text);
  });

  it('list: filters and paging, text and json', async () => {
    const all = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--status', 'pending', '--format', 'json']);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ total_count: 2, data: [{ id: roadmap }, { id: readme }] });
    const text = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--resource', 'document', '--instance', 'readme', '--per-page', '1']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+REQUESTER\s+ROLE\s+RESOURCE\/INSTANCE\s+AGE\s+REASON$/);
    expect(lines[1]).toMatch(new RegExp(`^${readme}\\s+pending\\s+alice\\s+editor\\s+document:readme\\s+\\d+s\\s+release notes$`));
    expect(lines[2]).toBe('1–1 of 1 · page 1/1');
    // The requester sees only their own.
    const mine = await cli(['requests', 'list', '--user', 'alice', '--tenant', 'acme', '--format', 'json', '--page', '1', '--per-page', '10']);
    expect(JSON.parse(mine.stdout).data.map((r: { id: string }) => r.id)).toEqual([readme]);
  });

  it('list --requester: one requester\'s requests, counted and paged by the service, within what the user sees', async () => {
    const dave = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--requester', 'dave', '--format', 'json']);
    expect(dave.code).toBe(0);
    expect(JSON.parse(dave.stdout)).toMatchObject({ total_count: 1, page_count: 1, data: [{ id: roadmap, requesting_user_key: 'dave' }] });
    const text = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--requester', 'alice', '--status', 'pending', '--per-page', '1']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${readme}\\s+pending\\s+alice\\s`));
    expect(lines[2]).toBe('1–1 of 1 · page 1/1');
    // alice sees only her own: filtering on dave finds nothing.
    const other = await cli(['requests', 'list', '--user', 'alice', '--tenant', 'acme', '--requester', 'dave']);
    expect({ code: other.code, stdout: other.stdout }).toEqual({ code: 0, stdout: 'no access request\n' });
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
    expect(again.stderr).toMatch(/^error: the service refused a request: PUT \/v2\/facts\/p\/e\/access_requests\/default\/user\/carol\/tenant\/acme\/[0-9a-f-]+\/approve answered 409 CONFLICT: access request is no longer pending \(status: approved\)/);
    noKey(again);
  });

  it('a requester may not approve their own; update, deny, get and cancel', async () => {
    const own = await cli(['requests', 'approve', roadmap, '--user', 'dave', '--tenant', 'acme']);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('403');
    const upd = await cli(['requests', 'update', roadmap, '--user', 'carol', '--tenant', 'acme', '--comment', 'which part?', '--role', 'viewer', '--format', 'json']);
    expect(upd.code).toBe(0);
    expect(JSON.parse(upd.stdout)).toMatchObject({ status: null, reviewer_comment: 'which part?', access_request_details: { role: 'viewer' } });
    const deny = await cli(['requests', 'deny', roadmap, '--user', 'carol', '--tenant', 'acme', '--comment', 'no']);
    expect(deny.code).toBe(0);
    const get = await cli(['requests', 'get', roadmap, '--user', 'dave', '--tenant', 'acme', '--format', 'json']);
    expect(JSON.parse(get.stdout)).toMatchObject({ status: 'deny', reviewer_comment: 'no', reviewer_user_key: 'carol' });
    const created = JSON.parse((await cli(['requests', 'create', '--user', 'dave', '--tenant', 'acme', '--role', 'viewer', '--format', 'json'])).stdout);
    const cancel = await cli(['requests', 'cancel', created.id, '--user', 'dave', '--tenant', 'acme', '--reason', 'not needed', '--format', 'json']);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ status: 'cancel', cancel_reason: 'not needed' });
  });

  it('input errors exit 1 with a message', async () => {
    const format = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--format', 'yaml']);
    expect({ code: format.code, stderr: format.stderr }).toEqual({ code: 1, stderr: 'error: unknown --format "yaml": use text or json\n' });
    const status = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme', '--status', 'maybe']);
    expect(status.stderr).toBe('error: unknown --status "maybe": use pending, approved, denied or canceled\n');
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
