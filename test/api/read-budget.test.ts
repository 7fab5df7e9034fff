import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { startProxy, type Proxy, type ProxiedRequest } from '../../bench/proxy.js';
import { createClient } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { validateSources } from '../../src/config/index.js';
import type { DesiredState } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import { ORG_KEY, startEnv, type Env } from '../apply/helpers.js';
import { groupsToRead } from '../helpers/group-reads.js';

/**
 * What a no-op plan costs in requests, counted by a proxy between the client and the real server that
 * adds a little latency (so that what runs at once can be seen): list pages, the group-role tuples of
 * each group type, and one roles read for exactly the groups the tuples and derivations leave open.
 */
const OPTIONS = { project: 'p', environment: 'e' };
const PAGE = 100;

function desiredOf(text: string): DesiredState {
  const r = validateSources([{ file: 'gen.yaml', text }]);
  if (!r.desired) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  return r.desired;
}

/** The fewest list pages that read `desired` once applied, with the tuples of each group type. */
function listPages(desired: DesiredState): number {
  const pages = (n: number, size = PAGE) => Math.max(1, Math.ceil(n / size));
  const users = [...desired.users.values()];
  const groups = [...desired.groups.values()];
  const assignments = users.reduce((n, u) => n + u.roles.length, 0) + groups.reduce((n, g) => n + g.members.length, 0);
  const types = new Set(groups.map((g) => g.type));
  const roleTuples = [...types].map((t) =>
    groups.filter((g) => g.type === t).reduce((n, g) => n + new Set(g.roles.map((r) => r.on)).size, 0),
  );
  return (
    pages(desired.resources.size + types.size) +
    pages(desired.roles.size + 1) +
    pages(desired.tenants.size) +
    pages(users.length) +
    pages(assignments, 1000) +
    pages(desired.resourceInstances.size + groups.length) +
    pages(groups.length) +
    pages(groups.reduce((n, g) => n + g.memberOf.length, 0)) +
    pages(desired.accessRequests.size) +
    roleTuples.reduce((n, t) => n + pages(t), 0) +
    // Attribute-based access: user and tenant attribute definitions, condition sets, set rules.
    pages(desired.userAttributes.size) +
    pages(desired.tenantAttributes.size) +
    pages(desired.conditionSets.size) +
    pages(desired.setRules.size)
  );
}

/** Most requests of `list` whose time in flight overlaps the start of one of them. */
function overlap(list: ProxiedRequest[]): number {
  return Math.max(0, ...list.map((a) => list.filter((b) => b.start <= a.start && b.end > a.start).length));
}

describe('the requests of a no-op plan', { timeout: 180_000 }, () => {
  let env: Env;
  let proxy: Proxy;
  const desired = desiredOf(
    toYaml(
      generateEnvironment({
        users: 400,
        groups: 80,
        maxDepth: 3,
        instances: 90,
        memberships: 800,
        tenants: 3,
        seed: 11,
        groupRoles: 'by-type',
      }) as never,
    ),
  );

  beforeAll(async () => {
    env = await startEnv();
    const { client } = env.client();
    const result = await applyPlan(planChanges(desired, await readLiveState(client), OPTIONS), client);
    expect(result.failed).toEqual([]);
    proxy = await startProxy({ upstream: env.server.url, latencyMs: 10 });
  });
  afterAll(async () => {
    await proxy?.close();
    await env?.close();
  });

  it('are list pages, the group-role tuples, and a roles read only for the groups that need one', async () => {
    proxy.reset();
    const client = createClient({ baseUrl: proxy.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
    try {
      const live = await readLiveState(client);
      expect(planChanges(desired, live, OPTIONS).changes).toEqual([]);
    } finally {
      await client.close();
    }
    const seen = proxy.seen;
    expect(seen.every((r) => r.method === 'GET' && r.status === 200)).toBe(true);
    const roleReads = seen
      .filter((r) => /\/groups\/[^/]+\/roles$/.test(r.path))
      .map((r) => decodeURIComponent(r.path.split('/')[6]));
    const needed = groupsToRead(desired);
    // The environment has both kinds: groups fixed by the records, and squads that must be read.
    expect(needed.length).toBeGreaterThan(0);
    expect(needed.length).toBeLessThan(desired.groups.size / 4);
    expect(roleReads.sort()).toEqual(needed);
    expect(seen.length - roleReads.length).toBeLessThanOrEqual(listPages(desired));
  });

  it('no read loop is sequential: pages of one list and the groups\u2019 roles reads overlap', async () => {
    proxy.reset();
    const client = createClient({ baseUrl: proxy.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
    try {
      await readLiveState(client);
    } finally {
      await client.close();
    }
    const roles = proxy.seen.filter((r) => /\/groups\/[^/]+\/roles$/.test(r.path));
    const userPages = proxy.seen.filter((r) => /\/facts\/p\/e\/users$/.test(r.path));
    expect(roles.length).toBeGreaterThan(1);
    expect(userPages.length).toBeGreaterThan(2);
    expect(overlap(roles)).toBeGreaterThan(1);
    // After the first page tells the page count, the other pages are asked for together.
    expect(overlap(userPages.slice(1))).toBe(userPages.length - 1);
    expect(proxy.maxInFlight()).toBeGreaterThanOrEqual(4);
  });
});
