import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { aRequest, as, elementsConfig, expectError, ok, seedWorld, startWithClock } from './builders.js';

/**
 * Visibility from three users: the requester (alice), a moderator (mod) and a bystander in the same
 * tenant (bob). Moderators see the requests they moderate, everyone else only their own; a request one
 * may not see answers 404, exactly as a request that does not exist.
 */
let s: TestServer;
let mine: { alice: string[]; bob: string[] };
beforeAll(async () => {
  ({ s } = await startWithClock());
  await seedWorld(s);
  mine = { alice: [], bob: [] };
  for (let i = 0; i < 3; i++) mine.alice.push((await aRequest(s, 'alice')).id);
  mine.bob.push((await aRequest(s, 'bob')).id);
  await elementsConfig(s, 'other', { LEVEL_1: ['admin'] });
});
afterAll(() => s.close());

const listed = async (u: string, ctx: { tenant?: string; config?: string } = {}) =>
  (ok(await as(s, u, ctx).list()).data as { id: string }[]).map((r) => r.id).sort();

describe('list', () => {
  it('the requester sees only their own', async () => {
    expect(await listed('alice')).toEqual([...mine.alice].sort());
    expect(ok(await as(s, 'alice').list()).total_count).toBe(3);
  });

  it('a bystander sees only their own', async () => {
    expect(await listed('bob')).toEqual(mine.bob);
  });

  it('a moderator sees every request they moderate', async () => {
    const body = ok(await as(s, 'mod').list());
    expect(body.data.map((r: { id: string }) => r.id).sort()).toEqual([...mine.alice, ...mine.bob].sort());
  });

  it('LEVEL_3/LEVEL_4 holders, and moderators of another tenant, see nothing', async () => {
    for (const u of ['aud', 'lvl4', 'mod2', 'outsider']) expect(await listed(u)).toEqual([]);
    // ... whatever tenant context they name in the path.
    expect(await listed('mod2', { tenant: 't2' })).toEqual([]);
  });

  it('requests belong to their configuration: another configuration lists none of them', async () => {
    expect(await listed('mod', { config: 'other' })).toEqual([]);
    expect(await listed('alice', { config: 'other' })).toEqual([]);
  });
});

describe('get', () => {
  it('requester and moderator read it; the bystander gets 404 like for an id that does not exist', async () => {
    const id = mine.alice[0];
    expect(ok(await as(s, 'mod').get(id))).toEqual(ok(await as(s, 'alice').get(id)));
    const hidden = await as(s, 'bob').get(id);
    const missing = await as(s, 'bob').get('00000000-0000-4000-8000-000000000000');
    expectError(hidden, 404, 'NOT_FOUND');
    expectError(missing, 404, 'NOT_FOUND');
    // Same answer but for the id named: the existence of the request does not leak.
    expect(hidden.body.message.replace(id, 'ID')).toBe(
      missing.body.message.replace('00000000-0000-4000-8000-000000000000', 'ID'),
    );
  });

  it('a request read through another configuration is 404', async () => {
    expectError(await as(s, 'alice', { config: 'other' }).get(mine.alice[0]), 404, 'NOT_FOUND');
  });
});
