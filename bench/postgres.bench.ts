/**
 * The service on PostgreSQL next to SQLite (issue #8): `/allowed` latency (p50, p99, sequential) and
 * throughput (8 in flight), a page of the largest group's members (p99) and a moderator's
 * access-request list (p99), measured against real `roster serve` child processes:
 *   - SQLite, one process;
 *   - PostgreSQL, one process;
 *   - PostgreSQL, two processes on one schema, requests sent round-robin.
 *
 * The environment is smaller than server.bench.ts's issue-#6 size so that loading it over HTTP stays
 * short on PostgreSQL (every write is several round trips): see SIZE. It is loaded once per store
 * through the public endpoints, from one seeded PRNG. PostgreSQL is ROSTER_BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test), in a fresh schema dropped at the end; without a reachable
 * PostgreSQL only the SQLite figures are reported, with a note.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { BenchFigure, BenchResult } from './run.js';
import { prng } from './generate.js';

const SIZE = {
  users: 2_000,
  tenants: 4,
  instances: 400,
  groups: 240,
  levels: 4,
  memberships: 4_000,
  largestGroup: 500,
  grants: 400,
  instanceRoles: 1_000,
  accessRequests: 1_000,
};
const ORG_KEY = 'bench-pg-org-key-0123456789';
const ENV_KEY = 'bench-pg-env-key-abcdefghij';
const PG_URL = process.env.ROSTER_BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg: string) =>
  process.env.BENCH_VERBOSE && process.stderr.write(`  [postgres ${(performance.now() / 1000).toFixed(1)}s] ${msg}\n`);

/** Deterministic PRNG: the generator's (mulberry32). */
const rng = prng;

const pad = (n: number) => String(n).padStart(5, '0');
const userKey = (i: number) => `u${pad(i)}`;
const tenantOf = (i: number) => `t${i % SIZE.tenants}`;
const groupKey = (g: number) => `team:g${pad(g)}`;
const groupTenant = (g: number) => `t${g % SIZE.tenants}`;

class Client {
  constructor(readonly url: string) {}
  async call(method: string, p: string, body?: unknown, key = ORG_KEY): Promise<{ status: number; body: any }> {
    const res = await fetch(this.url + p, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
  async ok(method: string, p: string, body?: unknown): Promise<any> {
    const r = await this.call(method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
}

async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Loads the environment through process `c` (org key, /v2/{schema,facts}/p/e). */
async function load(c: Client): Promise<void> {
  const S = '/v2/schema/p/e';
  const F = '/v2/facts/p/e';
  const rand = rng(8_2026);
  await c.ok('POST', `${S}/resources`, { key: 'doc', name: 'doc', actions: { read: {}, write: {}, delete: {} } });
  await c.ok('POST', `${S}/roles`, { key: 'viewer', name: 'viewer', permissions: ['doc:read'] });
  await c.ok('POST', `${S}/roles`, { key: 'editor', name: 'editor', permissions: ['doc:write'], extends: ['viewer'] });
  await c.ok('POST', `${S}/roles`, { key: 'admin', name: 'admin', permissions: ['doc:delete'], extends: ['editor'] });
  for (const t of range(SIZE.tenants)) await c.ok('POST', `${F}/tenants`, { key: `t${t}`, name: `t${t}` });
  await inParallel(range(SIZE.users), 8, (i) => c.ok('POST', `${F}/tenants/${tenantOf(i)}/users`, { key: userKey(i) }));
  log('users');
  await inParallel(range(SIZE.instances), 8, (i) =>
    c.ok('POST', `${F}/resource_instances`, { key: `d${pad(i)}`, resource: 'doc', tenant: tenantOf(i) }),
  );
  await inParallel(range(SIZE.groups), 8, (g) =>
    c.ok('POST', `${S}/groups`, { group_instance_key: groupKey(g), group_tenant: groupTenant(g) }),
  );
  // Levels: a group of level k > 0 is linked under a group of level k - 1 in its tenant.
  const perLevel = SIZE.groups / SIZE.levels;
  const links = range(SIZE.groups)
    .filter((g) => g >= perLevel)
    .map((g) => [g, g - perLevel] as const);
  await inParallel(links, 4, ([child, parent]) =>
    c.ok('PUT', `/v2/schema/p/e/groups/${groupKey(child)}/assign_group`, { group_instance_key: groupKey(parent) }),
  );
  log('groups');
  // Memberships: the largest group (g0, tenant t0) gets SIZE.largestGroup members of t0, the rest random.
  const members: [number, number][] = [];
  for (let k = 0; members.length < SIZE.largestGroup; k++) members.push([0, k * SIZE.tenants]);
  while (members.length < SIZE.memberships) {
    const g = 1 + Math.floor(rand() * (SIZE.groups - 1));
    const u = Math.floor(rand() * (SIZE.users / SIZE.tenants)) * SIZE.tenants + (g % SIZE.tenants);
    members.push([g, u]);
  }
  await inParallel(members, 8, ([g, u]) =>
    c.ok('PUT', `${S}/groups/${groupKey(g)}/users/${userKey(u)}`, { tenant: groupTenant(g) }),
  );
  log('memberships');
  const grants = range(SIZE.grants).map(() => {
    const g = Math.floor(rand() * SIZE.groups);
    const d = Math.floor(rand() * (SIZE.instances / SIZE.tenants)) * SIZE.tenants + (g % SIZE.tenants);
    return { g, d, role: ['viewer', 'editor'][Math.floor(rand() * 2)] };
  });
  await inParallel(grants, 8, ({ g, d, role }) =>
    c.ok('POST', `${S}/groups/${groupKey(g)}/roles`, {
      role,
      resource: 'doc',
      resource_instance: `d${pad(d)}`,
      tenant: groupTenant(g),
    }),
  );
  const direct = range(SIZE.instanceRoles).map(() => {
    const u = Math.floor(rand() * SIZE.users);
    const d = Math.floor(rand() * (SIZE.instances / SIZE.tenants)) * SIZE.tenants + (u % SIZE.tenants);
    return { user: userKey(u), role: 'viewer', resource_instance: `doc:d${pad(d)}` };
  });
  for (let i = 0; i < direct.length; i += 500)
    await c.ok('POST', `${F}/role_assignments/bulk`, direct.slice(i, i + 500));
  log('grants');
  // Access requests: a moderator (admin) in t0, and requests from t0's users.
  await c.ok('POST', `${F}/tenants/t0/users`, { key: 'mod', role_assignments: [{ role: 'admin', tenant: 't0' }] });
  await c.ok('POST', '/v2/elements/p/e/config', {
    key: 'um',
    name: 'um',
    elements_type: 'user_management',
    roles_to_levels: { LEVEL_1: ['admin'] },
  });
  await inParallel(range(SIZE.accessRequests), 8, (i) =>
    c.ok('POST', `/v2/facts/p/e/access_requests/um/user/${userKey((i * SIZE.tenants) % SIZE.users)}/tenant/t0`, {
      access_request_details: { tenant: 't0', role: ['viewer', 'editor'][i % 2] },
      reason: `r${i}`,
    }),
  );
  log('access requests');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeEach(
  n: number,
  clients: Client[],
  fn: (c: Client, i: number) => Promise<unknown>,
): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(clients[i % clients.length], i);
    ms.push(performance.now() - t);
  }
  return ms.sort((x, y) => x - y);
}

async function throughput(
  clients: Client[],
  inFlight: number,
  ms: number,
  fn: (c: Client, i: number) => Promise<unknown>,
): Promise<number> {
  let done = 0;
  let i = 0;
  const end = performance.now() + ms;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const k = i++;
        await fn(clients[k % clients.length], k);
        done++;
      }
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}

/** The figures of one configuration (label), requests round-robin over `clients`. */
async function measure(label: string, clients: Client[]): Promise<BenchFigure[]> {
  const rand = rng(42);
  const checks = range(2_000).map(() => {
    const u = Math.floor(rand() * SIZE.users);
    const d = Math.floor(rand() * (SIZE.instances / SIZE.tenants)) * SIZE.tenants + (u % SIZE.tenants);
    return {
      user: { key: userKey(u) },
      action: rand() < 0.5 ? 'read' : 'write',
      resource: { type: 'doc', key: `d${pad(d)}`, tenant: tenantOf(u) },
    };
  });
  const allowed = async (c: Client, i: number) => {
    const r = await c.call('POST', '/allowed', checks[i % checks.length], ENV_KEY);
    if (r.status !== 200) throw new Error(`/allowed: ${r.status}`);
  };
  // Warm-up: connections, JIT, the database's caches.
  await timeEach(300, clients, allowed);
  const lat = await timeEach(2_000, clients, allowed);
  const rps = await throughput(clients, 8, 3_000, allowed);
  const pages = SIZE.largestGroup / 100;
  const groupPages = await timeEach(100, clients, (c, i) =>
    c.ok('GET', `/v2/schema/p/e/groups/${groupKey(0)}/users?per_page=100&page=${1 + (i % pages)}`),
  );
  const list = await timeEach(100, clients, (c, i) =>
    c.ok('GET', `/v2/facts/p/e/access_requests/um/user/mod/tenant/t0?status=pending&per_page=50&page=${1 + (i % 20)}`),
  );
  return [
    { name: `${label}: /allowed p50`, value: percentile(lat, 50), unit: 'ms' },
    { name: `${label}: /allowed p99`, value: percentile(lat, 99), unit: 'ms' },
    { name: `${label}: /allowed throughput (8 in flight)`, value: rps, unit: 'req/s' },
    {
      name: `${label}: group users page p99 (${SIZE.largestGroup} members, 100 a page)`,
      value: percentile(groupPages, 99),
      unit: 'ms',
    },
    { name: `${label}: access-request list p99 (pending, 50 a page)`, value: percentile(list, 99), unit: 'ms' },
  ];
}

async function startServe(args: string[]): Promise<{ child: ChildProcess; client: Client }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/run.ts',
      'serve',
      '--port',
      '0',
      '--api-key',
      ORG_KEY,
      '--env-key',
      `p/e=${ENV_KEY}`,
      '--quiet',
      ...args,
    ],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ROSTER_DATABASE_URL: '' },
    },
  );
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`roster serve exited (${code}): ${err}`)));
  });
  return { child, client: new Client(url) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function postgresReachable(): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.query('SELECT 1');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function run(): Promise<BenchResult> {
  const figures: BenchFigure[] = [];
  const notes: string[] = [
    `Environment: ${SIZE.users} users in ${SIZE.tenants} tenants, ${SIZE.instances} instances, ${SIZE.groups} groups in ${SIZE.levels} levels, ` +
      `${SIZE.memberships} memberships (largest group ${SIZE.largestGroup}), ${SIZE.grants} group grants, ${SIZE.instanceRoles} direct instance roles, ` +
      `${SIZE.accessRequests} pending access requests; loaded over HTTP. Smaller than server.bench.ts (issue #6 size) to keep the PostgreSQL load short.`,
    "Every configuration runs `roster serve` child processes; the bench client, the servers and PostgreSQL share the machine's cores.",
    'Latencies are sequential requests over keep-alive connections; with two processes requests alternate between them.',
  ];

  // SQLite, one process.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-pg-'));
  const sqlite = await startServe(['--data', dataDir]);
  try {
    const t = performance.now();
    await load(sqlite.client);
    figures.push({ name: 'sqlite: load over HTTP', value: (performance.now() - t) / 1000, unit: 's' });
    figures.push(...(await measure('sqlite, 1 process', [sqlite.client])));
  } finally {
    await stop(sqlite.child);
    rmSync(dataDir, { recursive: true, force: true });
  }

  const unreachable = await postgresReachable();
  if (unreachable) {
    notes.push(
      `PostgreSQL not reachable at ${PG_URL.replace(/:[^:@/]*@/, ':***@')} (${unreachable}): PostgreSQL figures skipped.`,
    );
    return {
      name: 'postgres',
      description:
        'The service on PostgreSQL (one and two processes) next to SQLite: /allowed, group pages, access-request lists.',
      figures,
      notes,
    };
  }
  const schema = `roster_bench_${Date.now().toString(36)}`;
  const u = new URL(PG_URL);
  u.searchParams.set('schema', schema);
  const children: ChildProcess[] = [];
  try {
    const one = await startServe(['--database', u.toString()]);
    children.push(one.child);
    const t = performance.now();
    await load(one.client);
    figures.push({ name: 'postgres: load over HTTP', value: (performance.now() - t) / 1000, unit: 's' });
    // Statistics and visibility maps as autovacuum would leave them on a running system (and no
    // autovacuum of the fresh load running during the measurements).
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`SET search_path = ${schema}`);
    for (const { tablename } of (await admin.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, [schema]))
      .rows) {
      await admin.query(`VACUUM ANALYZE ${schema}.${tablename}`);
    }
    await admin.end();
    figures.push(...(await measure('postgres, 1 process', [one.client])));
    const two = await startServe(['--database', u.toString()]);
    children.push(two.child);
    figures.push(...(await measure('postgres, 2 processes', [one.client, two.client])));
  } finally {
    for (const c of children) await stop(c);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
  notes.push(
    `Machine load average (1, 5, 15 min) at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')}; other work on the machine shows in the p99s.`,
  );
  return {
    name: 'postgres',
    description:
      "The service on PostgreSQL (one and two `roster serve` processes on one schema) next to SQLite (one process): /allowed latency and throughput, a page of the largest group, a moderator's access-request list.",
    figures,
    notes,
  };
}
