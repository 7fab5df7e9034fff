import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEnvironment, prng, toYaml } from '../../bench/generate.js';
import { readLiveState } from '../../src/api/read-live.js';
import { applyPlan } from '../../src/apply/apply.js';
import { validateSources } from '../../src/config/index.js';
import type { DesiredState } from '../../src/types/desired.js';
import { planChanges } from '../../src/plan/plan.js';
import type { Plan } from '../../src/plan/types.js';
import { startEnv, type Env } from './helpers.js';

/**
 * Issue #15 item 2, on the real server: a user's presence in a tenant they declare does not depend on
 * their memberships. A membership edit plans membership changes only (it planned `+ tenant_user` for
 * every user whose last membership in a tenant went), and pruning a group does not plan its former
 * member back into the tenant.
 */
const OPTIONS = { project: 'p', environment: 'e' };

function desiredOf(text: string): DesiredState {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  if (!r.desired) throw new Error(JSON.stringify(r.errors.slice(0, 3)));
  return r.desired;
}

const kinds = (plan: Plan) => [...new Set(plan.changes.map((c) => `${c.action} ${c.kind}`))].sort();
const TENANT_USERS = /^\/v2\/facts\/edit\/e\/tenants\/[^/]+\/users$/;

describe('tenant presence does not follow memberships', { timeout: 180_000 }, () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv({ projects: ['edit', 'prune'] });
  });
  afterAll(async () => {
    await env?.close();
  });

  it('a 2% membership edit of a generated environment plans and applies only membership changes', async () => {
    const raw = generateEnvironment({
      users: 600,
      groups: 40,
      maxDepth: 3,
      instances: 60,
      memberships: 1200,
      tenants: 5,
      seed: 15,
    });
    const desired = desiredOf(toYaml(raw as never));
    const { client, requests } = env.client('edit');

    // First apply: every user is added to the tenant they declare, one POST each (the public API has no
    // bulk form of it: docs/plan.md), sent side by side.
    const first = planChanges(desired, await readLiveState(client), OPTIONS);
    const pairs = [...desired.users.values()].reduce((n, u) => n + u.tenants.length, 0);
    expect(first.changes.filter((c) => c.kind === 'tenant_user')).toHaveLength(pairs);
    const reads = requests.length;
    let inFlight = 0;
    let most = 0;
    const onEvent = (e: { type: string; change: { kind: string } }) => {
      if (e.change.kind !== 'tenant_user') return;
      if (e.type === 'start') most = Math.max(most, ++inFlight);
      else inFlight--;
    };
    expect((await applyPlan(first, client, { onEvent })).failed).toEqual([]);
    // Side by side, as many as --concurrency allows (default 8).
    expect(most).toBe(8);
    expect(requests.slice(reads).filter((r) => r.method === 'POST' && TENANT_USERS.test(r.path))).toHaveLength(pairs);
    expect(planChanges(desired, await readLiveState(client), OPTIONS).changes).toEqual([]);

    // Remove 24 memberships (2%), half of them their user's last one in the tenant (the case),
    // and add 24 others.
    const edited = structuredClone(desired);
    const random = prng(15);
    const count = new Map<string, number>();
    for (const g of edited.groups.values())
      for (const u of g.members) count.set(`${u}@${g.tenant}`, (count.get(`${u}@${g.tenant}`) ?? 0) + 1);
    const memberships = [...edited.groups].flatMap(([ref, g]) =>
      g.members.map((u) => ({ ref, u, last: count.get(`${u}@${g.tenant}`) === 1 })),
    );
    const removed = [
      ...memberships.filter((m) => m.last).slice(0, 12),
      ...memberships.filter((m) => !m.last).slice(0, 12),
    ];
    expect(removed.filter((m) => m.last)).toHaveLength(12);
    for (const m of removed)
      edited.groups.get(m.ref)!.members = edited.groups.get(m.ref)!.members.filter((u) => u !== m.u);
    const users = [...edited.users.values()];
    let added = 0;
    while (added < 24) {
      const [ref, g] = [...edited.groups][Math.floor(random() * edited.groups.size)];
      const u = users[Math.floor(random() * users.length)];
      if (
        !u.tenants.includes(g.tenant) ||
        g.members.includes(u.key) ||
        removed.some((m) => m.ref === ref && m.u === u.key)
      )
        continue;
      g.members = [...g.members, u.key].sort();
      added++;
    }

    const plan = planChanges(edited, await readLiveState(client), OPTIONS);
    expect(plan.summary).toEqual({ create: 24, update: 0, delete: 24 });
    expect(kinds(plan)).toEqual(['create member', 'delete member']);
    const before = requests.length;
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    const writes = requests.slice(before).filter((r) => r.method !== 'GET');
    expect(writes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'DELETE /v2/facts/edit/e/role_assignments/bulk',
      'POST /v2/facts/edit/e/role_assignments/bulk',
    ]);

    const live = await readLiveState(client);
    expect(planChanges(edited, live, OPTIONS).changes).toEqual([]);
    // Those who lost their last membership in a tenant are still in it.
    for (const m of removed.filter((r) => r.last))
      expect(live.users.get(m.u)!.tenants).toContain(edited.groups.get(m.ref)!.tenant);
  });

  it('pruning a group keeps its former member, who holds no other role there, in the tenant', async () => {
    const text = (withGroup: boolean) => `version: 1
resources:
  document: { name: Document, actions: [read] }
roles:
  viewer: { name: Viewer, permissions: [document:read] }
tenants:
  globex-hq: { name: Globex HQ }
users:
  otto: { tenants: [globex-hq] }
${withGroup ? 'groups:\n  team:ops: { tenant: globex-hq, members: [otto] }\n' : 'groups: {}\n'}`;
    const { client } = env.client('prune');
    const first = planChanges(desiredOf(text(true)), await readLiveState(client), OPTIONS);
    expect(first.changes.map((c) => c.id)).toContain('tenant_user:otto@globex-hq');
    expect((await applyPlan(first, client)).failed).toEqual([]);

    const pruned = desiredOf(text(false));
    const plan = planChanges(pruned, await readLiveState(client), { ...OPTIONS, prune: true });
    // The group's type (the service made it with the group) goes with its last group; otto stays put.
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual(['delete group:team:ops', 'delete resource:team']);
    expect((await applyPlan(plan, client)).failed).toEqual([]);
    const live = await readLiveState(client);
    expect(live.users.get('otto')!.tenants).toEqual(['globex-hq']);
    expect(planChanges(pruned, live, { ...OPTIONS, prune: true }).changes).toEqual([]);
  });
});
