import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml } from '../../bench/generate.js';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { validateSources } from '../../src/config/index.js';
import type { DesiredState } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import type { LiveState } from '../../src/types/live.js';
import { startEnv, type Env } from './helpers.js';
import { groupsToRead } from '../helpers/group-reads.js';

/**
 * How many requests reading, planning and applying take, counted by the client's `onRequest` against
 * the real server: reads are paged lists (never one request per object), and memberships and role
 * assignments go through the bulk endpoint.
 */
const OPTIONS = { project: 'p', environment: 'e' };

function desiredOf(text: string): DesiredState {
  const r = validateSources([{ file: 'gen.yaml', text }]);
  if (!r.desired) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  return r.desired;
}

/** The fewest page requests that can read `live`: one list per kind, ceil(objects / page size) pages each. */
function pagesFor(live: LiveState): number {
  const users = [...live.users.values()];
  const groups = [...live.groups.values()];
  const assignments = users.reduce((n, u) => n + u.roles.length, 0) + groups.reduce((n, g) => n + g.members.length, 0);
  const pages = (n: number, size = 100) => Math.max(1, Math.ceil(n / size));
  return (
    pages(live.resources.size) +
    pages(live.roles.size) +
    pages(live.tenants.size) +
    pages(users.length) +
    pages(assignments, 1000) +
    pages(live.resourceInstances.size + groups.length) +
    pages(groups.length) +
    pages(groups.reduce((n, g) => n + g.memberOf.length, 0)) +
    pages(live.accessRequests.size) +
    // Attribute-based access: user and tenant attribute definitions, condition sets, set rules.
    pages(live.userAttributes.size) +
    pages(live.tenantAttributes.size) +
    pages(live.conditionSets.size) +
    pages(live.setRules.size)
  );
}

describe('requests', { timeout: 120_000 }, () => {
  let env: Env;
  const desired = desiredOf(
    toYaml(
      generateEnvironment({
        users: 320,
        groups: 24,
        maxDepth: 3,
        instances: 40,
        memberships: 500,
        tenants: 3,
        seed: 7,
      }) as never,
    ),
  );

  beforeAll(async () => {
    env = await startEnv();
    const { client } = env.client();
    const plan = planChanges(desired, await readLiveState(client), OPTIONS);
    const result = await applyPlan(plan, client);
    expect(result.failed).toEqual([]);
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a no-op plan reads at most ceil(objects / page size) per list, one role read per group, plus a small constant, and writes nothing', async () => {
    const { client, requests } = env.client();
    const live = await readLiveState(client);
    expect(planChanges(desired, live, OPTIONS).changes).toEqual([]);
    expect(live.users.size).toBe(320);
    expect(requests.every((r) => r.method === 'GET' && r.status === 200)).toBe(true);
    // The public `/groups/direct` items carry no roles: each group whose roles the tuples and derivations
    // leave open is read (`GET /groups/{key}/roles`); here every group holds one of several roles.
    const roleReads = requests.filter((r) => /\/groups\/[^/]+\/roles$/.test(r.path));
    expect(roleReads).toHaveLength(groupsToRead(desired).length);
    const types = new Set([...live.groups.values()].map((g) => g.type)).size;
    expect(requests.length).toBeLessThanOrEqual(pagesFor(live) + types + roleReads.length + 2);
    expect(client.counters().requests).toBe(requests.length);
  });

  it('a group of 200 members is applied in a handful of requests (the memberships in one bulk call)', async () => {
    const members = [...desired.users.keys()].slice(0, 200);
    const withGroup: DesiredState = {
      ...desired,
      groups: new Map([
        ...desired.groups,
        ['team:everyone', { type: 'team', key: 'everyone', tenant: 'tenant-0', members, roles: [], memberOf: [] }],
      ]),
    };
    const { client, requests } = env.client();
    const plan = planChanges(withGroup, await readLiveState(client), OPTIONS);
    expect(plan.summary).toEqual({ create: 201, update: 0, delete: 0 });
    const reads = requests.length;
    const result = await applyPlan(plan, client);
    expect(result.failed).toEqual([]);
    expect(result.done).toHaveLength(201);
    const writes = requests.slice(reads);
    expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v2/schema/p/e/groups',
      'POST /v2/facts/p/e/role_assignments/bulk',
    ]);

    // Re-planning shows nothing left, and the group has exactly its 200 members.
    const live = await readLiveState(client);
    expect(planChanges(withGroup, live, OPTIONS).changes).toEqual([]);
    expect(live.groups.get('team:everyone')!.members).toHaveLength(200);
  });

  it('user role assignments go through the bulk endpoint too', async () => {
    const { client, requests } = env.client();
    const extra: DesiredState = structuredClone(desired);
    const without = [...extra.users.values()]
      .filter((u) => !u.roles.some((r) => r.role === 'admin' && !r.on))
      .slice(0, 150);
    for (const u of without) u.roles.push({ role: 'admin', tenant: u.tenants[0] });
    const plan = planChanges(extra, await readLiveState(client), OPTIONS);
    expect(plan.summary).toEqual({ create: 150, update: 0, delete: 0 });
    const reads = requests.length;
    await applyPlan(plan, client);
    expect(requests.slice(reads).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v2/facts/p/e/role_assignments/bulk',
    ]);
    // Removing them again: one bulk delete.
    const back = planChanges(desired, await readLiveState(client), OPTIONS);
    // Only the roles: the users were added to the tenant they list on the first apply, and stay (issue #15).
    expect(back.summary).toEqual({ create: 0, update: 0, delete: 150 });
    const before = requests.length;
    await applyPlan(back, client);
    expect(
      requests
        .slice(before)
        .filter((r) => r.method !== 'GET')
        .map((r) => `${r.method} ${r.path}`),
    ).toEqual(['DELETE /v2/facts/p/e/role_assignments/bulk']);
    expect(planChanges(desired, await readLiveState(client), OPTIONS).changes).toEqual([]);
  });
});
