import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ORG_KEY, type TestServer } from '../helpers/server.js';
import { startRecordedWorld, type RecordedWorld, type SeenRequest } from '../review/world.js';

/**
 * The warnings of `roster requests create` and `list`: a requester who is the only reviewer of the
 * tenant (nobody can decide), and what they cost: only what they need, and nothing under --format json.
 */

let world: RecordedWorld;
let server: TestServer;
beforeAll(async () => {
  world = await startRecordedWorld();
  server = world.server;
  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
  };
  // Tenant beta: dave is its only reviewer; acme's 40 approvers are beta's concern only as noise.
  await ok(server.facts('POST', '/tenants', { key: 'beta', name: 'Beta' }));
  await ok(server.facts('POST', '/role_assignments', { user: 'dave', role: 'approver', tenant: 'beta' }));
  for (let i = 0; i < 40; i++) {
    await ok(server.facts('POST', '/users', { key: `approver${i}` }));
    await ok(server.facts('POST', '/role_assignments', { user: `approver${i}`, role: 'approver', tenant: 'acme' }));
  }
});
afterAll(() => world.close());

const cli = async (args: string[]) => {
  const n = world.recorder.seen.length;
  const r = await runCli([...args, '--api-url', world.recorder.url, '--project', 'p', '--env', 'e'], {
    env: { ROSTER_API_KEY: ORG_KEY },
  });
  return { ...r, seen: world.recorder.seen.slice(n) };
};
const assignmentReads = (seen: SeenRequest[]) =>
  seen
    .filter((s) => s.method === 'GET' && s.path === '/v2/facts/p/e/role_assignments')
    .map((s) => Object.fromEntries(s.query));

describe('roster requests warnings', { timeout: 120_000 }, () => {
  it("warns when the requester is the tenant's only reviewer: nobody can decide", async () => {
    const r = await cli(['requests', 'create', '--user', 'dave', '--tenant', 'beta', '--role', 'viewer']);
    expect(r.code).toBe(0);
    const id = /request ([0-9a-f-]{36})/.exec(r.stdout)![1];
    expect(r.stderr).toBe(
      `warning: nobody can decide request ${id.slice(0, 8)} (viewer in beta (tenant-wide)): dave asked for it and is the only user holding a reviewer role of configuration default (approver) tenant-wide in beta, and nobody may review their own request; it stays pending until someone else reviews there\n`,
    );
    // A tenant with other reviewers: no such warning.
    const acme = await cli(['requests', 'create', '--user', 'bob', '--tenant', 'acme', '--role', 'viewer']);
    expect(acme.stderr).toBe('');
  });

  it('reads only what the warnings need: the requesters in the tenant, the reviewers until two are found', async () => {
    const r = await cli(['requests', 'list', '--user', 'bob', '--tenant', 'acme']);
    expect(r.code).toBe(0);
    const reads = assignmentReads(r.seen);
    // bob's own pending request: his assignments in acme only; 42 approvers in acme: one page of them.
    expect(reads.filter((q) => q.user !== undefined)).toEqual([
      expect.objectContaining({ user: 'bob', tenant: 'acme' }),
    ]);
    expect(reads.filter((q) => q.role !== undefined)).toEqual([
      expect.objectContaining({ role: 'approver', tenant: 'acme', page: '1' }),
    ]);
  });

  it('--format json prints no warning and reads nothing for them', async () => {
    const list = await cli(['requests', 'list', '--user', 'dave', '--tenant', 'beta', '--format', 'json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).data).toHaveLength(1);
    expect(list.stderr).toBe('');
    expect(assignmentReads(list.seen)).toEqual([]);
    // The configurations are listed (the list spans them all); none is read for its reviewers.
    expect(list.seen.some((s) => s.path.startsWith('/v2/elements/p/e/config/'))).toBe(false);
    const create = await cli([
      'requests',
      'create',
      '--user',
      'dave',
      '--tenant',
      'beta',
      '--role',
      'viewer',
      '--format',
      'json',
    ]);
    expect(create.code).toBe(0);
    expect(create.stderr).toBe('');
    expect(assignmentReads(create.seen)).toEqual([]);
    expect(create.seen.filter((s) => s.method === 'GET' && s.path.includes('/access_requests/'))).toEqual([]);
  });
});
