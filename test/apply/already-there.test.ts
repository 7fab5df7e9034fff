/**
 * A create that meets an object another apply made meanwhile (409 DUPLICATE_ENTITY) counts as done
 * ("already there"), for resource roles and relations as for every other kind (operations.ts `create`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { AlreadyThere, applyOne } from '../../src/apply/operations.js';
import type { Change } from '../../src/plan/change.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e', retries: 0 });
  await client.create('/v2/schema/p/e/resources', { key: 'folder', name: 'Folder', actions: { read: {} } });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const create = (kind: Change['kind'], after: Record<string, unknown>) =>
  ({ action: 'create', kind, id: `${kind}:x`, after }) as unknown as Change;

describe('a create that finds the object already made', () => {
  it.each([
    ['resource_role', { resource: 'folder', key: 'viewer', name: 'Viewer', permissions: ['read'], extends: [] }],
    ['relation', { resource: 'folder', key: 'parent', name: 'parent', subject: 'folder' }],
  ] as const)('%s: the second create is AlreadyThere, not an error', async (kind, after) => {
    await applyOne(client, create(kind, after));
    await expect(applyOne(client, create(kind, after))).rejects.toBeInstanceOf(AlreadyThere);
  });
});
