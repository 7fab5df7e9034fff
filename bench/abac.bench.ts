/**
 * Attribute-based access at the /allowed bench's scale (issue 29): server.bench.ts's environment (10,000
 * users, 1,000 groups, 2,000 instances, 20,000 memberships), plus attribute values on every user and
 * instance, then 20 user sets and 10 resource sets (5 on each resource type) joined by 40 set rules.
 * `/allowed` p50 (sequential, keep-alive, in process) on the same 5,000 checks before the sets and rules
 * exist (RBAC/ReBAC only: the ABAC step finds no rule) and after; the target is a ratio under 2. Half the
 * checks are uniformly random triples (mostly denied by RBAC, so ABAC evaluates them), half drawn through
 * a membership (mostly allowed by RBAC before ABAC is asked).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import type { BenchFigure, BenchResult } from './run.js';
import { startServer, type RunningServer } from '../src/server/listen.js';
import { prng } from './generate.js';
import {
  Client,
  ENV_KEY,
  ORG_KEY,
  checks,
  generateEnv,
  load,
  referenceDecider,
  type Check,
  type Env,
} from './server.bench.js';

const S = '/v2/schema/p/e';
const F = '/v2/facts/p/e';
const SEED = 29;
const DEPARTMENTS = ['finance', 'legal', 'sales', 'eng', 'ops'];
const REGIONS = ['eu', 'us', 'apac'];
const CLASSES = ['public', 'internal', 'secret'];

/** 20 user sets: levels, departments, regions, roles, combinations and a child set (parent_id). */
function userSets() {
  const sets: { key: string; conditions: object; parent_id?: string }[] = [];
  for (let l = 1; l <= 5; l++)
    sets.push({ key: `level_${l}`, conditions: { allOf: [{ 'user.level': { 'greater-than-equals': l } }] } });
  for (const d of DEPARTMENTS)
    sets.push({ key: `dept_${d}`, conditions: { allOf: [{ 'user.department': { equals: d } }] } });
  for (const r of REGIONS)
    sets.push({
      key: `region_${r}`,
      conditions: { allOf: [{ anyOf: [{ 'user.region': { equals: r } }, { 'user.regions': { array_contains: r } }] }] },
    });
  sets.push({
    key: 'viewers_eu',
    conditions: { allOf: [{ 'user.roles': { array_contains: 'viewer' } }, { 'user.region': { in: ['eu'] } }] },
  });
  sets.push({
    key: 'senior_finance',
    parent_id: 'dept_finance',
    conditions: { allOf: [{ 'user.level': { 'greater-than': 3 } }] },
  });
  sets.push({ key: 'not_sales', conditions: { not: { 'user.department': { equals: 'sales' } } } });
  for (let i = sets.length; i < 20; i++)
    sets.push({
      key: `mixed_${i}`,
      conditions: {
        anyOf: [
          { allOf: [{ 'user.level': { equals: i % 5 } }, { 'user.region': { equals: REGIONS[i % 3] } }] },
          { 'user.email': { contains: `${i}9@` } },
        ],
      },
    });
  return sets;
}

/** 10 resource sets, 5 per resource: amounts under the user's limit, classifications, sensitivity, regions. */
function resourceSets() {
  const sets: { key: string; resource: string; conditions: object }[] = [];
  for (const type of ['document', 'folder']) {
    sets.push({
      key: `${type}_small`,
      resource: type,
      conditions: { allOf: [{ 'resource.amount': { 'less-than-equals': { ref: 'user.limit' } } }] },
    });
    for (const c of CLASSES)
      sets.push({
        key: `${type}_${c}`,
        resource: type,
        conditions: { allOf: [{ 'resource.classification': { equals: c } }] },
      });
    sets.push({
      key: `${type}_local`,
      resource: type,
      conditions: {
        allOf: [
          { 'resource.region': { equals: { ref: 'user.region' } } },
          { 'resource.classification': { 'not-equals': 'secret' } },
        ],
      },
    });
  }
  return sets;
}

async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function addAttributes(c: Client, env: Env): Promise<void> {
  const r = prng(SEED);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  for (const [key, type] of [
    ['level', 'number'],
    ['department', 'string'],
    ['region', 'string'],
    ['regions', 'array'],
    ['limit', 'number'],
  ]) {
    await c.call('POST', `${S}/users/attributes`, { key, type });
  }
  for (const res of ['document', 'folder']) {
    for (const [key, type] of [
      ['amount', 'number'],
      ['classification', 'string'],
      ['region', 'string'],
    ])
      await c.call('POST', `${S}/resources/${res}/attributes`, { key, type });
  }
  const users = env.users.map((u) => ({
    key: u.key,
    attributes: {
      level: Math.floor(r() * 6),
      department: pick(DEPARTMENTS),
      region: pick(REGIONS),
      regions: [pick(REGIONS)],
      limit: Math.floor(r() * 1000),
    },
  }));
  await inParallel(users, 8, (u) => c.call('PATCH', `${F}/users/${u.key}`, { attributes: u.attributes }));
  const instances = env.instances.map((i) => ({
    ref: i.ref,
    attributes: { amount: Math.floor(r() * 1000), classification: pick(CLASSES), region: pick(REGIONS) },
  }));
  await inParallel(instances, 8, (i) =>
    c.call('PATCH', `${F}/resource_instances/${i.ref}`, { attributes: i.attributes }),
  );
}

/** 40 rules: each user set gets two (type, action) grants on resource sets, spread over both types. */
async function addSetsAndRules(c: Client): Promise<number> {
  const us = userSets();
  const rs = resourceSets();
  for (const s of us)
    await c.call('POST', `${S}/condition_sets`, {
      key: s.key,
      name: s.key,
      type: 'userset',
      conditions: s.conditions,
      ...(s.parent_id ? { parent_id: s.parent_id } : {}),
    });
  for (const s of rs)
    await c.call('POST', `${S}/condition_sets`, {
      key: s.key,
      name: s.key,
      type: 'resourceset',
      resource_id: s.resource,
      conditions: s.conditions,
    });
  const actions: Record<string, string[]> = {
    document: ['read', 'comment', 'write', 'delete'],
    folder: ['read', 'write', 'delete'],
  };
  let n = 0;
  for (const [i, u] of us.entries()) {
    for (const k of [0, 1]) {
      const r = rs[(i * 2 + k) % rs.length];
      const a = actions[r.resource][(i + k) % actions[r.resource].length];
      await c.call('POST', `${F}/set_rules`, {
        user_set: u.key,
        permission: `${r.resource}:${a}`,
        resource_set: r.key,
      });
      n++;
    }
  }
  return n;
}

async function p50(url: string, env: Env, sample: Check[]): Promise<{ p50: number; p99: number; allowed: number }> {
  const c = new Client(new Pool(url, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 }), ENV_KEY);
  const body = (k: Check) => {
    const inst = env.instances[k.instance];
    return {
      user: { key: env.users[k.user].key },
      action: k.action,
      resource: { type: inst.type, key: inst.key, tenant: inst.tenant },
    };
  };
  for (const k of sample.slice(0, 1000)) await c.call('POST', '/allowed', body(k));
  const lat: number[] = [];
  let allowed = 0;
  for (const k of sample) {
    const t0 = process.hrtime.bigint();
    if ((await c.call<{ allow: boolean }>('POST', '/allowed', body(k))).allow) allowed++;
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  await c.pool.close();
  lat.sort((a, b) => a - b);
  return {
    p50: lat[Math.floor(lat.length / 2)],
    p99: lat[Math.ceil(lat.length * 0.99) - 1],
    allowed: allowed / sample.length,
  };
}

export async function run(): Promise<BenchResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-bench-abac-'));
  let server: RunningServer | undefined;
  try {
    const env = generateEnv();
    const ref = referenceDecider(env);
    server = await startServer({
      dataDir,
      port: 0,
      orgKey: ORG_KEY,
      envKeys: [{ project: 'p', env: 'e', key: ENV_KEY }],
    });
    const loader = new Client(
      new Pool(server.url, { connections: 8, pipelining: 1, keepAliveTimeout: 60_000 }),
      ORG_KEY,
    );
    await load(loader, env);
    await addAttributes(loader, env);
    const sample = checks(env, ref, 5_000, SEED);
    const rbac = await p50(server.url, env, sample);
    const rules = await addSetsAndRules(loader);
    const abac = await p50(server.url, env, sample);
    await loader.pool.close();
    const figures: BenchFigure[] = [
      { name: '/allowed p50, RBAC/ReBAC only (no set rules)', value: rbac.p50, unit: 'ms' },
      { name: '/allowed p50 with 20 user sets, 10 resource sets, 40 rules', value: abac.p50, unit: 'ms' },
      {
        name: '/allowed p50 with ABAC / without',
        value: abac.p50 / rbac.p50,
        unit: 'x',
        target: { op: '<', value: 2 },
      },
      { name: '/allowed p99, RBAC/ReBAC only', value: rbac.p99, unit: 'ms' },
      { name: '/allowed p99 with ABAC', value: abac.p99, unit: 'ms' },
    ];
    return {
      name: 'abac',
      description:
        'ABAC at the /allowed bench scale (server.bench.ts environment + attributes, 20 user sets, 10 resource sets): /allowed p50 with and without set rules.',
      figures,
      notes: [
        `5,000 sequential checks after 1,000 warm-up (half random, half through a membership), the same before and after ${rules} rules; allowed ${(rbac.allowed * 100).toFixed(1)}% without ABAC, ${(abac.allowed * 100).toFixed(1)}% with it.`,
        `Load average at the end: ${os.loadavg()[0].toFixed(2)} (the machine's 2 cores are shared).`,
      ],
    };
  } finally {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
