/**
 * Every list query agrees with /allowed (issue 40; docs/server.md "Who can do what"): random environments
 * mixing top-level and resource roles with `extends`, derivations over tuples, groups (links, `member`
 * grants) and attributes (set rules over user and resource sets), written through the public API
 * (test/access/public-env.ts, test/access/abac-env.ts: the writers model-agreement and abac-agreement
 * use), then, against `POST /allowed/bulk` on every (user, action, instance) and type-level check:
 *   - a user is in `/authorized_users` (ABAC holders on) ⇔ /allowed; without the flag, a subset;
 *   - `/user-permissions` (ABAC on for every type) lists the action on the instance, in its entry or in
 *     its tenant's entry by roles (the answer without ABAC) ⇔ /allowed;
 *   - `/allowed/all-tenants` lists tenant t ⇔ /allowed with tenant t;
 *   - AuthZEN: evaluation, search/subject, search/resource, search/action ⇔ /allowed.
 * Lists name only what the environment stores (users it knows, instances it holds), which ABAC may allow
 * beyond: those are left out of the comparison. Each failure names the claim and the check. `npm test`: 2 environments (fixed seed);
 * `npm run test:lists` (ROSTER_PROPERTY_RUNS=50) for more; ROSTER_PROPERTY_SEED replays. On PostgreSQL 1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, TEST_STORE, type TestServer } from '../helpers/server.js';
import { arbPublicEnv, CHECKED_INSTANCES, describeWrite, PUBLIC_POOLS, writeEnv } from '../access/public-env.js';
import { abacWrites, arbAbacSpec } from '../access/abac-env.js';
import { allPages, ok } from './builders.js';

// Each check is several round trips on PostgreSQL: one environment there (about a minute on a loaded machine).
const RUNS = Number(process.env.ROSTER_PROPERTY_RUNS || (TEST_STORE === 'postgres' ? 1 : 2));
const SEED = { seed: Number(process.env.ROSTER_PROPERTY_SEED || 4040) };
const SHRINK = process.env.ROSTER_PROPERTY_NO_SHRINK ? { endOnFailure: true } : {};

const USERS = [...PUBLIC_POOLS.users, 'nobody'];
const ACTIONS = PUBLIC_POOLS.actions;
const TYPES = ['document', 'folder', 'team'];
const TENANTS = [...PUBLIC_POOLS.tenants, 'default'];
/** Lists name only what the environment stores: users it knows, instances it holds (ABAC may allow others). */
const STORED_USERS = new Set<string>(PUBLIC_POOLS.users);
const split = (ref: string) => ({ type: ref.slice(0, ref.indexOf(':')), key: ref.slice(ref.indexOf(':') + 1) });

const arbEnv = fc.tuple(arbPublicEnv, arbAbacSpec).map(([base, spec]) => {
  const writes = [...base, ...abacWrites(spec)];
  return Object.assign(writes, { [fc.toStringMethod]: () => `\n${writes.map(describeWrite).join('\n')}\n` });
});

type Resource = { type: string; key?: string; tenant?: string };
interface Check {
  user: string;
  action: string;
  resource: Resource;
  /** The instance exists (one never created is in no tenant: /allowed denies it). */
  stored?: boolean;
}
const named = (c: Check) => `${c.user} ${c.action} ${JSON.stringify(c.resource)}`;

/** The checks the property asks about: every instance (in its tenant) and every type in every tenant. */
function checksOf(tenantOf: Map<string, string>): Check[] {
  const resources = [
    ...CHECKED_INSTANCES.map((ref) => ({
      resource: { ...split(ref), tenant: tenantOf.get(ref) ?? 't0' },
      stored: tenantOf.has(ref),
    })),
    ...TYPES.flatMap((type) => TENANTS.map((tenant) => ({ resource: { type, tenant }, stored: true }))),
  ];
  return USERS.flatMap((user) => ACTIONS.flatMap((action) => resources.map((r) => ({ user, action, ...r }))));
}

async function decisions(s: TestServer, checks: Check[]): Promise<Map<string, boolean>> {
  const body = checks.map((c) => ({ user: { key: c.user }, action: c.action, resource: c.resource }));
  const r = ok(await s.call('POST', '/allowed/bulk', { checks: body }, { key: ENV_KEY }));
  return new Map(checks.map((c, i) => [named(c), r.allow[i].allow as boolean]));
}

const post = async (s: TestServer, path: string, body: unknown) =>
  ok(await s.call('POST', path, body, { key: ENV_KEY }));

/** Claims that broke, one line each. */
type Wrong = string[];

async function authorizedUsersAgree(s: TestServer, checks: Check[], allowed: Map<string, boolean>, wrong: Wrong) {
  const asked = new Map<string, Set<string>>();
  for (const c of checks) {
    const k = `${c.action} ${JSON.stringify(c.resource)}`;
    if (!asked.has(k)) {
      const withAbac = await post(s, '/authorized_users', {
        action: c.action,
        resource: c.resource,
        context: { enable_abac_authorized_users: true },
      });
      const without = await post(s, '/authorized_users', { action: c.action, resource: c.resource });
      for (const u of Object.keys(without.users))
        if (!withAbac.users[u]) wrong.push(`authorized_users without ABAC ⊆ with: ${u} ${k}`);
      asked.set(k, new Set(Object.keys(withAbac.users)));
    }
    if (STORED_USERS.has(c.user) && asked.get(k)!.has(c.user) !== allowed.get(named(c)))
      wrong.push(`authorized_users = /allowed: ${named(c)} (/allowed ${allowed.get(named(c)) ? 'allows' : 'denies'})`);
  }
}

async function userPermissionsAgree(s: TestServer, checks: Check[], allowed: Map<string, boolean>, wrong: Wrong) {
  const types = [...TYPES, '__tenant'];
  for (const user of USERS) {
    const full = await post(s, '/user-permissions', {
      user: { key: user },
      resource_types: types,
      context: { enable_abac_user_permissions: true },
    });
    const byRoles = await post(s, '/user-permissions', { user: { key: user } });
    for (const c of checks) {
      if (c.user !== user || !c.resource.key || !c.stored) continue;
      const permission = `${c.resource.type}:${c.action}`;
      const listed =
        (full[`${c.resource.type}:${c.resource.key}`]?.permissions ?? []).includes(permission) ||
        (byRoles[`__tenant:${c.resource.tenant}`]?.permissions ?? []).includes(permission);
      if (listed !== allowed.get(named(c)))
        wrong.push(
          `user-permissions = /allowed: ${named(c)} (/allowed ${allowed.get(named(c)) ? 'allows' : 'denies'})`,
        );
    }
  }
}

async function allTenantsAgree(s: TestServer, checks: Check[], wrong: Wrong) {
  // In t0, every type-level check and the instance checks of one action: all-tenants repeats /allowed per
  // tenant, so the other actions add time, not cases.
  const asked = checks.filter((c) => c.resource.tenant === 't0' && (!c.resource.key || c.action === ACTIONS[0]));
  const everywhere = asked.flatMap((c) => TENANTS.map((tenant) => ({ ...c, resource: { ...c.resource, tenant } })));
  const there = await decisions(s, everywhere);
  for (const c of asked) {
    const r = await post(s, '/allowed/all-tenants', { user: { key: c.user }, action: c.action, resource: c.resource });
    const listed = new Set(r.allowed_tenants.map((t: { tenant: { key: string } }) => t.tenant.key));
    for (const tenant of TENANTS)
      if (listed.has(tenant) !== there.get(named({ ...c, resource: { ...c.resource, tenant } })))
        wrong.push(`all-tenants = /allowed: ${named(c)} in ${tenant}`);
  }
}

async function authzenAgrees(s: TestServer, checks: Check[], allowed: Map<string, boolean>, wrong: Wrong) {
  const instance = (c: Check) => ({
    type: c.resource.type,
    id: c.resource.key,
    properties: { tenant: c.resource.tenant },
  });
  const subjects = new Map<string, Set<string>>();
  const resources = new Map<string, Set<string>>();
  const actions = new Map<string, Set<string>>();
  const onInstances = checks.filter((x) => x.resource.key);
  const evaluated = await post(s, '/access/v1/evaluations', {
    evaluations: onInstances.map((c) => ({
      subject: { type: 'user', id: c.user },
      action: { name: c.action },
      resource: instance(c),
    })),
  });
  for (const [i, c] of onInstances.entries()) {
    const is = allowed.get(named(c));
    if (evaluated.evaluations[i].decision !== is) wrong.push(`evaluations = /allowed: ${named(c)}`);
    const sk = `${c.action} ${c.resource.type}:${c.resource.key}`;
    if (!subjects.has(sk)) {
      const r = await post(s, '/access/v1/search/subject', {
        subject: { type: 'user' },
        action: { name: c.action },
        resource: instance(c),
      });
      subjects.set(sk, new Set(r.results.map((x: { id: string }) => x.id)));
    }
    if (STORED_USERS.has(c.user) && subjects.get(sk)!.has(c.user) !== is)
      wrong.push(`search/subject = /allowed: ${named(c)}`);
    const rk = `${c.user} ${c.action} ${c.resource.type}`;
    if (!resources.has(rk)) {
      const r = await post(s, '/access/v1/search/resource', {
        subject: { type: 'user', id: c.user },
        action: { name: c.action },
        resource: { type: c.resource.type },
      });
      resources.set(rk, new Set(r.results.map((x: { id: string }) => x.id)));
    }
    if (c.stored && resources.get(rk)!.has(c.resource.key!) !== is)
      wrong.push(`search/resource = /allowed: ${named(c)}`);
    const ak = `${c.user} ${c.resource.type}:${c.resource.key}`;
    if (!actions.has(ak)) {
      const r = await post(s, '/access/v1/search/action', {
        subject: { type: 'user', id: c.user },
        resource: instance(c),
      });
      actions.set(ak, new Set(r.results.map((x: { name: string }) => x.name)));
    }
    if (actions.get(ak)!.has(`${c.resource.type}:${c.action}`) !== is)
      wrong.push(`search/action = /allowed: ${named(c)}`);
  }
}

const seen = { checks: 0, allowed: 0 };

describe('the list queries agree with /allowed on random environments', () => {
  it('authorized_users, user-permissions, all-tenants and AuthZEN ⇔ /allowed', async () => {
    await fc.assert(
      fc.asyncProperty(arbEnv, async (writes) => {
        const s = await startTestServer();
        try {
          await writeEnv(s, writes);
          const stored = await allPages<{ key: string; resource: string; tenant: string }>(
            s,
            '/v2/facts/p/e/resource_instances',
          );
          const tenantOf = new Map(stored.map((i) => [`${i.resource}:${i.key}`, i.tenant]));
          const checks = checksOf(tenantOf);
          const allowed = await decisions(s, checks);
          seen.checks += checks.length;
          seen.allowed += [...allowed.values()].filter(Boolean).length;
          const wrong: Wrong = [];
          const phases = [
            () => authorizedUsersAgree(s, checks, allowed, wrong),
            () => userPermissionsAgree(s, checks, allowed, wrong),
            () => allTenantsAgree(s, checks, wrong),
            () => authzenAgrees(s, checks, allowed, wrong),
          ];
          for (const [i, phase] of phases.entries()) {
            const start = Date.now();
            await phase();
            if (process.env.ROSTER_PROPERTY_VERBOSE) console.log(`phase ${i}: ${Date.now() - start} ms`);
          }
          expect(wrong).toEqual([]);
        } finally {
          await s.close();
        }
      }),
      { numRuns: RUNS, ...SEED, ...SHRINK },
    );
    if (process.env.ROSTER_PROPERTY_VERBOSE) console.log(JSON.stringify(seen));
    // The agreement says little when nothing is ever allowed.
    expect(seen.allowed).toBeGreaterThan(0);
  }, 900_000);
});
