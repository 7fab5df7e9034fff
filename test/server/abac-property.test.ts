import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  autogenSets,
  checkAttributes,
  decideAbac,
  parseConditions,
  type AbacModel,
  type Json,
  type JsonObject,
  type SetDef,
} from '../../src/access/conditions/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from './builders.js';

/**
 * /allowed's ABAC against the pure core on random environments written through the public API: the
 * test keeps its own copy of what it wrote (attributes with and without definitions, role assignments
 * per tenant, tenant and instance attributes, sets with parents, rules on sets and on roles), builds
 * each check's facts from it, and asks `decideAbac`. Roles grant nothing, so RBAC never allows: every
 * difference is the server's loading of ABAC data (definitions, merge order, tenants, roles, parents).
 */
let s: TestServer;
let run = 0;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const DEFINED = ['level', 'tag', 'tags'];
const ATTRS = [
  'user.level',
  'user.tag',
  'user.tags',
  'user.key',
  'user.roles',
  'resource.level',
  'resource.tag',
  'tenant.tier',
  'tenant.key',
  'context.x',
];
const OPS = [
  'equals',
  'not-equals',
  'greater-than',
  'less-than-equals',
  'contains',
  'array_contains',
  'array_intersect',
  'in',
];
const scalar: fc.Arbitrary<Json> = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('a', 'b', 'u0', 'r1'));
const value: fc.Arbitrary<Json> = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }));
const leaf = fc
  .record({
    attr: fc.constantFrom(...ATTRS),
    op: fc.constantFrom(...OPS),
    v: fc.oneof(
      value,
      fc.constantFrom(...ATTRS).map((ref) => ({ ref })),
    ),
  })
  .map(({ attr, op, v }) => ({ [attr]: { [op]: v } }));
const tree: fc.Arbitrary<Json> = fc.letrec<{ t: Json }>((tie) => ({
  t: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('t'), { maxLength: 2 }).map((c) => ({ allOf: c })),
    fc.array(tie('t'), { maxLength: 2 }).map((c) => ({ anyOf: c })),
    leaf.map((c) => ({ not: c })),
  ),
})).t;
const attrs = fc.dictionary(fc.constantFrom('level', 'tag', 'tags', 'undefined_one'), value, {
  maxKeys: 3,
}) as fc.Arbitrary<JsonObject>;

const world = fc.record({
  users: fc.array(
    fc.record({
      attributes: attrs,
      roles: fc.array(fc.tuple(fc.constantFrom('r1', 'r2'), fc.constantFrom('t1', 't2')), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  tenants: fc.record({
    t1: fc.dictionary(fc.constantFrom('tier', 'other'), value, { maxKeys: 2 }),
    t2: fc.dictionary(fc.constantFrom('tier', 'other'), value, { maxKeys: 2 }),
  }),
  instances: fc.array(attrs, { minLength: 1, maxLength: 3 }),
  userSets: fc.array(fc.record({ conditions: tree, child: fc.boolean() }), { minLength: 1, maxLength: 3 }),
  resourceSets: fc.array(tree, { minLength: 1, maxLength: 2 }),
  rules: fc.array(
    fc.record({
      user: fc.nat(),
      role: fc.boolean(),
      resource: fc.nat(),
      autogenResource: fc.boolean(),
      action: fc.constantFrom('read', 'write'),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  checks: fc.array(
    fc.record({
      user: fc.nat(4),
      action: fc.constantFrom('read', 'write'),
      instance: fc.option(fc.nat(3), { nil: undefined }),
      tenant: fc.constantFrom('t1', 't2', 'default'),
      passed: fc.option(attrs, { nil: undefined }),
      userPassed: fc.option(attrs, { nil: undefined }),
      context: fc.option(fc.record({ x: value }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
});
type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

async function write(w: World): Promise<{ project: string; model: AbacModel }> {
  const project = `abac${run++}`;
  const call = (m: string, p: string, b?: unknown) => s.call(m, p, b).then(ok);
  await call('POST', '/v2/projects', { key: project, name: project, initial_environments: [{ key: 'e', name: 'e' }] });
  const S = `/v2/schema/${project}/e`;
  const F = `/v2/facts/${project}/e`;
  await call('POST', `${S}/resources`, {
    key: 'doc',
    name: 'doc',
    actions: { read: {}, write: {} },
    attributes: { level: { type: 'number' }, tag: { type: 'string' }, tags: { type: 'array' } },
  });
  for (const [key, type] of [
    ['level', 'number'],
    ['tag', 'string'],
    ['tags', 'array'],
  ])
    await call('POST', `${S}/users/attributes`, { key, type });
  await call('POST', `${S}/resources/__tenant/attributes`, { key: 'tier', type: 'string' });
  for (const r of ['r1', 'r2']) await call('POST', `${S}/roles`, { key: r, name: r });
  for (const t of ['t1', 't2'] as const)
    await call('POST', `${F}/tenants`, { key: t, name: t, attributes: w.tenants[t] });
  for (const [i, u] of w.users.entries()) {
    await call('POST', `${F}/users`, { key: `u${i}`, attributes: u.attributes });
    for (const [role, tenant] of u.roles)
      await s.call('POST', `${F}/role_assignments`, { user: `u${i}`, role, tenant });
  }
  for (const [i, a] of w.instances.entries())
    await call('POST', `${F}/resource_instances`, { key: `d${i}`, resource: 'doc', tenant: 't1', attributes: a });
  const sets = new Map<string, SetDef>();
  const parse = (c: Json) => {
    const r = parseConditions(c);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.condition;
  };
  for (const [i, u] of w.userSets.entries()) {
    const parent = u.child && i > 0 ? `us${i - 1}` : undefined;
    await call('POST', `${S}/condition_sets`, {
      key: `us${i}`,
      name: `us${i}`,
      conditions: u.conditions,
      ...(parent ? { parent_id: parent } : {}),
    });
    sets.set(`us${i}`, {
      key: `us${i}`,
      type: 'userset',
      conditions: parse(u.conditions),
      ...(parent ? { parent } : {}),
    });
  }
  for (const [i, c] of w.resourceSets.entries()) {
    await call('POST', `${S}/condition_sets`, {
      key: `rs${i}`,
      name: `rs${i}`,
      type: 'resourceset',
      resource_id: 'doc',
      conditions: c,
    });
    sets.set(`rs${i}`, { key: `rs${i}`, type: 'resourceset', resource: 'doc', conditions: parse(c) });
  }
  for (const s2 of autogenSets(['r1', 'r2'], ['doc'])) sets.set(s2.key, s2);
  const rules = [];
  for (const r of w.rules) {
    const userSet = r.role ? `__autogen_r${(r.user % 2) + 1}` : `us${r.user % w.userSets.length}`;
    const resourceSet = r.autogenResource ? '__autogen_doc' : `rs${r.resource % w.resourceSets.length}`;
    await call('POST', `${F}/set_rules`, {
      user_set: userSet,
      permission: `doc:${r.action}`,
      resource_set: resourceSet,
    });
    rules.push({ userSet, resourceSet, resource: 'doc', action: r.action });
  }
  return { project, model: { sets, rules } };
}

/** The facts of one check, from the test's own copy of the world. */
function expected(w: World, model: AbacModel, c: World['checks'][number]): boolean {
  const u = w.users[c.user];
  const tenants: string[] = [...new Set(u?.roles.map(([, t]) => t as string) ?? [])];
  const here = [...new Set(u?.roles.filter(([, t]) => t === c.tenant).map(([r]) => r) ?? [])];
  const bags = checkAttributes({
    user: {
      key: `u${c.user}`,
      stored: u ? { attributes: u.attributes } : undefined,
      rolesInTenant: here,
      tenants,
      passed: c.userPassed,
    },
    resource: {
      type: 'doc',
      stored: c.instance !== undefined && c.instance < w.instances.length ? w.instances[c.instance] : undefined,
      passed: c.passed,
    },
    tenant: {
      key: c.tenant,
      stored: c.tenant === 'default' ? {} : w.tenants[c.tenant],
      member: (tenants as string[]).includes(c.tenant),
    },
    context: c.context,
    roleAttributes: here.map(() => ({})),
    defined: {
      user: new Set(['key', 'email', 'first_name', 'last_name', 'roles', ...DEFINED]),
      tenant: new Set(['tier']),
      resource: new Set(DEFINED),
    },
  });
  return decideAbac(model, { type: 'doc', action: c.action }, bags).allow;
}

describe('/allowed agrees with the pure core on random ABAC environments', () => {
  it('every check of every environment', async () => {
    const seen = { allowed: 0, denied: 0 };
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const { project, model } = await write(w);
        const bodies = w.checks.map((c) => ({
          user: { key: `u${c.user}`, ...(c.userPassed ? { attributes: c.userPassed } : {}) },
          action: c.action,
          resource: {
            type: 'doc',
            tenant: c.tenant,
            ...(c.instance !== undefined ? { key: `d${c.instance}` } : {}),
            ...(c.passed ? { attributes: c.passed } : {}),
          },
          ...(c.context ? { context: c.context } : {}),
        }));
        const answer = ok(await s.call('POST', `/allowed/bulk?project=${project}&environment=e`, bodies)).allow.map(
          (a: { allow: boolean }) => a.allow,
        );
        expect(answer).toEqual(w.checks.map((c) => expected(w, model, c)));
        for (const a of answer) seen[a ? 'allowed' : 'denied']++;
      }),
      { numRuns: 25 },
    );
    // Both outcomes occur, or the agreement says little.
    expect(seen.allowed).toBeGreaterThan(0);
    expect(seen.denied).toBeGreaterThan(0);
  });
});
