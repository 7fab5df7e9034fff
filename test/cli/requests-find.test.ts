import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { readUserIds, seedReviewWorld } from '../review/world.js';

/**
 * `roster requests` for scripts: the tenant scopes the list, a request is found by id or a unique prefix
 * in whichever configuration it was filed through, JSON carries the status label and the users' keys,
 * an unknown user or tenant is an error with the name meant, and warnings name duplicates, roles
 * already held and tenants nobody can review. Against the real server.
 */
let server: TestServer;
let users: Awaited<ReturnType<typeof readUserIds>>;
const cli = (...args: string[]) =>
  runCli([...args, '--api-url', server.url, '--project', 'p', '--env', 'e'], { env: { ROSTER_API_KEY: ORG_KEY } });
const ok = async (p: Promise<{ status: number; body: any }>) => {
  const r = await p;
  if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
};
const file = (cfg: string, user: string, tenant: string, details: Record<string, string>) =>
  ok(
    server.facts('POST', `/access_requests/${cfg}/user/${user}/tenant/${tenant}`, {
      access_request_details: { tenant, ...details },
    }),
  ).then((b) => b.id as string);

let acme: string;
let beta: string;
let oncall: string;
beforeAll(async () => {
  server = await startTestServer();
  await seedReviewWorld(server);
  users = await readUserIds(server);
  // A second tenant bob also reviews, a third nobody reviews, and a second configuration.
  for (const key of ['beta', 'gamma']) await ok(server.facts('POST', '/tenants', { key, name: key }));
  await ok(server.facts('POST', '/role_assignments', { user: 'bob', role: 'approver', tenant: 'beta' }));
  for (const t of ['beta', 'gamma']) await ok(server.facts('POST', `/tenants/${t}/users`, { key: 'dave' }));
  await ok(
    server.call('POST', '/v2/elements/p/e/config', {
      key: 'oncall',
      name: 'On call',
      elements_type: 'user_management',
      settings: {},
      roles_to_levels: { LEVEL_1: ['approver'] },
    }),
  );
  acme = await file('default', 'dave', 'acme', { role: 'viewer', resource: 'document', resource_instance: 'roadmap' });
  beta = await file('default', 'dave', 'beta', { role: 'viewer' });
  oncall = await file('oncall', 'dave', 'acme', { role: 'editor', resource: 'document', resource_instance: 'readme' });
});
afterAll(() => server.close());

describe('roster requests for scripts', { timeout: 120_000 }, () => {
  it('list --tenant lists that tenant only, with the tenant beside each row in JSON', async () => {
    const [inAcme, inBeta] = await Promise.all([
      cli('requests', 'list', '--user', 'bob', '--tenant', 'acme', '--format', 'json'),
      cli('requests', 'list', '--user', 'bob', '--tenant', 'beta', '--format', 'json'),
    ]);
    // One list across the configurations (default and oncall), newest first, each row naming its own.
    expect(
      JSON.parse(inAcme.stdout).data.map(
        (r: { id: string; elements_config: string }) => `${r.id} ${r.elements_config}`,
      ),
    ).toEqual([`${oncall} oncall`, `${acme} default`]);
    expect(JSON.parse(inBeta.stdout).data.map((r: { id: string }) => r.id)).toEqual([beta]);
    expect(JSON.parse(inBeta.stdout)).toMatchObject({ total_count: 1 });
  });

  it('approve by a unique prefix, without --config, in the configuration it was filed through; JSON with a status label and user keys', async () => {
    const r = await cli(
      'requests',
      'approve',
      oncall.slice(0, 8),
      '--user',
      'bob',
      '--tenant',
      'acme',
      '--format',
      'json',
    );
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({
      id: oncall,
      status: 'approved',
      status_label: 'approved',
      requesting_user_id: users.id.dave,
      requesting_user_key: 'dave',
      reviewer_user_id: users.id.bob,
      reviewer_user_key: 'bob',
    });
    const pending = JSON.parse(
      (await cli('requests', 'get', acme, '--user', 'dave', '--tenant', 'acme', '--format', 'json')).stdout,
    );
    expect(pending).toMatchObject({
      status: null,
      status_label: 'pending',
      requesting_user_key: 'dave',
      reviewer_user_key: null,
    });
  });

  it('an unknown id, no id, an unknown user or tenant: exit 1 with what was meant', async () => {
    const [missing, empty, user, tenant] = await Promise.all([
      cli('requests', 'approve', 'ffffffff', '--user', 'bob', '--tenant', 'acme'),
      cli('requests', 'get', '', '--user', 'dave', '--tenant', 'acme'),
      cli('requests', 'list', '--user', 'bbo', '--tenant', 'acme'),
      cli('requests', 'list', '--user', 'bob', '--tenant', 'acm'),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      'no access request ffffffff that bob may see in tenant acme (configurations: default, oncall)',
    );
    expect(empty.stderr).toContain('needs the request id');
    expect(user.code).toBe(1);
    expect(user.stderr).toContain('--user bbo: no user "bbo"');
    expect(user.stderr).toContain('did you mean "bob"?');
    expect(tenant.code).toBe(1);
    expect(tenant.stderr).toContain('did you mean "acme"?');
  });

  it('warns about duplicate pending requests, a role already held, and a tenant nobody can review', async () => {
    const again = await cli(
      'requests',
      'create',
      '--user',
      'dave',
      '--tenant',
      'acme',
      '--role',
      'viewer',
      '--resource',
      'document',
      '--instance',
      'roadmap',
    );
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /^warning: 2 pending requests by dave for viewer on document:roadmap \(.*\): duplicates; deny or cancel all but one\n$/,
    );
    const held = await cli(
      'requests',
      'create',
      '--user',
      'alice',
      '--tenant',
      'acme',
      '--role',
      'viewer',
      '--resource',
      'document',
      '--instance',
      'readme',
    );
    expect(held.stderr).toMatch(
      /^warning: alice already holds viewer on document:readme \(request [0-9a-f]{8}\): approving changes nothing\n$/,
    );
    const nobody = await cli('requests', 'create', '--user', 'dave', '--tenant', 'gamma', '--role', 'viewer');
    expect(nobody.code).toBe(0);
    expect(nobody.stderr).toBe(
      'warning: nobody can review requests in tenant gamma: no user holds a reviewer role of configuration default (approver) tenant-wide there; they stay pending\n',
    );
    const list = await cli('requests', 'list', '--user', 'bob', '--tenant', 'acme');
    expect(list.stderr).toContain('warning: 2 pending requests by dave for viewer on document:roadmap');
    expect(list.stderr).toContain('warning: alice already holds viewer on document:readme');
  });
});
