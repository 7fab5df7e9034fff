import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExchange, checkResponse, findOperation, type Exchange } from '../contract/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
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
