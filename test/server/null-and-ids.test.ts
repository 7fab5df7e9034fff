import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dropNullOptionals } from '../../src/server/validation.js';
import { dashed } from '../../src/server/ids.js';
import { expectInvalid, ok, seedDocs, user } from './builders.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await seedDocs(s);
});
afterAll(() => s.close());

const hex = (uuid: string) => uuid.replace(/-/g, '');

describe('null for an optional body field is "not given" (api-notes, "Conventions")', () => {
  it("the Python SDK's users.assign_role body, resource_instance: null, assigns tenant-wide; unassign_role removes it", async () => {
    // permit/api/users.py: RoleAssignmentCreate(...).dict() without exclude_none, as the SDK sends it.
    const body = { role: 'viewer', tenant: 't', resource_instance: null, user: 'alice' };
    const made = ok(await s.facts('POST', '/role_assignments', body));
    expect(made).toMatchObject({ user: 'alice', role: 'viewer', tenant: 't' });
    expect(made).not.toHaveProperty('resource_instance');
    expect(ok(await s.facts('GET', '/role_assignments?user=alice&role=viewer'))).toHaveLength(1);
    expect(
      (
        await s.facts('DELETE', '/role_assignments', {
          role: 'viewer',
          tenant: 't',
          resource_instance: null,
          user: 'alice',
        })
      ).status,
    ).toBe(204);
    expect(ok(await s.facts('GET', '/role_assignments?user=alice&role=viewer'))).toHaveLength(0);
    // The same through /users/{u}/roles.
    ok(await s.facts('POST', '/users/alice/roles', { role: 'viewer', tenant: 't', resource_instance: null }));
    expect(ok(await s.facts('GET', '/role_assignments?user=alice&role=viewer'))).toHaveLength(1);
  });

  it('null clears nothing: a PATCH with a null text field leaves it as it was', async () => {
    await user(s, 'carol', { email: 'carol@example.com', first_name: 'Carol' });
    const patched = ok(await s.facts('PATCH', '/users/carol', { email: null, first_name: 'C' }));
    expect(patched).toMatchObject({ email: 'carol@example.com', first_name: 'C' });
  });

  it('a required field still refuses null, at its place', async () => {
    expectInvalid(await s.facts('POST', '/role_assignments', { role: null, tenant: 't', user: 'alice' }), [
      'body',
      'role',
    ]);
    expectInvalid(await s.schema('POST', '/roles', { key: 'r', name: null }), ['body', 'name']);
  });

  it('the rule, as a property: for any schema of objects, arrays and maps, an optional null goes, a required or nullable one stays', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string' },
        b: { type: 'string' },
        n: { type: ['string', 'null'] },
        items: {
          type: 'array',
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string' }, v: { type: 'string' } } },
        },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { d: { type: 'string' } } } },
        free: { type: 'object' },
      },
    };
    const maybe = fc.option(fc.string(), { nil: null });
    fc.assert(
      fc.property(
        fc.record(
          {
            a: maybe,
            b: maybe,
            n: maybe,
            items: fc.array(fc.record({ k: maybe, v: maybe })),
            map: fc.dictionary(fc.string({ minLength: 1 }), fc.record({ d: maybe })),
            free: fc.dictionary(fc.string({ minLength: 1 }), maybe),
          },
          { requiredKeys: [] },
        ),
        (body) => {
          const data = structuredClone(body) as Record<string, any>;
          dropNullOptionals(schema, data);
          expect('a' in body ? data.a : 'absent').toEqual('a' in body ? body.a : 'absent');
          expect(data.b).toEqual(body.b ?? undefined);
          expect('b' in data && data.b === null).toBe(false);
          if ('n' in body) expect(data.n).toEqual(body.n);
          for (const [i, item] of (body.items ?? []).entries()) {
            expect(data.items[i].k).toEqual(item.k);
            expect('v' in data.items[i]).toBe(item.v !== null);
          }
          for (const [k, entry] of Object.entries(body.map ?? {})) expect('d' in data.map[k]).toBe(entry.d !== null);
          expect(data.free).toEqual(body.free);
        },
      ),
    );
  });
});

describe('ids as 32 hex digits without dashes are the same uuid, in paths and bodies', () => {
  it('names a user, a role, a tenant, an instance and the environment by dashless id', async () => {
    const bob = ok(await s.facts('GET', '/users/bob'));
    const editor = ok(await s.schema('GET', '/roles/editor'));
    const t = ok(await s.facts('GET', '/tenants/t'));
    const d2 = ok(await s.facts('GET', '/resource_instances/doc:d2'));
    expect(ok(await s.facts('GET', `/resource_instances/${hex(d2.id)}`))).toMatchObject({ key: 'd2' });
    expect(ok(await s.facts('GET', `/users/${hex(bob.id)}`))).toMatchObject({ key: 'bob' });
    expect(ok(await s.facts('GET', `/users/${hex(bob.id).toUpperCase()}`))).toMatchObject({ key: 'bob' });
    const made = ok(
      await s.facts('POST', '/role_assignments', {
        user: hex(bob.id),
        role: hex(editor.id),
        resource_instance: 'doc:d2',
        tenant: hex(t.id),
      }),
    );
    expect(made).toMatchObject({ user: 'bob', role: 'editor', resource_instance: 'doc:d2', tenant: 't' });
    const env = ok(await s.call('GET', '/v2/api-key/scope', undefined, { key: 'test-env-key-abcdefghij' }));
    expect(
      ok(await s.call('GET', `/v2/facts/${hex(env.project_id)}/${hex(env.environment_id)}/users/bob`)),
    ).toMatchObject({ key: 'bob' });
  });

  it('a key of 32 hex digits is still that key (a key is looked up first, as everywhere)', async () => {
    const key = 'abcdef0123456789abcdef0123456789';
    const made = ok(await s.facts('POST', '/users', { key }));
    expect(made.key).toBe(key);
    expect(ok(await s.facts('GET', `/users/${key}`))).toMatchObject({ key, id: made.id });
    expect(ok(await s.facts('POST', '/role_assignments', { user: key, role: 'viewer', tenant: 't' }))).toMatchObject({
      user: key,
    });
    expect(dashed(key)).toBe('abcdef01-2345-6789-abcd-ef0123456789');
  });
});
