/**
 * The worked cases (test/access/role-cases.ts) asked of `roster serve` over HTTP: each environment
 * written through the public API (the refused calls must be refused), then every question in one
 * /allowed/bulk. Runs on SQLite and, in the `postgres` project, on PostgreSQL. The graph answers the
 * same table in test/access/role-cases.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type HttpClient, type TestServer } from '../helpers/server.js';
import { describeWrite, writeEnv } from '../access/public-env.js';
import { ROLE_CASES } from '../access/role-cases.js';
import { caseWrites } from '../access/role-cases-env.js';

/** The request helpers of `server` under /v2/{schema,facts}/{project}/e. */
const scoped = (server: TestServer, project: string): HttpClient => ({
  url: server.url,
  call: server.call,
  schema: (m, p, b) => server.call(m, `/v2/schema/${project}/e${p}`, b),
  facts: (m, p, b) => server.call(m, `/v2/facts/${project}/e${p}`, b),
});

describe('the worked cases of roles, on roster serve', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  // One server; each case in a project and environment of its own, so that cases never meet.
  it.each(ROLE_CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_, c, i) => {
    const project = `p${i}`;
    const created = await server.call('POST', '/v2/projects', { key: project, name: project });
    expect(created.status).toBeLessThan(300);
    const env = await server.call('POST', `/v2/projects/${project}/envs`, { key: 'e', name: 'e' });
    expect(env.status).toBeLessThan(300);
    const http = scoped(server, project);
    const { taken, refused } = caseWrites(c.env);
    const first = await writeEnv(http, taken);
    expect(first.refused.map((r) => `${describeWrite(r.write)} → ${r.status}`)).toEqual([]);
    const second = await writeEnv(http, refused);
    expect(second.taken.map(describeWrite), 'the service refuses these').toEqual([]);
    const r = await server.call('POST', `/allowed/bulk?project=${project}&environment=e`, {
      checks: c.ask.map(([user, action, instance]) => ({
        user: { key: user },
        action,
        resource: { type: instance.split(':')[0], key: instance.split(':')[1] },
      })),
    });
    expect(r.status).toBe(200);
    const answers: boolean[] = r.body.allow.map((a: { allow: boolean }) => a.allow);
    const show = (allowed: boolean[]) =>
      c.ask.map(([user, action, instance], j) => `${user} ${action} ${instance}: ${allowed[j] ? 'allowed' : 'denied'}`);
    expect(show(answers)).toEqual(show(c.ask.map((q) => q[3])));
  });
});
