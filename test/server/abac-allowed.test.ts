import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { assign, expectError, ok, resource, role, tenant } from './builders.js';

/**
 * ABAC through /allowed and /allowed/bulk: the worked cases of ../shared/spec/abac-facts.md §10 (numbers
 * are the table's) on a world built through the public API, as the SDK tests build it.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-abac-'));
let s: TestServer;

type Check = {
  user: string | { key: string; attributes?: object };
  action: string;
  resource: string | { type: string; key?: string; tenant?: string; attributes?: object };
  context?: object;
};
const check = async (c: Check) => ok<{ allow: boolean }>(await s.call('POST', '/allowed', c, { key: ENV_KEY })).allow;
const bulk = async (cs: Check[]) =>
  ok<{ allow: { allow: boolean }[] }>(await s.call('POST', '/allowed/bulk', cs, { key: ENV_KEY })).allow.map(
    (a) => a.allow,
  );
const cs = (body: object) => s.schema('POST', '/condition_sets', body).then(ok);
const rule = (body: object) => s.facts('POST', '/set_rules', body).then(ok);
const doc = (attributes?: object, extra: object = {}) => ({
  type: 'document',
  tenant: 'tesla',
  ...(attributes ? { attributes } : {}),
  ...extra,
});

beforeAll(async () => {
  s = await startTestServer({ dataDir });
  // S1 (permit-python test_abac_e2e).
  await resource(s, 'document', ['create', 'read', 'update', 'delete', 'sign'], {
    attributes: { private: { type: 'bool' } },
  });
  ok(await s.schema('POST', '/users/attributes', { key: 'age', type: 'number' }));
  await role(s, 'admin', ['document:create', 'document:read']);
  await role(s, 'viewer', []);
  await tenant(s, 'tesla');
  ok(await s.facts('POST', '/users', { key: 'A', attributes: { age: 35 } }));
  ok(await s.facts('POST', '/users', { key: 'B', attributes: { age: 27 } }));
  await assign(s, { user: 'A', role: 'admin', tenant: 'tesla' });
  await assign(s, { user: 'B', role: 'admin', tenant: 'tesla' });
  await cs({
    key: 'users_over_thirty',
    name: 'Over thirty',
    conditions: { allOf: [{ allOf: [{ 'user.age': { 'greater-than': 30 } }] }] },
  });
  await cs({
    key: 'private_docs',
    name: 'Private docs',
    type: 'resourceset',
    resource_id: 'document',
    conditions: { allOf: [{ allOf: [{ 'resource.private': { equals: false } }] }] },
  });
});
afterAll(async () => {
  await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('S1: users_over_thirty × document:sign × private_docs', () => {
  it('#1-#3 RBAC as before; sign denied before the rule, in bulk too', async () => {
    expect(await check({ user: 'A', action: 'create', resource: doc() })).toBe(true);
    expect(await check({ user: 'A', action: 'sign', resource: doc({ private: false }) })).toBe(false);
    expect(
      await bulk([
        { user: 'A', action: 'create', resource: doc() },
        { user: 'B', action: 'create', resource: doc() },
        { user: 'A', action: 'sign', resource: doc() },
        { user: 'B', action: 'sign', resource: doc() },
      ]),
    ).toEqual([true, true, false, false]);
  });

  it('#4-#8, #12, #13 with the rule: passed and stored attributes, passed winning', async () => {
    await rule({ user_set: 'users_over_thirty', permission: 'document:sign', resource_set: 'private_docs' });
    ok(
      await s.facts('POST', '/resource_instances', {
        key: 'd1',
        resource: 'document',
        tenant: 'tesla',
        attributes: { private: false },
      }),
    );
    expect(
      await bulk([
        { user: 'A', action: 'sign', resource: doc({ private: false }) }, // #4
        { user: 'B', action: 'sign', resource: doc({ private: false }) }, // #5
        { user: 'A', action: 'sign', resource: doc({ private: true }) }, // #6
        { user: 'A', action: 'sign', resource: doc() }, // #7
        { user: { key: 'A', attributes: { age: 20 } }, action: 'sign', resource: doc({ private: false }) }, // #8
        { user: 'A', action: 'sign', resource: doc(undefined, { key: 'd1' }) }, // #12
        { user: 'A', action: 'sign', resource: doc({ private: true }, { key: 'd1' }) }, // #13
      ]),
    ).toEqual([true, false, false, false, false, true, false]);
    expect(await check({ user: 'A', action: 'sign', resource: 'document:d1' })).toBe(true);
  });

  it('#30 /user-permissions: ABAC only with context.enable_abac_user_permissions, for the listed resource types', async () => {
    const up = async (body: object) =>
      ok<Record<string, { permissions: string[]; tenant: { key: string }; resource?: { key: string } }>>(
        await s.call('POST', '/user-permissions', body, { key: ENV_KEY }),
      );
    const without = await up({ user: { key: 'A' }, resource_types: ['document', '__tenant'] });
    expect(without['__tenant:tesla']).toMatchObject({
      tenant: { key: 'tesla' },
      permissions: ['document:create', 'document:read'],
    });
    expect(without['document:d1']).toBeUndefined();
    const withAbac = await up({
      user: { key: 'A' },
      resource_types: ['document', '__tenant'],
      context: { enable_abac_user_permissions: true },
    });
    expect(withAbac['document:d1']).toMatchObject({
      resource: { key: 'd1', type: 'document' },
      permissions: ['document:sign'],
    });
    expect(withAbac['__tenant:tesla'].permissions).toEqual(['document:create', 'document:read']);
    // Without __tenant among the types, the tenant entries are left out; B (27) gains nothing from the set.
    expect(
      Object.keys(
        await up({ user: 'A', resource_types: ['document'], context: { enable_abac_user_permissions: true } }),
      ),
    ).toEqual(['document:d1']);
    expect(
      Object.keys(
        await up({ user: 'B', resource_types: ['document'], context: { enable_abac_user_permissions: true } }),
      ),
    ).toEqual([]);
    expect(await up({ user: 'nobody' })).toEqual({});
    expect((await s.call('POST', '/user-permissions', { user: 'A', tenants: 'tesla' }, { key: ENV_KEY })).status).toBe(
      422,
    );
  });

  it('#26 an RBAC grant allows whatever the sets say; a stored value without a definition does not count', async () => {
    expect(await check({ user: { key: 'B', attributes: { age: 1 } }, action: 'read', resource: doc() })).toBe(true);
    ok(await s.facts('POST', '/users', { key: 'C', attributes: { age: 50, mood: 'x' } }));
    expect(await check({ user: 'C', action: 'sign', resource: doc({ private: false }) })).toBe(true);
    ok(await s.schema('DELETE', '/users/attributes/age'));
    expect(await check({ user: 'C', action: 'sign', resource: doc({ private: false }) })).toBe(false);
    // Passed values always count.
    expect(
      await check({ user: { key: 'C', attributes: { age: 50 } }, action: 'sign', resource: doc({ private: false }) }),
    ).toBe(true);
    ok(await s.schema('POST', '/users/attributes', { key: 'age', type: 'number' }));
    expect(await check({ user: 'C', action: 'sign', resource: doc({ private: false }) })).toBe(true);
  });

  it("an edit of a set's conditions is seen at once (the remembered model moves)", async () => {
    ok(
      await s.schema('PATCH', '/condition_sets/users_over_thirty', {
        conditions: { 'user.age': { 'greater-than': 40 } },
      }),
    );
    expect(await check({ user: 'A', action: 'sign', resource: doc({ private: false }) })).toBe(false);
    ok(
      await s.schema('PATCH', '/condition_sets/users_over_thirty', {
        conditions: { 'user.age': { 'greater-than': 30 } },
      }),
    );
    expect(await check({ user: 'A', action: 'sign', resource: doc({ private: false }) })).toBe(true);
  });
});

describe('S2 and the other cases', () => {
  it('#9/#10 a stored attribute allows without any role or tenant', async () => {
    await resource(s, 'doc', ['read'], { attributes: { confidential: { type: 'bool' } } });
    ok(await s.schema('POST', '/resources/__user/attributes', { key: 'clearance', type: 'string' }));
    await cs({
      key: 'cleared',
      name: 'cleared',
      conditions: { allOf: [{ 'user.clearance': { equals: 'top_secret' } }] },
    });
    await cs({
      key: 'confidential',
      name: 'confidential',
      type: 'resourceset',
      resource_id: 'doc',
      conditions: { allOf: [{ 'resource.confidential': { equals: true } }] },
    });
    await rule({ user_set: 'cleared', permission: 'doc:read', resource_set: 'confidential' });
    ok(await s.facts('PUT', '/users/M', { key: 'M', attributes: { clearance: 'top_secret' } }));
    ok(await s.facts('PUT', '/users/O', { key: 'O', attributes: { clearance: 'public' } }));
    const r = { type: 'doc', tenant: 'default', attributes: { confidential: true } };
    expect(
      await bulk([
        { user: 'M', action: 'read', resource: r },
        { user: 'O', action: 'read', resource: r },
      ]),
    ).toEqual([true, false]);
  });

  it("#14/#15 a reference across entities; a rule off the resource set's resource is refused", async () => {
    await resource(s, 'expense', ['approve'], { attributes: { expense_amount: { type: 'number' } } });
    await resource(s, 'invoice', ['submit']);
    ok(await s.schema('POST', '/users/attributes', { key: 'spending_limit', type: 'number' }));
    await cs({ key: 'anyone', name: 'anyone', conditions: {} });
    await cs({
      key: 'small',
      name: 'small',
      type: 'resourceset',
      resource_id: 'expense',
      conditions: { 'resource.expense_amount': { 'less-than-equals': { ref: 'user.spending_limit' } } },
    });
    await rule({ user_set: 'anyone', permission: 'expense:approve', resource_set: 'small' });
    expectError(
      await s.facts('POST', '/set_rules', { user_set: 'anyone', permission: 'invoice:submit', resource_set: 'small' }),
      422,
      'INVALID_INPUT',
    );
    ok(await s.facts('POST', '/users', { key: 'spender', attributes: { spending_limit: 100 } }));
    const e = (amount: number) => ({
      user: 'spender',
      action: 'approve',
      resource: { type: 'expense', attributes: { expense_amount: amount } },
    });
    expect(await bulk([e(80), e(120), e(100)])).toEqual([true, false, true]);
  });

  it("#17, #23, #24: roles and tenant attributes in the check's tenant; a role × resource set rule", async () => {
    await tenant(s, 't1');
    await tenant(s, 't2');
    await resource(s, 'task', ['update'], { attributes: { owner: { type: 'string' } } });
    await role(s, 'manager', []);
    ok(await s.schema('POST', '/resources/__tenant/attributes', { key: 'tier', type: 'string' }));
    ok(await s.facts('PATCH', '/tenants/t1', { attributes: { tier: 'gold' } }));
    ok(await s.facts('PATCH', '/tenants/t2', { attributes: { tier: 'gold' } }));
    ok(await s.facts('POST', '/users', { key: 'u1' }));
    ok(await s.facts('POST', '/users', { key: 'u2' }));
    await assign(s, { user: 'u1', role: 'manager', tenant: 't1' });
    await assign(s, { user: 'u2', role: 'viewer', tenant: 't2' });
    await cs({
      key: 'own_task',
      name: 'own',
      type: 'resourceset',
      resource_id: 'task',
      conditions: { 'resource.owner': { equals: { ref: 'user.key' } } },
    });
    await rule({ user_set: 'manager', is_role: true, permission: 'task:update', resource_set: 'own_task' });
    const t = (user: string, tenantKey: string, owner: string) => ({
      user,
      action: 'update',
      resource: { type: 'task', tenant: tenantKey, attributes: { owner } },
    });
    expect(await bulk([t('u1', 't1', 'u1'), t('u1', 't1', 'u2'), t('u1', 't2', 'u1')])).toEqual([true, false, false]);
    // Gold tenants (a tenant attribute, seen only by users with a role there) may update any task.
    await cs({ key: 'gold', name: 'gold', conditions: { 'tenant.tier': { equals: 'gold' } } });
    await rule({ user_set: 'gold', permission: 'task:update', resource_set: 'task', is_resource: true });
    expect(await bulk([t('u2', 't2', 'x'), t('u2', 't1', 'x'), t('u1', 't1', 'x')])).toEqual([true, false, true]);
  });

  it('fk_resource_type: match on the stored attributes of the instance an attribute names; context', async () => {
    await resource(s, 'region', ['read'], { attributes: { open: { type: 'bool' } } });
    await resource(s, 'report', ['read'], { attributes: { region: { type: 'string' } } });
    ok(
      await s.facts('POST', '/resource_instances', {
        key: 'eu',
        resource: 'region',
        tenant: 'default',
        attributes: { open: true },
      }),
    );
    ok(
      await s.facts('POST', '/resource_instances', {
        key: 'us',
        resource: 'region',
        tenant: 'default',
        attributes: { open: false },
      }),
    );
    await cs({
      key: 'open_reports',
      name: 'open',
      type: 'resourceset',
      resource_id: 'report',
      conditions: {
        allOf: [
          { 'resource.region': { object_match: { fk_resource_type: 'region', match: { open: { equals: true } } } } },
          { 'context.channel': { equals: 'web' } },
        ],
      },
    });
    await rule({ user_set: 'anyone', permission: 'report:read', resource_set: 'open_reports' });
    const r = (region: string, context: object = { channel: 'web' }) => ({
      user: 'M',
      action: 'read',
      resource: { type: 'report', attributes: { region } },
      context,
    });
    expect(await bulk([r('eu'), r('us'), r('nowhere'), r('eu', {})])).toEqual([true, false, false, false]);
  });

  it('#27 deleting a user set removes its rules: the check is denied again', async () => {
    await cs({ key: 'temp_set', name: 'temp', conditions: { 'user.clearance': { equals: 'public' } } });
    await rule({ user_set: 'temp_set', permission: 'doc:read', resource_set: 'confidential' });
    const c = { user: 'O', action: 'read', resource: { type: 'doc', attributes: { confidential: true } } };
    expect(await check(c)).toBe(true);
    ok(await s.schema('DELETE', '/condition_sets/temp_set'));
    expect(await check(c)).toBe(false);
  });

  it('refuses attributes or context that are not objects', async () => {
    expect(
      (
        await s.call(
          'POST',
          '/allowed',
          { user: { key: 'A', attributes: [1] }, action: 'read', resource: 'document' },
          { key: ENV_KEY },
        )
      ).status,
    ).toBe(422);
    expect(
      (
        await s.call(
          'POST',
          '/allowed',
          { user: 'A', action: 'read', resource: 'document', context: 'x' },
          { key: ENV_KEY },
        )
      ).status,
    ).toBe(422);
  });
});

describe('restart', () => {
  it('keeps definitions, sets and rules, and the decisions', async () => {
    const before = {
      sets: ok(await s.schema('GET', '/condition_sets?per_page=100')),
      rules: ok(await s.facts('GET', '/set_rules?per_page=100')),
      attrs: ok(await s.schema('GET', '/users/attributes')),
    };
    await s.stop();
    s = await startTestServer({ dataDir });
    expect({
      sets: ok(await s.schema('GET', '/condition_sets?per_page=100')),
      rules: ok(await s.facts('GET', '/set_rules?per_page=100')),
      attrs: ok(await s.schema('GET', '/users/attributes')),
    }).toEqual(before);
    expect(await check({ user: 'A', action: 'sign', resource: doc({ private: false }) })).toBe(true);
    expect(await check({ user: 'B', action: 'sign', resource: doc({ private: false }) })).toBe(false);
  });
});
