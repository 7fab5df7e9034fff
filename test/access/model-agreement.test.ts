/**
 * One model of access (issue 28): on random environments written through the public API by another
 * tool (test/access/public-env.ts), the client's model agrees with the server, property by property.
 * Each property fails with the claim it broke and the calls that wrote the environment.
 *
 * `npm test` runs a few environments per property; ROSTER_PROPERTY_RUNS=500 (or `npm run test:model`)
 * runs more. ROSTER_PROPERTY_SEED replays a failure's seed.
 */
import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildAccessGraph, type AccessGraph } from '../../src/access/index.js';
import { factsFromState } from '../../src/access/from-state.js';
import { checksNeeded, evaluateAssertions, type AssertionSpec } from '../../src/access/assertions.js';
import { createClient } from '../../src/api/index.js';
import { readLiveState } from '../../src/api/read-live.js';
import { readDecisions } from '../../src/api/read-decisions.js';
import { applyPlan } from '../../src/apply/apply.js';
import { validateSources } from '../../src/config/index.js';
import { buildExport } from '../../src/config/export.js';
import { liveAfter } from '../../src/plan/after.js';
import { planChanges } from '../../src/plan/plan.js';
import type { LiveState } from '../../src/types/live.js';
import { ENV_KEY, ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { arbPublicEnv, CHECKED_INSTANCES, PUBLIC_POOLS, writeEnv, type Write } from './public-env.js';
import { applyEdit, arbConfigEdit, comparableState, type ConfigEdit } from './public-edit.js';

const RUNS = Number(process.env.ROSTER_PROPERTY_RUNS || 2);
const SEED = process.env.ROSTER_PROPERTY_SEED ? { seed: Number(process.env.ROSTER_PROPERTY_SEED) } : {};
/** ROSTER_PROPERTY_NO_SHRINK=1 reports the first failure as found (shrinking an environment takes minutes). */
const SHRINK = process.env.ROSTER_PROPERTY_NO_SHRINK ? { endOnFailure: true } : {};
const SCOPE = { project: 'p', environment: 'e' };

interface Triple {
  user: string;
  action: string;
  instance: string;
}
const TRIPLES: Triple[] = PUBLIC_POOLS.users.flatMap((user) =>
  PUBLIC_POOLS.actions.flatMap((action) => CHECKED_INSTANCES.map((instance) => ({ user, action, instance }))),
);
const name = (t: Triple) => `${t.user} ${t.instance.split(':')[0]}:${t.action} ${t.instance}`;

/** The server's answers on every triple, in TRIPLES order. */
async function allowed(server: TestServer): Promise<boolean[]> {
  const r = await server.call(
    'POST',
    '/allowed/bulk',
    {
      checks: TRIPLES.map((t) => ({
        user: { key: t.user },
        action: t.action,
        resource: { type: t.instance.split(':')[0], key: t.instance.split(':')[1] },
      })),
    },
    { key: ENV_KEY },
  );
  expect(r.status).toBe(200);
  return r.body.allow.map((a: { allow: boolean }) => a.allow);
}

const graphOf = (state: LiveState) => buildAccessGraph(factsFromState(state));

/** Every triple on which two graphs disagree, named by `claim`. */
function sameAccess(claim: string, a: AccessGraph, b: AccessGraph | boolean[]): void {
  const wrong = TRIPLES.filter(
    (t, i) =>
      a.can(t.user, t.action, t.instance).allowed !==
      (Array.isArray(b) ? b[i] : b.can(t.user, t.action, t.instance).allowed),
  );
  expect(
    wrong.map(
      (t) => `${claim}: ${name(t)} (${a.can(t.user, t.action, t.instance).allowed ? 'left allows' : 'left denies'})`,
    ),
  ).toEqual([]);
}

/** A fresh server holding the environment `writes` make; `run` gets it and a client. */
async function withEnv(writes: Write[], run: (server: TestServer, client: Client) => Promise<void>): Promise<void> {
  const server = await startTestServer();
  const client = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e', pacing: 'none' });
  try {
    await writeEnv(server, writes);
    await run(server, client);
  } finally {
    await client.close();
    await server.close();
  }
}

type Client = ReturnType<typeof createClient>;
const property = (run: (server: TestServer, client: Client, edit: ConfigEdit, pick: number[]) => Promise<void>) =>
  fc.assert(
    fc.asyncProperty(
      arbPublicEnv,
      arbConfigEdit,
      fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
      (writes, edit, pick) => withEnv(writes, (s, c) => run(s, c, edit, pick)),
    ),
    { numRuns: RUNS, ...SEED, ...SHRINK },
  );

describe('one model: environments written through the public API', () => {
  it('graph = /allowed: the live state read back and made a graph answers every (user, action, instance) as /allowed/bulk does', async () => {
    await property(async (server, client) => {
      const live = await readLiveState(client);
      sameAccess('graph = /allowed', graphOf(live), await allowed(server));
    });
  }, 600_000);

  it('graph = /allowed on the case issue 28 names: members of a group linked into, or given `member` on, a team that owns a folder', async () => {
    const w = (method: Write['method'], api: Write['api'], path: string, body: unknown): Write => ({
      method,
      api,
      path,
      body,
    });
    const writes = [
      w('POST', 'schema', '/resources', { key: 'team', name: 'team', actions: {} }),
      w('POST', 'schema', '/resources', { key: 'folder', name: 'folder', actions: { read: {} } }),
      w('POST', 'schema', '/resources/folder/relations', {
        key: 'owner_team',
        name: 'owner_team',
        subject_resource: 'team',
      }),
      w('POST', 'schema', '/resources/folder/roles', { key: 'viewer', name: 'viewer', permissions: ['read'] }),
      w('POST', 'facts', '/tenants', { key: 't0', name: 't0' }),
      ...['u0', 'u1', 'u2'].map((key) => w('POST', 'facts', '/users', { key })),
      w('POST', 'facts', '/resource_instances', { key: 'f0', resource: 'folder', tenant: 't0' }),
      ...['a', 'b', 'c'].map((key) =>
        w('POST', 'schema', '/groups', {
          group_instance_key: key,
          group_resource_type_key: 'team',
          group_tenant: 't0',
        }),
      ),
      w('POST', 'schema', '/resources/folder/roles/viewer/implicit_grants', {
        role: 'member',
        on_resource: 'team',
        linked_by_relation: 'owner_team',
      }),
      w('POST', 'facts', '/relationship_tuples', { subject: 'team:b', relation: 'owner_team', object: 'folder:f0' }),
      w('PUT', 'schema', '/groups/team:a/assign_group', { group_instance_key: 'team:b' }),
      w('POST', 'schema', '/groups/team:c/roles', {
        role: 'member',
        resource: 'team',
        resource_instance: 'b',
        tenant: 't0',
      }),
      ...[
        ['u0', 'a'],
        ['u1', 'b'],
        ['u2', 'c'],
      ].map(([u, g]) => w('PUT', 'schema', `/groups/team:${g}/users/${u}`, { tenant: 't0' })),
    ];
    await withEnv(writes, async (server, client) => {
      const graph = graphOf(await readLiveState(client));
      // u1 directly, u2 through c's `member` on b, u0 through a's link into b: each holds member on b.
      for (const u of ['u0', 'u1', 'u2'])
        expect(graph.can(u, 'read', 'folder:f0').allowed, `the graph: ${u} folder:read folder:f0`).toBe(true);
      sameAccess('graph = /allowed', graph, await allowed(server));
    });
  });

  it('export round trip: the export validates, plans to no changes against the same live state, and grants what the live state grants', async () => {
    await property(async (_server, client) => {
      const live = await readLiveState(client);
      const exported = validateSources([{ file: 'export.yaml', text: buildExport(live) }]);
      expect(exported.errors, 'export round trip: the export validates').toEqual([]);
      for (const prune of [false, true]) {
        expect(
          planChanges(exported.desired!, live, { ...SCOPE, prune }).changes,
          `export round trip: no changes (prune: ${prune})`,
        ).toEqual([]);
      }
      sameAccess('export round trip: the export grants what live grants', graphOf(exported.desired!), graphOf(live));
    });
  }, 600_000);

  it('state after the plan = what the server reads back after the apply: an edited export planned, applied and read back', async () => {
    await property(async (server, client, edit) => {
      const live = await readLiveState(client);
      const text = JSON.stringify(applyEdit(parse(buildExport(live)), edit));
      const loaded = validateSources([{ file: 'edited.yaml', text }]);
      expect(loaded.errors, `state after the plan: the edited export validates\n${text}`).toEqual([]);
      const plan = planChanges(loaded.desired!, live, SCOPE);
      const after = liveAfter(live, plan.changes);
      const applied = await applyPlan(plan, client);
      expect(applied.failed, 'state after the plan: the apply succeeds').toEqual([]);
      const back = await readLiveState(client);
      const planned = plan.changes
        .map((c) => `${c.action} ${c.kind} ${JSON.stringify(c.action === 'delete' ? c.before : c.after)}`)
        .join('\n');
      expect(comparableState(after), `state after the plan = the state read back; the plan:\n${planned}`).toEqual(
        comparableState(back),
      );
      sameAccess('state after the plan: its graph = the graph read back', graphOf(after), graphOf(back));
      sameAccess('state after the plan: graph = /allowed after the apply', graphOf(back), await allowed(server));
    });
  }, 600_000);

  it('check --live: assertions evaluated offline on the live state = the same checked against /allowed/bulk', async () => {
    await property(async (_server, client, _edit, pick) => {
      const live = await readLiveState(client);
      const graph = graphOf(live);
      // Assertions stating the graph's answers on a sample of triples, some flipped; and on each group's members.
      const sample = pick.map((n) => TRIPLES[n % TRIPLES.length]).filter((t) => t.instance !== 'document:x9');
      const assertions: AssertionSpec[] = sample.map((t, i) => {
        const can = graph.can(t.user, t.action, t.instance).allowed !== (pick[i] % 5 === 0);
        return { user: t.user, check: can ? 'can' : 'cannot', subject: t.action, on: t.instance };
      });
      for (const [i, g] of PUBLIC_POOLS.groups.entries()) {
        const t = TRIPLES[pick[i] % TRIPLES.length];
        assertions.push({ usersIn: g, check: pick[i] % 2 === 0 ? 'can' : 'cannot', subject: t.action, on: t.instance });
      }
      const offline = evaluateAssertions(assertions, graph);
      const decisions = await readDecisions(client, SCOPE, checksNeeded(assertions, graph));
      const onLive = evaluateAssertions(assertions, graph, { decisions });
      const verdicts = (r: typeof offline) =>
        r.results.map(
          (x) => `${x.name}: ${x.passed ? 'passes' : `fails for ${x.failures.map((f) => f.user).join(', ')}`}`,
        );
      expect(verdicts(offline), 'check --live = check on the live state offline').toEqual(verdicts(onLive));
    });
  }, 600_000);
});
