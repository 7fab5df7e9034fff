import { startProxy, type Proxy, type ProxiedRequest } from '../../bench/proxy.js';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A small review world on a real server, project `p`, env `e`: resource `document` (read, write),
 * roles `viewer` (read), `editor` (write, extends viewer), `approver` (reviewers, LEVEL_1 of the element
 * configuration `default`), tenant `acme`, instances `document:readme` and `document:roadmap`, users
 * `alice` (viewer on readme) and `dave` (requesters), `bob` and `carol` (approvers).
 */
export async function seedReviewWorld(s: TestServer): Promise<void> {
  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok(s.schema('POST', '/resources', { key: 'document', name: 'Document', actions: { read: {}, write: {} } }));
  await ok(s.schema('POST', '/roles', { key: 'viewer', name: 'Viewer', permissions: ['document:read'] }));
  await ok(
    s.schema('POST', '/roles', { key: 'editor', name: 'Editor', permissions: ['document:write'], extends: ['viewer'] }),
  );
  await ok(s.schema('POST', '/roles', { key: 'approver', name: 'Approver', permissions: [] }));
  await ok(s.facts('POST', '/tenants', { key: 'acme', name: 'Acme' }));
  for (const key of ['readme', 'roadmap'])
    await ok(s.facts('POST', '/resource_instances', { key, resource: 'document', tenant: 'acme' }));
  for (const key of ['alice', 'bob', 'carol', 'dave']) await ok(s.facts('POST', '/users', { key }));
  for (const key of ['bob', 'carol'])
    await ok(s.facts('POST', '/role_assignments', { user: key, role: 'approver', tenant: 'acme' }));
  await ok(
    s.facts('POST', '/role_assignments', {
      user: 'alice',
      role: 'viewer',
      tenant: 'acme',
      resource_instance: 'document:readme',
    }),
  );
  await ok(s.facts('POST', '/tenants/acme/users', { key: 'dave' }));
  await ok(
    s.call('POST', '/v2/elements/p/e/config', {
      key: 'default',
      name: 'Default',
      elements_type: 'user_management',
      settings: {},
      roles_to_levels: { LEVEL_1: ['approver'] },
    }),
  );
}

/** Files an access request as `user` through the API; returns its id. */
export async function fileRequest(
  s: TestServer,
  user: string,
  details: { role: string; resource?: string; resource_instance?: string },
  reason?: string,
): Promise<string> {
  const r = await s.facts('POST', `/access_requests/default/user/${user}/tenant/acme`, {
    access_request_details: { tenant: 'acme', ...details },
    ...(reason ? { reason } : {}),
  });
  if (r.status >= 300) throw new Error(`request failed: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { id: string }).id;
}

/**
 * The ids of the world's users (`GET /users/{key}`), for reading public read models, which name users
 * by id only; `keyOf` turns an id back into a key.
 */
export async function readUserIds(
  s: TestServer,
): Promise<{ id: Record<string, string>; keyOf: (id: string | null) => string | null }> {
  const id: Record<string, string> = {};
  for (const key of ['alice', 'bob', 'carol', 'dave']) {
    const r = await s.facts('GET', `/users/${key}`);
    if (r.status !== 200) throw new Error(`setup failed: ${r.status} ${JSON.stringify(r.body)}`);
    id[key] = (r.body as { id: string }).id;
  }
  const keys = new Map(Object.entries(id).map(([k, v]) => [v, k]));
  return { id, keyOf: (x) => (x === null ? null : (keys.get(x) ?? x)) };
}

export function clientFor(s: TestServer): ApiClient {
  return createClient({ baseUrl: s.url, apiKey: ORG_KEY, project: 'p', environment: 'e', retries: 0 });
}

/** One request as it went over the wire: its method, decoded path and query parameters in order (and timings). */
export type SeenRequest = ProxiedRequest;

/** The query parameters the public list of access requests declares; it ignores any other. */
export const LIST_PARAMS = ['status', 'role', 'resource', 'resource_instance_id', 'page', 'per_page'];

/**
 * A pass-through HTTP proxy to the test server that records every request, so a test can check what a
 * client (in this process or a CLI child process) sent on the wire: bench/proxy.ts, without latency.
 */
export function startRecorder(upstream: string): Promise<Proxy> {
  return startProxy({ upstream });
}

export interface RecordedWorld {
  server: TestServer;
  /** In front of `server`: point clients at `recorder.url` to see what they send. */
  recorder: Proxy;
  users: Awaited<ReturnType<typeof readUserIds>>;
  close(): Promise<void>;
}

/** A fresh server with the review world seeded, its users' ids, and a recording proxy in front of it. */
export async function startRecordedWorld(): Promise<RecordedWorld> {
  const server = await startTestServer();
  await seedReviewWorld(server);
  const users = await readUserIds(server);
  const recorder = await startRecorder(server.url);
  return {
    server,
    recorder,
    users,
    async close() {
      await recorder.close();
      await server.close();
    },
  };
}
