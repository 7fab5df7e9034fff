import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExchange, checkResponse, findOperation, type Exchange } from '../contract/openapi.js';
import { checkPdpExchange, pdpOperation, PDP_OPERATIONS } from '../contract/pdp-schemas.js';
import { ENV_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { DEPRECATED, IN_SCOPE, concrete, driveLifecycle } from './public-lifecycle.js';

/**
 * The server against the public contract: every operation of permit-openapi.json in the specification's
 * scope is driven over real HTTP with the exchange recorder on, and every request and answer is held
 * against the document (test/contract/openapi.ts). Then each operation is sent once more with invalid
 * input, and its 422 answer is checked too.
 */

const opOf = (ex: Exchange) => {
  const op = findOperation(ex.method, ex.path);
  return op ? `${op.method} ${op.template}` : `${ex.method} ${ex.path} (none)`;
};

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ record: true });
});
afterAll(() => s.close());

describe('roster serve against permit-openapi.json', () => {
  it('serves every operation in scope, and every request and answer of a lifecycle is public', async () => {
    await driveLifecycle(s);
    const exchanges = s.exchanges.splice(0);
    const failed = exchanges
      .filter((ex) => ex.status >= 300)
      .map((ex) => `${ex.method} ${ex.path} → ${ex.status} ${JSON.stringify(ex.response)}`);
    const problems = exchanges.flatMap((ex) =>
      DEPRECATED.includes(opOf(ex)) ? checkResponse({ ...ex, body: ex.response }) : checkExchange(ex),
    );
    const seen = new Set(exchanges.map(opOf));
    const unserved = IN_SCOPE.filter((op) => !seen.has(op));
    expect({ failed, problems, unserved }).toEqual({ failed: [], problems: [], unserved: [] });
    expect(DEPRECATED.filter((op) => !seen.has(op))).toEqual([]);
  });

  it('answers invalid input to every operation in scope with a 422 of the public shapes', async () => {
    for (const op of [...IN_SCOPE, ...DEPRECATED]) {
      const [method, template] = op.split(' ');
      // A project segment that is no key or id: every environment-scoped operation refuses it.
      if (template.includes('{proj_id}')) await s.call(method, concrete(template, 'not a key'), undefined);
      const schema = findOperation(method, concrete(template, 'p'))!.spec.requestBody?.content?.['application/json']
        ?.schema as { type?: string } | undefined;
      if (schema) await s.call(method, concrete(template, 'p'), schema.type === 'array' ? {} : { not_a_field: [1] });
    }
    const exchanges = s.exchanges.splice(0);
    expect(exchanges.filter((ex) => ex.status !== 422).map((ex) => `${ex.method} ${ex.path} → ${ex.status}`)).toEqual(
      [],
    );
    expect(exchanges.flatMap((ex) => checkResponse({ ...ex, body: ex.response }))).toEqual([]);
  });
});

/**
 * The decision point's list queries and AuthZEN (issue 40), which permit-openapi.json does not describe:
 * held against the PDP's own shapes (test/contract/pdp-schemas.ts, where each schema comes from).
 */
describe('roster serve against the PDP shapes of the list queries', () => {
  const bodies: [string, string, unknown][] = [
    ['POST', '/user-permissions', { user: { key: 'pu' }, resource_types: ['pdoc', '__tenant'] }],
    [
      'POST',
      '/user-permissions',
      { user: { key: 'pu' }, tenants: ['pt'], context: { enable_abac_user_permissions: true } },
    ],
    ['POST', '/authorized_users', { action: 'read', resource: { type: 'pdoc', key: 'd1', tenant: 'pt' } }],
    [
      'POST',
      '/authorized_users',
      { action: 'read', resource: { type: 'pdoc', tenant: 'pt' }, context: { enable_abac_authorized_users: true } },
    ],
    [
      'POST',
      '/allowed/all-tenants',
      { user: { key: 'pw' }, action: 'read', resource: { type: 'pdoc', key: 'd1', tenant: 'pt' } },
    ],
    ['POST', '/user-tenants', { user: { key: 'pu' } }],
    ['GET', '/local/role_assignments?user=pu&per_page=100', undefined],
    [
      'POST',
      '/access/v1/evaluation',
      { subject: { type: 'user', id: 'pu' }, action: { name: 'read' }, resource: { type: 'pdoc', id: 'd1' } },
    ],
    [
      'POST',
      '/access/v1/evaluations',
      {
        subject: { type: 'user', id: 'pu' },
        resource: { type: 'pdoc', id: 'd1', properties: { tenant: 'pt' } },
        evaluations: [{ action: { name: 'read' } }, { action: { name: 'write' } }],
      },
    ],
    [
      'POST',
      '/access/v1/search/subject',
      { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'pdoc', id: 'd1' } },
    ],
    [
      'POST',
      '/access/v1/search/resource',
      { subject: { type: 'user', id: 'pu' }, action: { name: 'read' }, resource: { type: 'pdoc' } },
    ],
    ['POST', '/access/v1/search/action', { subject: { type: 'user', id: 'pu' }, resource: { type: 'pdoc', id: 'd1' } }],
  ];

  it('answers every list query in the PDP shapes, to bodies in the PDP shapes', async () => {
    const key = { key: ENV_KEY };
    await s.schema('POST', '/resources', {
      key: 'pdoc',
      name: 'pdoc',
      actions: { read: {}, write: {} },
      roles: { reader: { name: 'reader', permissions: ['read'] } },
    });
    await s.schema('POST', '/roles', { key: 'pwide', name: 'pwide', permissions: ['pdoc:read'] });
    await s.facts('POST', '/tenants', { key: 'pt', name: 'pt', attributes: { tier: 'gold' } });
    for (const u of ['pu', 'pw']) await s.facts('POST', '/users', { key: u });
    await s.facts('POST', '/resource_instances', {
      key: 'd1',
      resource: 'pdoc',
      tenant: 'pt',
      attributes: { class: 'a' },
    });
    await s.facts('POST', '/role_assignments', {
      user: 'pu',
      role: 'reader',
      resource_instance: 'pdoc:d1',
      tenant: 'pt',
    });
    await s.facts('POST', '/role_assignments', { user: 'pw', role: 'pwide', tenant: 'pt' });
    s.exchanges.splice(0);
    const answers = [];
    for (const [method, path, body] of bodies) answers.push(await s.call(method, path, body, key));
    const exchanges = s.exchanges.splice(0);
    expect(exchanges.filter((ex) => ex.status !== 200).map((ex) => `${ex.method} ${ex.path} → ${ex.status}`)).toEqual(
      [],
    );
    expect(exchanges.flatMap(checkPdpExchange)).toEqual([]);
    expect(Object.keys(PDP_OPERATIONS).filter((op) => !exchanges.some((ex) => pdpOperation(ex) === op))).toEqual([]);
    // Not empty answers only: each list names what the world holds.
    expect(answers.map((a) => JSON.stringify(a.body)).filter((b) => b === '{}' || b === '[]')).toEqual([]);
  });

  it('answers a body outside the PDP shapes with a 422 naming the field, never a 5xx', async () => {
    for (const op of Object.keys(PDP_OPERATIONS)) {
      const [method, path] = op.split(' ');
      const r =
        method === 'GET'
          ? await s.call(method, `${path}?per_page=abc`, undefined, { key: ENV_KEY })
          : await s.call(method, path, { not_a_field: [1] }, { key: ENV_KEY });
      expect({ op, status: r.status }).toEqual({ op, status: 422 });
      expect(r.body.detail[0]).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
    }
  });
});
