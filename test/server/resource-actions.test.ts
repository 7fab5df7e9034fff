import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError, expectInvalid, ok } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const keys = (list: { key: string }[]) => list.map((x) => x.key);

describe('a resource’s actions one by one', () => {
  it('creates, reads by key and id, updates and deletes; the resource’s own map agrees', async () => {
    ok(await s.schema('POST', '/resources', { key: 'doc', name: 'Doc', actions: { read: {} } }));
    const made = ok(
      await s.schema('POST', '/resources/doc/actions', { key: 'share', name: 'Share', attributes: { risky: true } }),
    );
    expect(made).toMatchObject({
      key: 'share',
      name: 'Share',
      attributes: { risky: true },
      permission_name: 'doc:share',
      resource_id: expect.any(String),
    });
    expect(ok(await s.schema('GET', `/resources/doc/actions/${made.id}`))).toEqual(made);
    expect(keys(ok(await s.schema('GET', '/resources/doc/actions')))).toEqual(['read', 'share']);
    expect(Object.keys(ok(await s.schema('GET', '/resources/doc')).actions)).toEqual(['read', 'share']);

    const patched = ok(await s.schema('PATCH', '/resources/doc/actions/share', { description: 'give away' }));
    expect(patched).toMatchObject({
      id: made.id,
      name: 'Share',
      description: 'give away',
      attributes: { risky: true },
    });

    expectError(
      await s.schema('POST', '/resources/doc/actions', { key: 'share', name: 'Again' }),
      409,
      'DUPLICATE_ENTITY',
    );
    expectError(await s.schema('GET', '/resources/doc/actions/nope'), 404, 'NOT_FOUND');
    expectError(await s.schema('GET', '/resources/nope/actions'), 404, 'NOT_FOUND');
    expectInvalid(await s.schema('POST', '/resources/doc/actions', { key: 'x' }));
    expectInvalid(await s.schema('PATCH', '/resources/doc/actions/share', { colour: 'red' }));
  });

  it('deleting an action takes it out of the roles that granted it', async () => {
    ok(await s.schema('POST', '/resources', { key: 'file', name: 'File', actions: { read: {}, erase: {} } }));
    ok(await s.schema('POST', '/roles', { key: 'janitor', name: 'Janitor', permissions: ['file:read', 'file:erase'] }));
    expect((await s.schema('DELETE', '/resources/file/actions/erase')).status).toBe(204);
    expect(ok(await s.schema('GET', '/roles/janitor')).permissions).toEqual(['file:read']);
    expect(keys(ok(await s.schema('GET', '/resources/file/actions')))).toEqual(['read']);
  });
});

describe('the attr_<name> filter of roles, tenants and actions', () => {
  it('keeps the objects whose attribute reads as the value given', async () => {
    ok(await s.schema('POST', '/roles', { key: 'a1', name: 'A1', attributes: { team: 'red', level: 3, on: true } }));
    ok(await s.schema('POST', '/roles', { key: 'a2', name: 'A2', attributes: { team: 'blue' } }));
    ok(await s.schema('POST', '/roles', { key: 'a3', name: 'A3' }));
    expect(keys(ok(await s.schema('GET', '/roles?attr_team=red')))).toEqual(['a1']);
    expect(keys(ok(await s.schema('GET', '/roles?attr_level=3&attr_on=true')))).toEqual(['a1']);
    expect(keys(ok(await s.schema('GET', '/roles?attr_team=green')))).toEqual([]);

    ok(await s.facts('POST', '/tenants', { key: 't1', name: 'T1', attributes: { region: 'eu' } }));
    ok(await s.facts('POST', '/tenants', { key: 't2', name: 'T2', attributes: { region: 'us' } }));
    expect(keys(ok(await s.facts('GET', '/tenants?attr_region=us')))).toEqual(['t2']);

    ok(
      await s.schema('POST', '/resources', {
        key: 'box',
        name: 'Box',
        actions: { open: { attributes: { m: 'x' } }, shut: {} },
      }),
    );
    expect(keys(ok(await s.schema('GET', '/resources/box/actions?attr_m=x')))).toEqual(['open']);
  });
});

describe('search with `*`', () => {
  it('`*` matches any run of characters; `_` and `%` are literal', async () => {
    for (const key of ['srch', 'srch-2', 'srch_3'])
      ok(await s.schema('POST', '/resources', { key, name: key, actions: {} }));
    const found = async (text: string) =>
      keys(ok(await s.schema('GET', `/resources?search=${encodeURIComponent(text)}`))).filter((k) =>
        k.startsWith('srch'),
      );
    expect(await found('srch')).toEqual(['srch', 'srch-2', 'srch_3']);
    expect(await found('srch*')).toEqual(['srch', 'srch-2', 'srch_3']);
    expect(await found('srch-*')).toEqual(['srch-2']);
    expect(await found('srch_*')).toEqual(['srch_3']);
    expect(await found('s*h_')).toEqual(['srch_3']);
    expect(await found('srch%')).toEqual([]);
  });
});
