import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addMember, allowed, expectError, expectInvalid, grantGroup, group, ok, tenant, user } from './builders.js';

/**
 * The relation names the group machinery writes (`<type>_group`, `group`) are refused on the public
 * relation routes (docs/server.md, "Where this meets the group decision"): a relation of such a name
 * would be taken for the group machinery's, and its derivations never evaluated, or the machinery would
 * later reuse it for a group type's grants.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const ROLES = {
  viewer: { name: 'viewer', permissions: ['read'] },
  editor: { name: 'editor', permissions: ['write'], extends: ['viewer'] },
};

/** Under a prefix `x`: resources `<x>doc` and `<x>team` (resource roles viewer, editor), tenant `<x>t`, users `<x>alice`, `<x>bob`. */
async function world(x: string) {
  const n = { doc: `${x}doc`, team: `${x}team`, t: `${x}t`, alice: `${x}alice`, bob: `${x}bob` };
  for (const r of [n.doc, n.team])
    ok(await s.schema('POST', '/resources', { key: r, name: r, actions: { read: {}, write: {} }, roles: ROLES }));
  await tenant(s, n.t);
  await user(s, n.alice);
  await user(s, n.bob);
  return n;
}
const relationKeys = async (resource: string) =>
  ok(await s.schema('GET', `/resources/${resource}/relations`)).data.map((r: { key: string }) => r.key);
const can = (u: string, action: string, ref: string) =>
  allowed(s, u, action, { type: ref.split(':')[0], key: ref.split(':')[1] });

describe('relation names the group machinery writes', () => {
  it('are refused on POST .../relations, naming the key, with 422 at body.key; nothing is written', async () => {
    const n = await world('rn');
    for (const [object, key, subject] of [
      [n.doc, `${n.team}_group`, n.team], // a group type's grants on doc
      [n.doc, `${n.doc}_group`, n.team], // the machinery's name for another type: it would reuse this relation
      [n.team, 'group', n.team], // groups inside groups
      [n.doc, 'group', n.team],
    ]) {
      const r = await s.schema('POST', `/resources/${object}/relations`, { key, name: key, subject_resource: subject });
      expectInvalid(r, ['body', 'key']);
      expect(r.body.detail[0].msg).toContain(`'${key}'`);
    }
    expect(await relationKeys(n.doc)).toEqual([]);
    expect(await relationKeys(n.team)).toEqual([]);
    // Only those names: a key merely containing them is anyone's.
    for (const key of [`${n.team}_groups`, `group_${n.team}`, 'grouped'])
      ok(await s.schema('POST', `/resources/${n.doc}/relations`, { key, name: key, subject_resource: n.team }));
  });

  it('are refused inside ResourceCreate, ResourceUpdate and ResourceReplace at body.relations.<key>, leaving the resource as it was', async () => {
    const n = await world('rb');
    const key = `${n.team}_group`;
    expectInvalid(
      await s.schema('POST', '/resources', { key: `${n.doc}2`, name: 'd', actions: {}, relations: { [key]: n.team } }),
      ['body', 'relations', key],
    );
    expectError(await s.schema('GET', `/resources/${n.doc}2`), 404, 'NOT_FOUND');
    const before = ok(await s.schema('GET', `/resources/${n.doc}`));
    expectInvalid(
      await s.schema('PATCH', `/resources/${n.doc}`, { name: 'renamed', relations: { parent: n.team, [key]: n.team } }),
      ['body', 'relations', key],
    );
    expectInvalid(
      await s.schema('PUT', `/resources/${n.doc}`, { name: 'renamed', actions: {}, relations: { group: n.doc } }),
      ['body', 'relations', 'group'],
    );
    expect(ok(await s.schema('GET', `/resources/${n.doc}`))).toEqual(before);
  });
});

describe('/allowed with the names kept for groups', () => {
  it("a user's derivation goes through a name of its own and is evaluated; the group machinery's relation of that name stays the group's, precise", async () => {
    const n = await world('ra');
    for (const d of ['d1', 'd2'])
      ok(await s.facts('POST', '/resource_instances', { key: d, resource: n.doc, tenant: n.t }));
    ok(await s.facts('POST', '/resource_instances', { key: 't1', resource: n.team, tenant: n.t }));
    // "Editors of a team edit the team's documents", first under the name the machinery keeps: refused,
    // where it used to be accepted and its derivation silently never evaluated (alice could not write d1).
    expectInvalid(
      await s.schema('POST', `/resources/${n.doc}/relations`, {
        key: `${n.team}_group`,
        name: 'team',
        subject_resource: n.team,
      }),
      ['body', 'key'],
    );
    // Under a name of its own it is an ordinary relation, and /allowed follows it.
    ok(
      await s.schema('POST', `/resources/${n.doc}/relations`, {
        key: 'owner',
        name: 'owner',
        subject_resource: n.team,
      }),
    );
    ok(
      await s.schema('POST', `/resources/${n.doc}/roles/editor/implicit_grants`, {
        role: 'editor',
        on_resource: n.team,
        linked_by_relation: 'owner',
      }),
    );
    ok(
      await s.facts('POST', '/relationship_tuples', {
        subject: `${n.team}:t1`,
        relation: 'owner',
        object: `${n.doc}:d1`,
        tenant: n.t,
      }),
    );
    ok(
      await s.facts('POST', '/role_assignments', {
        user: n.alice,
        role: 'editor',
        resource_instance: `${n.team}:t1`,
        tenant: n.t,
      }),
    );
    expect(await can(n.alice, 'write', `${n.doc}:d1`)).toBe(true);
    expect(await can(n.alice, 'write', `${n.doc}:d2`)).toBe(false);

    // The group machinery writes the name itself: a group of type team given viewer on d2.
    await group(s, `${n.team}:g`, n.t);
    await addMember(s, `${n.team}:g`, n.bob, n.t);
    await grantGroup(s, `${n.team}:g`, { role: 'viewer', resource: n.doc, resource_instance: 'd2', tenant: n.t });
    expect(await relationKeys(n.doc)).toEqual(['owner', `${n.team}_group`]);
    expect(await can(n.bob, 'read', `${n.doc}:d2`)).toBe(true);
    expect(await can(n.bob, 'read', `${n.doc}:d1`)).toBe(false);
    expect(await can(n.alice, 'read', `${n.doc}:d2`)).toBe(false);

    // A resource read names it among the relations; writing that read back keeps it (nothing is created),
    // while re-pointing it is refused as for any relation.
    const read = ok(await s.schema('GET', `/resources/${n.doc}`));
    const relations = Object.fromEntries(
      Object.entries(read.relations as Record<string, { resource: string }>).map(([k, v]) => [k, v.resource]),
    );
    expect(relations).toEqual({ owner: n.team, [`${n.team}_group`]: n.team });
    ok(await s.schema('PUT', `/resources/${n.doc}`, { name: n.doc, actions: { read: {}, write: {} }, relations }));
    ok(await s.schema('PATCH', `/resources/${n.doc}`, { relations: { [`${n.team}_group`]: n.team } }));
    expectError(
      await s.schema('PATCH', `/resources/${n.doc}`, { relations: { [`${n.team}_group`]: n.doc } }),
      422,
      'MISMATCH_RELATION_TYPE',
    );
    // ... and a create of it, which would be a second one, is refused by name.
    expectInvalid(
      await s.schema('POST', `/resources/${n.doc}/relations`, {
        key: `${n.team}_group`,
        name: 'again',
        subject_resource: n.team,
      }),
      ['body', 'key'],
    );
    expect(await can(n.bob, 'read', `${n.doc}:d2`)).toBe(true);
    expect(await can(n.bob, 'read', `${n.doc}:d1`)).toBe(false);
    expect(await can(n.alice, 'write', `${n.doc}:d1`)).toBe(true);
  });

  it("a group type's name taken first with another subject is refused, so its groups' grants stay precise", async () => {
    const n = await world('ro');
    for (const d of ['d1', 'd2'])
      ok(await s.facts('POST', '/resource_instances', { key: d, resource: n.doc, tenant: n.t }));
    // Accepted before: the machinery then kept this relation (subject doc) for the team type's grants, took
    // it for an ordinary one, and evaluated `doc#editor <- team#member` over every team's tuples: team A's
    // viewers of d1 became its editors.
    expectInvalid(
      await s.schema('POST', `/resources/${n.doc}/relations`, {
        key: `${n.team}_group`,
        name: 'x',
        subject_resource: n.doc,
      }),
      ['body', 'key'],
    );
    for (const [g, u] of [
      [`${n.team}:a`, n.alice],
      [`${n.team}:b`, n.bob],
    ]) {
      await group(s, g, n.t);
      await addMember(s, g, u, n.t);
    }
    await grantGroup(s, `${n.team}:a`, { role: 'viewer', resource: n.doc, resource_instance: 'd1', tenant: n.t });
    await grantGroup(s, `${n.team}:b`, { role: 'editor', resource: n.doc, resource_instance: 'd2', tenant: n.t });
    expect(ok(await s.schema('GET', `/resources/${n.doc}/relations/${n.team}_group`))).toMatchObject({
      subject_resource: n.team,
    });
    expect(await can(n.alice, 'read', `${n.doc}:d1`)).toBe(true);
    expect(await can(n.alice, 'write', `${n.doc}:d1`)).toBe(false);
    expect(await can(n.bob, 'write', `${n.doc}:d2`)).toBe(true);
    expect(await can(n.bob, 'read', `${n.doc}:d1`)).toBe(false);
  });

  it('one of those names made before they were refused, relating another subject, stops group grants through it until deleted', async () => {
    const n = await world('rl');
    ok(await s.facts('POST', '/resource_instances', { key: 'd1', resource: n.doc, tenant: n.t }));
    await group(s, `${n.team}:a`, n.t);
    await addMember(s, `${n.team}:a`, n.alice, n.t);
    // What the public route accepted before: `<team>_group` on doc, relating doc instances. Written to
    // the store as that server wrote it (the route refuses it now).
    const ids = Object.fromEntries(
      ok(await s.schema('GET', '/resources')).map((r: { key: string; id: string }) => [r.key, r.id]),
    );
    const at = new Date().toISOString();
    await s.db.run(
      `INSERT INTO relations (id, env_id, object_resource_id, key, name, description, subject_resource_id, created_at, updated_at)
       SELECT ?, env_id, id, ?, ?, NULL, id, ?, ? FROM resources WHERE id = ?`,
      [crypto.randomUUID(), `${n.team}_group`, 'legacy', at, at, ids[n.doc]],
    );
    const grant = { role: 'viewer', resource: n.doc, resource_instance: 'd1', tenant: n.t };
    const refused = await s.schema('POST', `/groups/${n.team}:a/roles`, grant);
    expectError(refused, 422, 'MISMATCH_RELATION_TYPE');
    expect(refused.body.message).toContain(`${n.doc}#${n.team}_group`);
    expect(ok(await s.schema('GET', `/groups/${n.team}:a/roles`)).data).toEqual([]);
    expect(ok(await s.facts('GET', `/relationship_tuples?object=${n.doc}:d1`))).toEqual([]);
    expect(await can(n.alice, 'read', `${n.doc}:d1`)).toBe(false);
    // Deleted, the name is the machinery's again.
    expect((await s.schema('DELETE', `/resources/${n.doc}/relations/${n.team}_group`)).status).toBe(204);
    await grantGroup(s, `${n.team}:a`, grant);
    expect(ok(await s.schema('GET', `/resources/${n.doc}/relations/${n.team}_group`))).toMatchObject({
      subject_resource: n.team,
    });
    expect(await can(n.alice, 'read', `${n.doc}:d1`)).toBe(true);
    expect(await can(n.alice, 'write', `${n.doc}:d1`)).toBe(false);
  });
});
