import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { applyOne } from '../../src/apply/operations.js';
import { resolveScope } from '../../src/usecases/scope.js';
import { openTarget } from '../../src/usecases/target.js';
import { ApiError } from '../../src/errors.js';
import type { Change } from '../../src/plan/change.js';
import { checkActor } from '../../src/review/actor.js';
import { createReviewSource } from '../../src/review/index.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { fileRequest, readUserIds, seedReviewWorld } from '../review/world.js';

/**
 * Every single-object GET of the client, answered 200 with JSON it cannot use (through a proxy in front
 * of the real server that replaces that one answer): each ends in the classified MALFORMED_ANSWER
 * naming the request, never in a TypeError, a half-read value or an answer taken at its word.
 */
let server: TestServer;
let proxy: FaultProxy | undefined;
const clients: ApiClient[] = [];
let requestId: string;
let aliceId: string;

beforeAll(async () => {
  server = await startTestServer();
  await seedReviewWorld(server);
  requestId = await fileRequest(server, 'alice', { role: 'editor', resource: 'document', resource_instance: 'readme' });
  aliceId = (await readUserIds(server)).id.alice;
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await proxy?.close();
  proxy = undefined;
});
afterAll(async () => server?.close());

/** A client through a proxy answering `body` to GET `target` and passing everything else to the server. */
async function breaking(target: () => string, body: unknown): Promise<ApiClient> {
  proxy = await startFaultProxy(server.url, (r) =>
    r.method === 'GET' && r.path === target() ? { kind: 'json', body } : undefined,
  );
  const client = createClient({
    baseUrl: proxy.url,
    apiKey: ORG_KEY,
    project: 'p',
    environment: 'e',
    retries: 1,
    sleep: async () => {},
  });
  clients.push(client);
  return client;
}

const configUpdate: Change = {
  id: 'access_requests:default',
  kind: 'access_requests',
  action: 'update',
  dependsOn: [],
  before: { key: 'default', name: 'Default', reviewer_roles: ['approver'] },
  after: { key: 'default', name: 'Renamed', reviewer_roles: ['approver'] },
  fields: [{ field: 'name', before: 'Default', after: 'Renamed' }],
};

/** Each single-object read: the path whose answer is replaced, and the read. */
const READS: [string, () => string, (client: ApiClient) => Promise<unknown>][] = [
  ['the acting user (checkActor)', () => '/v2/facts/p/e/users/bob', (c) => checkActor(c, 'bob', 'acme')],
  ['the tenant (checkActor)', () => '/v2/facts/p/e/tenants/acme', (c) => checkActor(c, 'bob', 'acme')],
  [
    'an access request (review)',
    () => `/v2/facts/p/e/access_requests/default/user/bob/tenant/acme/${requestId}`,
    (c) => createReviewSource({ client: c, user: 'bob', tenant: 'acme' }).get(requestId),
  ],
  [
    'a requester looked up by id (review list)',
    () => `/v2/facts/p/e/users/${aliceId}`,
    (c) => createReviewSource({ client: c, user: 'bob', tenant: 'acme' }).listPage({}, 1, 10),
  ],
  [
    'the element configuration (review reviewers)',
    () => '/v2/elements/p/e/config/default',
    (c) => createReviewSource({ client: c, user: 'bob', tenant: 'acme' }).readReviewers(),
  ],
  [
    'the element configuration (apply, before its update)',
    () => '/v2/elements/p/e/config/default',
    (c) => applyOne(c, configUpdate),
  ],
  ['the project (scope)', () => '/v2/projects/p', (c) => resolveScope(c, 'p', 'e', { kind: 'remote', where: 'here' })],
  [
    'the environment (scope)',
    () => '/v2/projects/p/envs/e',
    (c) => resolveScope(c, 'p', 'e', { kind: 'remote', where: 'here' }),
  ],
];

/** JSON of the wrong shape for every read above: not an object, or an object without a usable field. */
const BODIES: [string, unknown][] = [
  ['an array', []],
  ['a string', 'x'],
  ['null', null],
  ['an empty object', {}],
  [
    'fields of the wrong type',
    { key: 5, id: {}, roles_to_levels: ['admin'], access_request_details: 'editor', created_at: 1 },
  ],
];

describe('single-object reads answered with JSON of the wrong shape', () => {
  describe.each(READS)('%s', (_, target, read) => {
    it.each(BODIES)('%s: MALFORMED_ANSWER naming the request', async (__, body) => {
      const client = await breaking(target, body);
      const err = await read(client).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, String(err)).toBeInstanceOf(ApiError);
      const { info, message } = err as ApiError;
      expect(info).toMatchObject({ method: 'GET', path: target(), status: 200, errorCode: 'MALFORMED_ANSWER' });
      expect(message).toMatch(
        new RegExp(
          `^GET ${target().replace(/[/.]/g, '\\$&')} answered 200 MALFORMED_ANSWER: JSON of the wrong shape \\(.+\\) \\(after 2 attempts\\)$`,
        ),
      );
      expect(message).not.toContain(ORG_KEY);
      // Retried once, then given up: the broken answer was really read over HTTP.
      expect(proxy!.seen.filter((r) => r.fault === 'json')).toHaveLength(2);
    });
  });

  it('says which field is wrong', async () => {
    const client = await breaking(() => '/v2/facts/p/e/users/bob', { id: 'u1', key: 7 });
    await expect(checkActor(client, 'bob', 'acme')).rejects.toThrow(
      'JSON of the wrong shape (key is a number, where a string was expected)',
    );
    await proxy!.close();
    const other = await breaking(() => `/v2/facts/p/e/access_requests/default/user/bob/tenant/acme/${requestId}`, {
      id: requestId,
      created_at: 'now',
      access_request_details: {},
    });
    await expect(createReviewSource({ client: other, user: 'bob', tenant: 'acme' }).get(requestId)).rejects.toThrow(
      'access_request_details.role is missing, where a string was expected',
    );
  });

  it('the key-scope answer: a project_id that is not a string is MALFORMED_ANSWER, not a project', async () => {
    proxy = await startFaultProxy(server.url, (r) =>
      r.path === '/v2/api-key/scope'
        ? { kind: 'json', body: { organization_id: 'o', project_id: 5, environment_id: 'e' } }
        : undefined,
    );
    const keyFile = path.join(server.dataDir, 'key');
    writeFileSync(keyFile, ORG_KEY);
    // openTarget's own client, with its default deadline (2 min): the jitter is 0, so its retries do not
    // wait. (A 1 s --timeout here cut the last retry short on a loaded machine: test/README.md, "Deadlines".)
    const jitter = vi.spyOn(Math, 'random').mockReturnValue(0);
    const err = await openTarget({ apiUrl: proxy.url, apiKeyFile: keyFile })
      .then(
        (t) => t.close(),
        (e: unknown) => e,
      )
      .finally(() => jitter.mockRestore());
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(
      /^GET \/v2\/api-key\/scope answered 200 MALFORMED_ANSWER: JSON of the wrong shape \(project_id is a number, where a string, null or nothing was expected\) \(after 6 attempts\)$/,
    );
  });

  it('the answers the real server gives pass', async () => {
    const client = await breaking(() => '/nothing', null);
    expect(await checkActor(client, 'bob', 'acme')).toEqual({ user: 'bob', tenant: 'acme' });
    const source = createReviewSource({ client, user: 'bob', tenant: 'acme' });
    expect(await source.get(requestId)).toMatchObject({ id: requestId, requester: 'alice', role: 'editor' });
    const reviewers = await source.readReviewers();
    expect({ ...reviewers, holders: [...reviewers.holders].sort() }).toEqual({
      roles: ['approver'],
      holders: ['bob', 'carol'],
      complete: false,
    });
    expect(await resolveScope(client, 'p', 'e', { kind: 'remote', where: 'here' })).toMatchObject({
      project: 'p',
      environment: 'e',
    });
    await applyOne(client, configUpdate);
    expect((await server.call('GET', '/v2/elements/p/e/config/default')).body.name).toBe('Renamed');
  });
});
