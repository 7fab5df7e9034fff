import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import {
  ENV_KEY,
  TEST_DATABASE_URL,
  TEST_STORE,
  type HttpClient,
  type Resp,
  type TestServer,
} from '../helpers/server.js';
import { aRequest, addToTenant, as, assign, assignmentsOf, seedWorld, user } from '../access-requests/builders.js';
import { startCluster, type ServeProcess } from './processes.js';
import { migrations as MIGRATIONS } from '../../src/server/store/migrations.js';

/**
 * Two real `roster serve` processes on one PostgreSQL schema. Every rule must hold across them, so it
 * must be enforced by the database: keys, the cycle rule, single decisions, cascades; nothing either
 * process remembers may hide the other's writes; and killing one loses no acknowledged write.
 * Runs in the vitest project `postgres` only (see vitest.config.ts).
 */
const onPostgres = TEST_STORE === 'postgres';

function ok<T = any>(r: Resp): T {
  if (r.status < 200 || r.status > 299) throw new Error(`expected 2xx, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/** The builders take a TestServer but only call its request helpers. */
const asServer = (c: HttpClient) => c as unknown as TestServer;

const allowed = async (
  c: HttpClient,
  userKey: string,
  action: string,
  resource: { type: string; key?: string; tenant?: string },
) =>
  ok<{ allow: boolean }>(
    await c.call('POST', '/allowed', { user: { key: userKey }, action, resource }, { key: ENV_KEY }),
  ).allow;

describe.skipIf(!onPostgres)('two roster serve processes on one PostgreSQL', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    // Started at once: both run the migrations; the advisory lock lets exactly one apply each.
    cluster = await startCluster(2);
    [a, b] = cluster.procs;
    await seedWorld(asServer(a));
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('both started on one schema, each migration applied once, one organisation', async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const migrations = await client.query(`SELECT id FROM ${cluster.schema}.schema_migrations ORDER BY id`);
      expect(migrations.rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      const orgs = await client.query(`SELECT value FROM ${cluster.schema}.meta WHERE key = 'organization_id'`);
      expect(orgs.rows).toHaveLength(1);
    } finally {
      await client.end();
    }
    const scopeA = ok(await a.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    const scopeB = ok(await b.call('GET', '/v2/api-key/scope', undefined, { key: ENV_KEY }));
    expect(scopeB).toEqual(scopeA);
  });

  it('unique keys hold across processes: the same user created on both at once, one 200 and one 409', async () => {
    for (let i = 0; i < 15; i++) {
      const key = `dup${i}`;
      const answers = await Promise.all([a.facts('POST', '/users', { key }), b.facts('POST', '/users', { key })]);
      expect(answers.map((r) => r.status).sort(), JSON.stringify(answers.map((r) => r.body))).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)!.body.error_code).toBe('DUPLICATE_ENTITY');
      // PUT (sync) at once: one creates (201), the other replaces (200); never a 500.
      const synced = await Promise.all([
        a.facts('PUT', `/users/sync${i}`, { key: `sync${i}`, email: 'a@x.io' }),
        b.facts('PUT', `/users/sync${i}`, { key: `sync${i}`, email: 'b@x.io' }),
      ]);
      expect(synced.map((r) => r.status).sort(), JSON.stringify(synced.map((r) => r.body))).toEqual([200, 201]);
    }
  });

  it('linking A→B on one process and B→A on the other at the same moment: exactly one succeeds, the other is a GROUP_CYCLE', async () => {
    for (let i = 0; i < 20; i++) {
      ok(await a.schema('POST', '/groups', { group_instance_key: `cy:a${i}`, group_tenant: 't' }));
      ok(await b.schema('POST', '/groups', { group_instance_key: `cy:b${i}`, group_tenant: 't' }));
      const [ab, ba] = await Promise.all([
        a.schema('PUT', `/groups/cy:a${i}/assign_group`, { group_instance_key: `cy:b${i}` }),
        b.schema('PUT', `/groups/cy:b${i}/assign_group`, { group_instance_key: `cy:a${i}` }),
      ]);
      const statuses = [ab.status, ba.status].sort();
      expect(statuses, JSON.stringify([ab.body, ba.body])).toEqual([200, 422]);
      expect([ab, ba].find((r) => r.status === 422)!.body.error_code).toBe('GROUP_CYCLE');
      // Both processes read the one link that exists.
      const parentsA = ok(await b.schema('GET', `/groups/cy:a${i}/parents`)).data.length;
      const parentsB = ok(await a.schema('GET', `/groups/cy:b${i}/parents`)).data.length;
      expect(parentsA + parentsB).toBe(1);
    }
  });

  it('a three-group cycle closed from both processes at once is caught too', async () => {
    for (let i = 0; i < 10; i++) {
      for (const g of ['x', 'y', 'z'])
        ok(await a.schema('POST', '/groups', { group_instance_key: `tri:${g}${i}`, group_tenant: 't' }));
      ok(await a.schema('PUT', `/groups/tri:x${i}/assign_group`, { group_instance_key: `tri:y${i}` }));
      const [yz, zx] = await Promise.all([
        a.schema('PUT', `/groups/tri:y${i}/assign_group`, { group_instance_key: `tri:z${i}` }),
        b.schema('PUT', `/groups/tri:z${i}/assign_group`, { group_instance_key: `tri:x${i}` }),
      ]);
      expect([yz.status, zx.status].sort()).toEqual([200, 422]);
    }
  });

  it('the fifty-way access-request race over two processes: exactly one 200 and exactly one role assignment', async () => {
    const moderators = ['m0', 'm1', 'm2', 'm3', 'm4'];
    for (const m of moderators) {
      await user(asServer(a), m);
      await assign(asServer(b), { user: m, role: 'admin', tenant: 't' });
    }
    for (let round = 0; round < 3; round++) {
      const requester = `racer${round}`;
      await user(asServer(b), requester);
      await addToTenant(asServer(a), 't', requester);
      const r = await aRequest(asServer(b), requester, { role: 'editor', resource_instance: 'doc:d1' });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          const proc = i % 2 === 0 ? a : b;
          const kind = (['approve', 'approve', 'deny'] as const)[(i + round) % 3];
          return as(asServer(proc), moderators[i % moderators.length])[kind](r.id, {
            reviewer_comment: `${kind} ${i}`,
          });
        }),
      );
      expect(answers.map((x) => x.status).sort()).toEqual([200, ...Array(49).fill(409)]);
      const winner = answers.find((x) => x.status === 200)!.body;
      for (const proc of [a, b]) {
        expect(await assignmentsOf(asServer(proc), { user: requester })).toEqual(
          winner.status === 'approved' ? [`${requester} editor t doc:d1`] : [],
        );
      }
    }
    // Approvals only: still one winner and one grant.
    await user(asServer(a), 'racer-all');
    await addToTenant(asServer(b), 't', 'racer-all');
    const r = await aRequest(asServer(a), 'racer-all', { role: 'viewer' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => as(asServer(i % 2 ? a : b), moderators[i % 5]).approve(r.id, {})),
    );
    expect(answers.map((x) => x.status).sort()).toEqual([200, ...Array(49).fill(409)]);
    expect(await assignmentsOf(asServer(b), { user: 'racer-all' })).toEqual(['racer-all viewer t -']);
  });

  it('a write through one process is seen by /allowed on the other at once', async () => {
    await user(asServer(a), 'seer');
    for (let i = 0; i < 10; i++) {
      expect(await allowed(b, 'seer', 'write', { type: 'doc', key: 'd1' })).toBe(false);
      ok(await a.facts('POST', '/role_assignments', { user: 'seer', role: 'editor', resource_instance: 'doc:d1' }));
      expect(await allowed(b, 'seer', 'write', { type: 'doc', key: 'd1' })).toBe(true);
      const del = await b.facts('DELETE', '/role_assignments', {
        user: 'seer',
        role: 'editor',
        resource_instance: 'doc:d1',
        tenant: 't',
      });
      expect(del.status).toBe(204);
      expect(await allowed(a, 'seer', 'write', { type: 'doc', key: 'd1' })).toBe(false);
    }
    // Through a group on one process, decided on the other: grant, membership, then the link removed.
    ok(await a.schema('POST', '/groups', { group_instance_key: 'vis:top', group_tenant: 't' }));
    ok(await a.schema('POST', '/groups', { group_instance_key: 'vis:sub', group_tenant: 't' }));
    ok(
      await a.schema('POST', '/groups/vis:top/roles', {
        role: 'viewer',
        resource: 'doc',
        resource_instance: 'd1',
        tenant: 't',
      }),
    );
    ok(await a.schema('PUT', '/groups/vis:sub/users/seer', { tenant: 't' }));
    expect(await allowed(b, 'seer', 'read', { type: 'doc', key: 'd1' })).toBe(false);
    ok(await a.schema('PUT', '/groups/vis:sub/assign_group', { group_instance_key: 'vis:top' }));
    expect(await allowed(b, 'seer', 'read', { type: 'doc', key: 'd1' })).toBe(true);
    expect((await b.schema('DELETE', '/groups/vis:sub/assign_group', { group_instance_key: 'vis:top' })).status).toBe(
      204,
    );
    expect(await allowed(a, 'seer', 'read', { type: 'doc', key: 'd1' })).toBe(false);
  });

  it('cascades are the database’s: a user deleted on one process takes their roles and requests on the other', async () => {
    await user(asServer(a), 'gone');
    await addToTenant(asServer(a), 't', 'gone');
    ok(await b.facts('POST', '/role_assignments', { user: 'gone', role: 'viewer', tenant: 't' }));
    const r = await aRequest(asServer(b), 'gone', { role: 'editor' });
    expect(await allowed(b, 'gone', 'read', { type: 'doc', tenant: 't' })).toBe(true);
    expect((await a.facts('DELETE', '/users/gone')).status).toBe(204);
    expect(await allowed(b, 'gone', 'read', { type: 'doc', tenant: 't' })).toBe(false);
    expect(await assignmentsOf(asServer(b), { user: 'gone' })).toEqual([]);
    expect((await as(asServer(b), 'mod').get(r.id)).status).toBe(404);
  });

  // Last: it kills one of the two processes.
  it('kill -9 of one process during a write load: no acknowledged write is lost, and the other keeps serving', async () => {
    const acked: string[] = [];
    const servedByA: number[] = [];
    let n = 0;
    let stop = false;
    const worker = async (proc: ServeProcess) => {
      while (!stop) {
        const key = `load${n++}`;
        try {
          const r = await proc.facts('POST', '/users', { key, email: `${key}@x.io` });
          if (proc === a) servedByA.push(r.status);
          if (r.status >= 200 && r.status < 300) acked.push(key);
        } catch {
          // A connection the killed process dropped: that write was never acknowledged.
          if (proc === a) servedByA.push(0);
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    };
    const workers = [...Array.from({ length: 6 }, () => worker(a)), ...Array.from({ length: 6 }, () => worker(b))];
    await new Promise((r) => setTimeout(r, 1500));
    const beforeKill = acked.length;
    b.child.kill('SIGKILL');
    expect(await b.exited).toBe('SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    stop = true;
    await Promise.all(workers);

    expect(beforeKill).toBeGreaterThan(0);
    // The survivor answered every request, before and after the kill, with a 2xx.
    expect(servedByA.length).toBeGreaterThan(0);
    expect(servedByA.filter((s) => s < 200 || s > 299)).toEqual([]);
    // Every acknowledged write, from either process, is there.
    const missing: string[] = [];
    for (let i = 0; i < acked.length; i += 50) {
      const batch = acked.slice(i, i + 50);
      const found = await Promise.all(batch.map((k) => a.facts('GET', `/users/${k}`)));
      found.forEach((r, j) => r.status !== 200 && missing.push(batch[j]));
    }
    expect(missing).toEqual([]);
    // And the survivor still decides.
    expect(await allowed(a, 'mod', 'read', { type: 'doc', tenant: 't' })).toBe(false);
  });
});
