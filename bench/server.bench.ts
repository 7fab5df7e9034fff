/**
 * The local /v2 service (`roster serve`) over real HTTP, at the size issue #6 sets: 10,000 users, 1,000
 * groups nested up to depth 8, 2,000 resource instances, 20,000 memberships, 3,000 group role grants
 * (plus 5,000 direct instance roles and 50 tenant-wide roles), loaded through the public endpoints.
 *
 * Measured: the load itself; `/allowed` latency (sequential, keep-alive) and throughput (8 in flight);
 * paged reads of the largest group's members; access requests (issue #3): 10,000 created, reviewer
 * lists filtered by status and role (first and 100th page), approvals sequentially and 8 in flight.
 *
 * Most figures come from a server started in this process with `startServer` (the load generator then
 * shares the event loop and the 2 cores with it); `/allowed` is measured again against a separate
 * `roster serve` child process on the same data. Everything random comes from one seeded PRNG, and
 * each data directory is temporary and removed at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { BenchFigure, BenchResult } from './run.js';
import { startServer, type RunningServer } from '../src/server/listen.js';
import { prng } from './generate.js';

const SIZE = {
  users: 10_000,
  groups: 1_000,
  levels: 8,
  instances: 2_000,
  tenants: 5,
  memberships: 20_000,
  largestGroup: 1_500,
  grants: 3_000,
  instanceRoles: 5_000,
  tenantRoles: 50,
  accessRequests: 10_000,
};
export const ORG_KEY = 'bench-org-key-0123456789';
export const ENV_KEY = 'bench-env-key-abcdefghij';
const LOAD_CONCURRENCY = 8;
const SEED = 20_240_601;
const log = (msg: string) => {
  if (process.env.BENCH_VERBOSE) process.stderr.write(`  [server ${(performance.now() / 1000).toFixed(1)}s] ${msg}\n`);
};

/** Deterministic PRNG: the generator's (mulberry32). */
const rng = prng;

// ---------------------------------------------------------------------------------------------------
// The environment, as plain data.

const RESOURCES: Record<string, string[]> = {
  document: ['read', 'comment', 'write', 'delete'],
  folder: ['read', 'write', 'delete'],
};
const ROLES = [
  { key: 'viewer', permissions: ['document:read', 'folder:read'], extends: [] as string[] },
  { key: 'commenter', permissions: ['document:comment'], extends: ['viewer'] },
  { key: 'editor', permissions: ['document:write', 'folder:write'], extends: ['commenter'] },
  { key: 'admin', permissions: ['document:delete', 'folder:delete'], extends: ['editor'] },
];
const ROLE_KEYS = ROLES.map((r) => r.key);

export interface Env {
  tenants: string[];
  users: { key: string; tenant: string }[];
  instances: { ref: string; type: string; key: string; tenant: string }[];
  groups: { key: string; ref: string; tenant: string; level: number }[];
  links: { child: number; parent: number }[];
  memberships: { user: number; group: number }[];
  grants: { group: number; role: string; instance: number }[];
  instanceRoles: { user: number; role: string; instance: number }[];
  tenantRoles: { user: number; role: string }[];
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * Groups are laid out in 8 levels of 125; a group links to one group (sometimes two: diamonds) of the
 * same tenant in a higher level, so chains are at most 8 groups long and there are no cycles. Group
 * `team:g0000` is the largest (1,500 direct members, 15 pages of 100); the other memberships are spread
 * at random over all groups, each user in its group's tenant.
 */
export function generateEnv(seed = SEED): Env {
  const r = rng(seed);
  const pick = (n: number) => Math.floor(r() * n);
  const tenants = Array.from({ length: SIZE.tenants }, (_, i) => `t${i}`);
  const users = Array.from({ length: SIZE.users }, (_, i) => ({
    key: `u${pad(i, 5)}`,
    tenant: tenants[i % SIZE.tenants],
  }));
  const usersOf = tenants.map((_, t) => users.map((_, i) => i).filter((i) => i % SIZE.tenants === t));
  const instances = Array.from({ length: SIZE.instances }, (_, i) => {
    const [type, key] = i % 4 === 3 ? ['folder', `f${pad(i, 4)}`] : ['document', `d${pad(i, 4)}`];
    return { ref: `${type}:${key}`, type, key, tenant: tenants[i % SIZE.tenants] };
  });
  const instancesOf = tenants.map((_, t) => instances.map((_, i) => i).filter((i) => i % SIZE.tenants === t));
  const perLevel = SIZE.groups / SIZE.levels;
  const groups = Array.from({ length: SIZE.groups }, (_, g) => ({
    key: `g${pad(g, 4)}`,
    ref: `team:g${pad(g, 4)}`,
    tenant: tenants[g % SIZE.tenants],
    level: Math.floor(g / perLevel),
  }));
  // A random group of `level` in the same tenant as group g (indices ≡ g mod tenants).
  const groupAt = (level: number, g: number) => {
    const first = level * perLevel;
    const same = [];
    for (let i = first; i < first + perLevel; i++) if (i % SIZE.tenants === g % SIZE.tenants) same.push(i);
    return same[pick(same.length)];
  };
  const links: Env['links'] = [];
  for (let g = 0; g < SIZE.groups; g++) {
    const level = groups[g].level;
    if (level === SIZE.levels - 1) continue;
    const first = groupAt(level + 1, g);
    links.push({ child: g, parent: first });
    if (r() < 0.3) {
      const second = groupAt(Math.min(SIZE.levels - 1, level + 1 + pick(2)), g);
      if (second !== first) links.push({ child: g, parent: second });
    }
  }
  const memberships: Env['memberships'] = [];
  const seen = new Set<string>();
  const add = (user: number, group: number) => {
    const k = `${user}/${group}`;
    if (seen.has(k)) return false;
    seen.add(k);
    memberships.push({ user, group });
    return true;
  };
  const pool0 = [...usersOf[0]];
  for (let n = 0; n < SIZE.largestGroup; n++) {
    const j = n + pick(pool0.length - n);
    [pool0[n], pool0[j]] = [pool0[j], pool0[n]];
    add(pool0[n], 0);
  }
  while (memberships.length < SIZE.memberships) {
    const g = 1 + pick(SIZE.groups - 1);
    const candidates = usersOf[g % SIZE.tenants];
    add(candidates[pick(candidates.length)], g);
  }
  const grants: Env['grants'] = [];
  const grantSeen = new Set<string>();
  while (grants.length < SIZE.grants) {
    const g = pick(SIZE.groups);
    const candidates = instancesOf[g % SIZE.tenants];
    const grant = { group: g, role: ROLE_KEYS[pick(ROLE_KEYS.length)], instance: candidates[pick(candidates.length)] };
    const k = `${grant.group}/${grant.role}/${grant.instance}`;
    if (!grantSeen.has(k)) (grantSeen.add(k), grants.push(grant));
  }
  const instanceRoles: Env['instanceRoles'] = [];
  const irSeen = new Set<string>();
  while (instanceRoles.length < SIZE.instanceRoles) {
    const u = pick(SIZE.users);
    const candidates = instancesOf[u % SIZE.tenants];
    const a = { user: u, role: ROLE_KEYS[pick(2)], instance: candidates[pick(candidates.length)] };
    const k = `${a.user}/${a.role}/${a.instance}`;
    if (!irSeen.has(k)) (irSeen.add(k), instanceRoles.push(a));
  }
  const tenantRoles: Env['tenantRoles'] = [];
  const trSeen = new Set<number>();
  while (tenantRoles.length < SIZE.tenantRoles) {
    // Never user 0: it is the access-request reviewer, whose only tenant-wide role is `admin`.
    const u = 1 + pick(SIZE.users - 1);
    if (!trSeen.has(u)) (trSeen.add(u), tenantRoles.push({ user: u, role: 'viewer' }));
  }
  return { tenants, users, instances, groups, links, memberships, grants, instanceRoles, tenantRoles };
}

/** The expected decision, computed from the generated data (a check that the figures measure real work). */
export function referenceDecider(env: Env) {
  const parents = new Map<number, number[]>();
  for (const l of env.links) (parents.get(l.child) ?? parents.set(l.child, []).get(l.child)!).push(l.parent);
  const groupsOfUser = new Map<number, number[]>();
  for (const m of env.memberships)
    (groupsOfUser.get(m.user) ?? groupsOfUser.set(m.user, []).get(m.user)!).push(m.group);
  const grantsOf = new Map<number, { role: string; instance: number }[]>();
  for (const g of env.grants) (grantsOf.get(g.group) ?? grantsOf.set(g.group, []).get(g.group)!).push(g);
  const direct = new Map<string, string[]>();
  for (const a of env.instanceRoles)
    (
      direct.get(`${a.user}/${a.instance}`) ?? direct.set(`${a.user}/${a.instance}`, []).get(`${a.user}/${a.instance}`)!
    ).push(a.role);
  const tenantWide = new Map<number, string[]>();
  for (const a of env.tenantRoles) (tenantWide.get(a.user) ?? tenantWide.set(a.user, []).get(a.user)!).push(a.role);
  const roleDef = new Map(ROLES.map((r) => [r.key, r]));
  const closure = (user: number) => {
    const out = new Set<number>();
    const stack = [...(groupsOfUser.get(user) ?? [])];
    while (stack.length) {
      const g = stack.pop()!;
      if (out.has(g)) continue;
      out.add(g);
      stack.push(...(parents.get(g) ?? []));
    }
    return out;
  };
  const grants = (role: string, permission: string): boolean => {
    const def = roleDef.get(role)!;
    return def.permissions.includes(permission) || def.extends.some((e) => grants(e, permission));
  };
  return {
    closure,
    grantsOf,
    decide(user: number, action: string, instance: number): boolean {
      const inst = env.instances[instance];
      const held = new Set<string>(direct.get(`${user}/${instance}`) ?? []);
      if (env.users[user].tenant === inst.tenant) for (const r of tenantWide.get(user) ?? []) held.add(r);
      for (const g of closure(user))
        for (const gr of grantsOf.get(g) ?? []) if (gr.instance === instance) held.add(gr.role);
      return [...held].some((r) => grants(r, `${inst.type}:${action}`));
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// HTTP helpers.

export class Client {
  requests = 0;
  constructor(
    readonly pool: Pool,
    private readonly key: string,
  ) {}

  async call<T = any>(method: string, p: string, body?: unknown, key = this.key): Promise<T> {
    this.requests++;
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.pool.request({
      method: method as 'GET',
      path: p,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

async function inParallel<T>(items: T[], limit: number, fn: (item: T, i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const chunks = <T>(xs: T[], n: number) =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1))];
}

/** Runs `fn` once per item sequentially and returns the sorted latencies in ms. */
async function timeEach<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (const item of items) {
    const t0 = process.hrtime.bigint();
    await fn(item);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out.sort((a, b) => a - b);
}

/** Calls `fn` with `concurrency` in flight for `ms` milliseconds; answers calls per second. */
async function throughput(concurrency: number, ms: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let done = 0;
  const start = performance.now();
  const end = start + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) await fn(done++);
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** CPU time (user + system) of this process, in ms. */
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU time (user + system) of another process, in ms, from /proc (Linux); NaN elsewhere. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in ticks of 1/100 s
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------------------------------------------
// Loading.

const S = '/v2/schema/p/e';
const F = '/v2/facts/p/e';

export async function load(c: Client, env: Env): Promise<void> {
  for (const t of env.tenants) await c.call('POST', `${F}/tenants`, { key: t, name: `Tenant ${t}` });
  for (const [key, actions] of Object.entries(RESOURCES)) {
    await c.call('POST', `${S}/resources`, {
      key,
      name: key,
      actions: Object.fromEntries(actions.map((a) => [a, {}])),
    });
  }
  for (const r of ROLES)
    await c.call('POST', `${S}/roles`, { key: r.key, name: r.key, permissions: r.permissions, extends: r.extends });
  await inParallel(env.users, LOAD_CONCURRENCY, (u) =>
    c.call('POST', `${F}/tenants/${u.tenant}/users`, { key: u.key, email: `${u.key}@example.test` }),
  );
  await inParallel(env.instances, LOAD_CONCURRENCY, (i) =>
    c.call('POST', `${F}/resource_instances`, { key: i.key, tenant: i.tenant, resource: i.type }),
  );
  await inParallel(env.groups, LOAD_CONCURRENCY, (g) =>
    c.call('POST', `${S}/groups`, {
      group_instance_key: g.key,
      group_tenant: g.tenant,
      group_resource_type_key: 'team',
    }),
  );
  await inParallel(env.links, LOAD_CONCURRENCY, (l) =>
    c.call('PUT', `${S}/groups/${env.groups[l.child].ref}/assign_group`, {
      group_instance_key: env.groups[l.parent].ref,
    }),
  );
  const bulk = [
    ...env.memberships.map((m) => ({
      user: env.users[m.user].key,
      role: 'member',
      tenant: env.groups[m.group].tenant,
      resource_instance: env.groups[m.group].ref,
    })),
    ...env.instanceRoles.map((a) => ({
      user: env.users[a.user].key,
      role: a.role,
      tenant: env.instances[a.instance].tenant,
      resource_instance: env.instances[a.instance].ref,
    })),
    ...env.tenantRoles.map((a) => ({ user: env.users[a.user].key, role: a.role, tenant: env.users[a.user].tenant })),
  ];
  await inParallel(chunks(bulk, 1000), LOAD_CONCURRENCY, async (items) => {
    const r = await c.call<{ assignments_created: number }>('POST', `${F}/role_assignments/bulk`, items);
    if (r.assignments_created !== items.length)
      throw new Error(`bulk created ${r.assignments_created} of ${items.length}`);
  });
  await inParallel(env.grants, LOAD_CONCURRENCY, (g) => {
    const inst = env.instances[g.instance];
    return c.call('POST', `${S}/groups/${env.groups[g.group].ref}/roles`, {
      role: g.role,
      resource: inst.type,
      resource_instance: inst.ref,
      tenant: inst.tenant,
    });
  });
}

// ---------------------------------------------------------------------------------------------------
// /allowed.

export interface Check {
  user: number;
  action: string;
  instance: number;
}

/** Half uniformly random triples, half drawn through a membership and one of its groups' grants (mostly allowed). */
export function checks(env: Env, ref: ReturnType<typeof referenceDecider>, n: number, seed: number): Check[] {
  const r = rng(seed);
  const pick = (k: number) => Math.floor(r() * k);
  const out: Check[] = [];
  while (out.length < n) {
    if (out.length % 2 === 0) {
      const instance = pick(SIZE.instances);
      const actions = RESOURCES[env.instances[instance].type];
      out.push({ user: pick(SIZE.users), action: actions[pick(actions.length)], instance });
    } else {
      const m = env.memberships[pick(env.memberships.length)];
      const reachable = [...ref.closure(m.user)].flatMap((g) => ref.grantsOf.get(g) ?? []);
      if (reachable.length === 0) continue;
      const g = reachable[pick(reachable.length)];
      const actions = RESOURCES[env.instances[g.instance].type];
      out.push({ user: m.user, action: actions[pick(actions.length)], instance: g.instance });
    }
  }
  return out;
}

/**
 * Sequential latency, then throughput at each concurrency. `cpu` reads the CPU time of the process that
 * serves: for the in-process server that is this process, so it includes the client's share.
 */
async function measureAllowed(
  url: string,
  env: Env,
  ref: ReturnType<typeof referenceDecider>,
  label: string,
  concurrencies: number[],
  cpu: () => number,
) {
  const body = (k: Check) => {
    const inst = env.instances[k.instance];
    return {
      user: { key: env.users[k.user].key },
      action: k.action,
      resource: { type: inst.type, key: inst.key, tenant: inst.tenant },
    };
  };
  const seq = new Client(new Pool(url, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 }), ENV_KEY);
  const warm = checks(env, ref, 1_000, SEED + 1);
  for (const k of warm) await seq.call('POST', '/allowed', body(k));
  const sample = checks(env, ref, 5_000, SEED + 2);
  let allowed = 0;
  let wrong = 0;
  const cpu0 = cpu();
  const lat = await timeEach(sample, async (k) => {
    const { allow } = await seq.call<{ allow: boolean }>('POST', '/allowed', body(k));
    if (allow) allowed++;
    if (allow !== ref.decide(k.user, k.action, k.instance)) wrong++;
  });
  const cpuPerCheck = (cpu() - cpu0) / sample.length;
  await seq.pool.close();
  const tput: { concurrency: number; perSecond: number; cpuPerCheck: number }[] = [];
  for (const concurrency of concurrencies) {
    const pool = new Client(
      new Pool(url, { connections: concurrency, pipelining: 1, keepAliveTimeout: 60_000 }),
      ENV_KEY,
    );
    const run = (i: number) => pool.call('POST', '/allowed', body(sample[i % sample.length]));
    await throughput(concurrency, 500, run); // warm the connections
    const c0 = cpu();
    let n = 0;
    const perSecond = await throughput(concurrency, 3_000, (i) => (n++, run(i)));
    tput.push({ concurrency, perSecond, cpuPerCheck: (cpu() - c0) / n });
    await pool.pool.close();
  }
  return {
    label,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    allowedShare: allowed / sample.length,
    wrong,
    tput,
    cpuPerCheck,
  };
}

// ---------------------------------------------------------------------------------------------------
// The run.

export async function run(): Promise<BenchResult> {
  const figures: BenchFigure[] = [];
  const notes: string[] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-server-'));
  const keys = { orgKey: ORG_KEY, envKeys: [{ project: 'p', env: 'e', key: ENV_KEY }] };
  let server: RunningServer | undefined;
  let child: ChildProcess | undefined;
  const loadBefore = os.loadavg()[0];
  try {
    const env = generateEnv();
    const ref = referenceDecider(env);
    server = await startServer({ dataDir, port: 0, ...keys });

    // Load.
    const loader = new Client(
      new Pool(server.url, { connections: LOAD_CONCURRENCY, pipelining: 1, keepAliveTimeout: 60_000 }),
      ORG_KEY,
    );
    const t0 = performance.now();
    await load(loader, env);
    const loadSeconds = (performance.now() - t0) / 1000;
    log(`loaded in ${loadSeconds.toFixed(1)} s, ${loader.requests} requests`);
    figures.push({ name: 'load: environment over HTTP (8 in flight)', value: loadSeconds, unit: 's' });
    figures.push({ name: 'load: requests', value: loader.requests, unit: 'requests' });
    figures.push({ name: 'load: request rate', value: loader.requests / loadSeconds, unit: 'req/s' });

    // /allowed, in process.
    const inproc = await measureAllowed(server.url, env, ref, 'in-process', [8], ownCpu);
    figures.push({
      name: '/allowed p50 (in-process, sequential)',
      value: inproc.p50,
      unit: 'ms',
      target: { op: '<', value: 1 },
    });
    figures.push({ name: '/allowed p99 (in-process, sequential)', value: inproc.p99, unit: 'ms' });
    figures.push({
      name: '/allowed throughput (in-process, 8 in flight)',
      value: inproc.tput[0].perSecond,
      unit: 'checks/s',
      target: { op: '>=', value: 3000 },
    });
    figures.push({
      name: '/allowed CPU per check (in-process: server + client, sequential)',
      value: inproc.cpuPerCheck,
      unit: 'ms',
    });

    log(`in-process /allowed: ${JSON.stringify(inproc)}`);
    // Group reads: every page of 100 of the largest group's direct members, 20 rounds after one warm-up.
    const largest = env.groups[0].ref;
    const pages = Math.ceil(SIZE.largestGroup / 100);
    const reads = Array.from({ length: pages * 21 }, (_, i) => (i % pages) + 1);
    let readRows = 0;
    const readOne = async (page: number) => {
      const r = await loader.call<{ data: unknown[]; total_count: number }>(
        'GET',
        `${S}/groups/${largest}/users?page=${page}&per_page=100`,
      );
      if (r.total_count !== SIZE.largestGroup)
        throw new Error(`group read: total_count ${r.total_count}, expected ${SIZE.largestGroup}`);
      readRows += r.data.length;
    };
    for (const page of reads.slice(0, pages)) await readOne(page);
    const readCpu0 = ownCpu();
    const readLat = await timeEach(reads.slice(pages), readOne);
    const readCpu = (ownCpu() - readCpu0) / (reads.length - pages);
    figures.push({
      name: `group users page of 100 p50 (largest group, ${SIZE.largestGroup} members)`,
      value: percentile(readLat, 50),
      unit: 'ms',
    });
    figures.push({
      name: `group users page of 100 p99 (largest group, ${SIZE.largestGroup} members)`,
      value: percentile(readLat, 99),
      unit: 'ms',
      target: { op: '<', value: 10 },
    });
    figures.push({ name: 'group users page of 100: CPU per read (server + client)', value: readCpu, unit: 'ms' });
    // Nested read of a top-level group: the members of its whole subtree (informative; no target).
    const top = env.groups.findIndex((g) => g.level === SIZE.levels - 1 && g.tenant === 't0');
    const nestedTotal = (
      await loader.call<{ total_count: number }>(
        'GET',
        `${S}/groups/${env.groups[top].ref}/users?nested=true&per_page=100`,
      )
    ).total_count;
    const nestedLat = await timeEach(
      Array.from({ length: 100 }, (_, i) => (i % Math.max(1, Math.ceil(nestedTotal / 100))) + 1),
      (page) => loader.call('GET', `${S}/groups/${env.groups[top].ref}/users?nested=true&page=${page}&per_page=100`),
    );
    figures.push({
      name: `group users nested=true page of 100 p99 (top-level group, ${nestedTotal} members)`,
      value: percentile(nestedLat, 99),
      unit: 'ms',
    });
    log(
      `group reads: p50 ${percentile(readLat, 50).toFixed(2)} p99 ${percentile(readLat, 99).toFixed(2)}; nested p99 ${percentile(nestedLat, 99).toFixed(2)}`,
    );
    await loader.pool.close();
    await server.close();
    server = undefined;

    // /allowed against a separate `roster serve` process on the same data.
    const here = path.dirname(fileURLToPath(import.meta.url));
    const root = path.resolve(here, '..');
    const started = await startChild(root, dataDir);
    child = started.child;
    const sep = await measureAllowed(started.url, env, ref, 'child', [8, 16], () => cpuOf(child!.pid!));
    figures.push({
      name: '/allowed p50 (separate process, sequential)',
      value: sep.p50,
      unit: 'ms',
      target: { op: '<', value: 1 },
    });
    figures.push({ name: '/allowed p99 (separate process, sequential)', value: sep.p99, unit: 'ms' });
    for (const t of sep.tput) {
      figures.push({
        name: `/allowed throughput (separate process, ${t.concurrency} in flight)`,
        value: t.perSecond,
        unit: 'checks/s',
        target: { op: '>=', value: 3000 },
      });
    }
    const serverCpu = sep.tput[0].cpuPerCheck;
    figures.push({
      name: '/allowed server CPU per check (separate process, 8 in flight)',
      value: serverCpu,
      unit: 'ms',
    });
    figures.push({
      name: '/allowed checks per second of server CPU (separate process; the ceiling of one core)',
      value: 1000 / serverCpu,
      unit: 'checks/s',
    });
    log(`separate /allowed: ${JSON.stringify(sep)}`);
    await stopChild(child);
    child = undefined;

    // Access requests, in process again.
    server = await startServer({ dataDir, port: 0, ...keys });
    const ar = await accessRequests(server.url, env);
    figures.push(...ar.figures);
    notes.push(...ar.notes);

    notes.push(
      `Environment: ${SIZE.users} users in ${SIZE.tenants} tenants, ${SIZE.instances} instances, ${SIZE.groups} groups in ${SIZE.levels} levels (${env.links.length} links, chains up to ${SIZE.levels} groups), ` +
        `${env.memberships.length} memberships (largest group ${SIZE.largestGroup}), ${env.grants.length} group grants, ${env.instanceRoles.length} direct instance roles, ${env.tenantRoles.length} tenant-wide roles; seed ${SEED}.`,
      `Load: users through POST /tenants/{t}/users, instances, groups, links and grants one request each, memberships and direct roles through role_assignments/bulk (1000 a call); ${LOAD_CONCURRENCY} in flight over a keep-alive undici Pool.`,
      `/allowed: 5,000 sequential checks after 1,000 warm-up, half uniformly random (user, action, instance), half drawn through a membership and a grant reachable from it; ` +
        `allowed ${(inproc.allowedShare * 100).toFixed(1)}% (in-process) / ${(sep.allowedShare * 100).toFixed(1)}% (separate); decisions differing from a reference computed from the generated data: ${inproc.wrong} / ${sep.wrong}.`,
      `Machine load average (1 min) ${loadBefore.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end, on ${os.cpus().length} cores: ` +
        'latencies and rates are wall-clock and grow with other work on the machine; the CPU-per-operation figures do not (much).',
      'In-process figures share one event loop (and 2 cores) between the load generator and the server: client-side JSON and HTTP parsing count against the server. The separate-process figures are closer to a deployment.',
    );
    return {
      name: 'server',
      description:
        'The local /v2 service over HTTP at issue #6 size: load, /allowed latency and throughput, group member pages, access requests (issue #3).',
      figures,
      notes,
    };
  } finally {
    if (child) await stopChild(child);
    if (server) await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function accessRequests(url: string, env: Env): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const figures: BenchFigure[] = [];
  const c = new Client(new Pool(url, { connections: 8, pipelining: 1, keepAliveTimeout: 60_000 }), ORG_KEY);
  const r = rng(SEED + 3);
  const pick = (n: number) => Math.floor(r() * n);
  const config = 'access';
  await c.call('POST', '/v2/elements/p/e/config', {
    key: config,
    name: 'Access requests',
    elements_type: 'user_management',
    roles_to_levels: { LEVEL_1: ['admin'] },
    settings: {},
  });
  const reviewer = env.users[0].key; // tenant t0
  await c.call('POST', `${F}/role_assignments`, { user: reviewer, role: 'admin', tenant: 't0' });
  const requesters = env.users.map((u, i) => ({ ...u, i })).filter((u) => u.tenant === 't0' && u.i !== 0);
  const t0Instances = env.instances.filter((i) => i.tenant === 't0');
  // Half ask for `viewer`, so a status+role filter has more than 100 pages of 30.
  const roleOf = () => {
    const x = r();
    return x < 0.5 ? 'viewer' : x < 0.7 ? 'commenter' : x < 0.9 ? 'editor' : 'admin';
  };
  const asks = Array.from({ length: SIZE.accessRequests }, () => {
    const u = requesters[pick(requesters.length)];
    const inst = r() < 0.4 ? t0Instances[pick(t0Instances.length)] : undefined;
    return {
      user: u.key,
      details: { tenant: 't0', role: roleOf(), ...(inst ? { resource: inst.type, resource_instance: inst.ref } : {}) },
    };
  });
  const created: { id: string; user: string }[] = new Array(asks.length);
  const tc = performance.now();
  await inParallel(asks, 8, async (a, i) => {
    const res = await c.call<{ id: string }>('POST', `${F}/access_requests/${config}/user/${a.user}/tenant/t0`, {
      access_request_details: a.details,
      reason: `bench ${i}`,
    });
    created[i] = { id: res.id, user: a.user };
  });
  figures.push({
    name: 'access requests: create (8 in flight)',
    value: asks.length / ((performance.now() - tc) / 1000),
    unit: 'requests/s',
  });

  const list = (page: number) =>
    c.call<{ data: unknown[]; total_count: number }>(
      'GET',
      `${F}/access_requests/${config}/user/${reviewer}/tenant/t0?status=pending&role=viewer&page=${page}&per_page=30`,
    );
  const viewerCount = asks.filter((a) => a.details.role === 'viewer').length;
  for (const page of [1, 100]) {
    const first = await list(page);
    if (first.total_count !== viewerCount || first.data.length !== 30)
      throw new Error(
        `list page ${page}: ${first.data.length} items of ${first.total_count}, expected 30 of ${viewerCount}`,
      );
    for (let i = 0; i < 20; i++) await list(page);
    const lat = await timeEach(
      Array.from({ length: 200 }, () => page),
      list,
    );
    figures.push({
      name: `access requests: reviewer list page ${page} (status+role, ${viewerCount} match) p50`,
      value: percentile(lat, 50),
      unit: 'ms',
    });
    figures.push({
      name: `access requests: reviewer list page ${page} (status+role, ${viewerCount} match) p99`,
      value: percentile(lat, 99),
      unit: 'ms',
      target: { op: '<', value: 20 },
    });
  }

  const approve = (k: { id: string; user: string }) =>
    c.call('PUT', `${F}/access_requests/${config}/user/${reviewer}/tenant/t0/${k.id}/approve`, {});
  const seq = created.slice(0, 500);
  let t = performance.now();
  for (const k of seq) await approve(k);
  figures.push({
    name: 'access requests: approve (sequential, 500)',
    value: seq.length / ((performance.now() - t) / 1000),
    unit: 'approvals/s',
  });
  const par = created.slice(500, 2500);
  t = performance.now();
  await inParallel(par, 8, approve);
  figures.push({
    name: 'access requests: approve (8 in flight, 2000)',
    value: par.length / ((performance.now() - t) / 1000),
    unit: 'approvals/s',
  });
  await c.pool.close();
  return {
    figures,
    notes: [
      `Access requests: ${SIZE.accessRequests} in tenant t0 by ${requesters.length} requesters (half for viewer, 40% on an instance), one reviewer holding admin tenant-wide (LEVEL_1); lists are the reviewer's, 200 timed calls per page after 20 warm-up.`,
    ],
  };
}

async function startChild(root: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/run.ts',
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--api-key',
      ORG_KEY,
      '--env-key',
      `p/e=${ENV_KEY}`,
      '--quiet',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`roster serve did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) (clearTimeout(timer), resolve(m[1]));
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`roster serve exited with ${code}: ${err}`))));
  });
  return { child, url };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
