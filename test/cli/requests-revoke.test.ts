import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ENV_KEY, ORG_KEY, type TestServer } from '../helpers/server.js';
import { fileRequest, startRecordedWorld, type RecordedWorld } from '../review/world.js';

/**
 * `roster requests revoke ID`: removes the role assignment an approved request made, through the public
 * role-assignment removal, and says so; a request that is not approved, not found, or whose grant is gone
 * already is an error that says which. Against the real server, through a recording proxy.
 */

let world: RecordedWorld;
let server: TestServer;
beforeAll(async () => {
  world = await startRecordedWorld();
  server = world.server;
});
afterAll(() => world.close());

const cli = (args: string[]) =>
  runCli([...args, '--api-url', world.recorder.url, '--project', 'p', '--env', 'e'], {
    env: { ROSTER_API_KEY: ORG_KEY },
  });
const approve = (id: string, body: Record<string, string> = {}) =>
  server.facts('PUT', `/access_requests/default/user/bob/tenant/acme/${id}/approve`, body);
const allowed = async (user: string, action: string, key: string) =>
  (
    (
      await server.call(
        'POST',
        '/allowed',
        { user: { key: user }, action, resource: { type: 'document', key, tenant: 'acme' } },
        { key: ENV_KEY },
      )
    ).body as { allow: boolean }
  ).allow;
const assignments = async (user: string) =>
  (
    (await server.facts('GET', `/role_assignments?user=${user}&per_page=100`)).body as {
      role: string;
      resource_instance?: string | null;
    }[]
  )
    .map((a) => `${a.role}@${a.resource_instance ?? 'acme'}`)
    .sort();

describe('roster requests revoke', { timeout: 120_000 }, () => {
  it("removes an approved request's grant (by a prefix of its id) and says so; the request stays approved", async () => {
    const id = await fileRequest(
      server,
      'dave',
      { role: 'editor', resource: 'document', resource_instance: 'roadmap' },
      'release',
    );
    expect((await approve(id)).status).toBe(200);
    expect(await allowed('dave', 'write', 'roadmap')).toBe(true);
    const n = world.recorder.seen.length;
    const r = await cli(['requests', 'revoke', id.slice(0, 8), '--user', 'bob', '--tenant', 'acme']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `revoked the grant of access request ${id}: dave's editor on document:roadmap (tenant acme) is removed\n` +
        `  granted when bob approved the request at ${r.stdout.match(/approved the request at (\S+) /)![1]} (configuration default)\n` +
        '  the request stays approved (the service records no revocation); a group or another role may still give dave the same access\n',
    );
    expect(await allowed('dave', 'write', 'roadmap')).toBe(false);
    expect(await assignments('dave')).toEqual([]);
    // The public removal, with the public body's fields only.
    const deletes = world.recorder.seen.slice(n).filter((s) => s.method === 'DELETE');
    expect(deletes.map((d) => d.path)).toEqual(['/v2/facts/p/e/role_assignments']);
    const got = await server.facts('GET', `/access_requests/default/user/bob/tenant/acme/${id}`);
    expect(got.body).toMatchObject({ status: 'approved' });

    // Again: the grant is gone, said as such, exit 1, nothing sent.
    const m = world.recorder.seen.length;
    const again = await cli(['requests', 'revoke', id, '--user', 'bob', '--tenant', 'acme']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(
      `error: the grant of access request ${id} is already gone: dave's editor on document:roadmap (tenant acme) is not a role assignment any more`,
    );
    expect(world.recorder.seen.slice(m).filter((s) => s.method === 'DELETE')).toEqual([]);
  });

  it('a tenant-wide grant, approved as another role, with --format json', async () => {
    const id = await fileRequest(server, 'alice', { role: 'editor' }, 'everything');
    expect((await approve(id, { role: 'viewer' })).status).toBe(200);
    expect(await assignments('alice')).toEqual(['viewer@acme', 'viewer@document:readme']);
    const r = await cli(['requests', 'revoke', id, '--user', 'carol', '--tenant', 'acme', '--format', 'json']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({
      revoked: true,
      elements_config: 'default',
      grant: { user: 'alice', role: 'viewer', tenant: 'acme' },
      request: { id, status: 'approved', status_label: 'approved' },
    });
    expect(body.grant).not.toHaveProperty('resource_instance');
    // As text, a tenant-wide grant reads as one ("in acme (tenant-wide)"), never "approved … for viewer on tenant-wide".
    const other = await fileRequest(server, 'alice', { role: 'editor' }, 'again');
    expect((await approve(other)).status).toBe(200);
    const text = await cli(['requests', 'revoke', other, '--user', 'carol', '--tenant', 'acme']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split('\n').slice(0, 2)).toEqual([
      `revoked the grant of access request ${other}: alice's editor in acme (tenant-wide) is removed`,
      `  granted when bob approved the request at ${text.stdout.match(/approved the request at (\S+) /)![1]} (configuration default)`,
    ]);
    expect(text.stdout).not.toContain('tenant-wide (configuration');
    // Only the grant: alice's own viewer on readme stays.
    expect(await assignments('alice')).toEqual(['viewer@document:readme']);
  });

  it('a request that is not approved, or that does not exist, is an error that says so', async () => {
    const pending = await fileRequest(server, 'dave', {
      role: 'viewer',
      resource: 'document',
      resource_instance: 'readme',
    });
    const p = await cli(['requests', 'revoke', pending, '--user', 'bob', '--tenant', 'acme']);
    expect({ code: p.code, stdout: p.stdout }).toEqual({ code: 1, stdout: '' });
    expect(p.stderr).toContain(
      `error: access request ${pending} is pending, not approved: it granted nothing, so there is nothing to revoke; deny it`,
    );
    expect(
      (await server.facts('PUT', `/access_requests/default/user/bob/tenant/acme/${pending}/deny`, {})).status,
    ).toBe(200);
    const d = await cli(['requests', 'revoke', pending, '--user', 'bob', '--tenant', 'acme']);
    expect(d.stderr).toContain(`error: access request ${pending} is denied, not approved`);
    const none = await cli([
      'requests',
      'revoke',
      '00000000-0000-4000-8000-000000000000',
      '--user',
      'bob',
      '--tenant',
      'acme',
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'error: no access request 00000000-0000-4000-8000-000000000000 that bob may see in tenant acme',
    );
  });
});
