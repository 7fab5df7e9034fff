import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { changeLines, liveCounts, ORG_KEY, startEnv, type Env } from './helpers.js';
import { SMALL } from './fixtures.js';

/**
 * A proxy in front of the real server that refuses some writes: the first three with 429 and
 * `Retry-After: 1`, the next two with 503. Nothing refused reaches the server. Apply through it must
 * wait, retry, succeed, and leave exactly what it would have left without the proxy.
 */
interface Proxy {
  url: string;
  log: { method: string; url: string; status: number; at: number }[];
  close(): Promise<void>;
}

async function startProxy(target: string, refuse: number[]): Promise<Proxy> {
  const log: Proxy['log'] = [];
  let writes = 0;
  const server = http.createServer((req, res) => {
    const answer = req.method === 'GET' ? undefined : refuse[writes++];
    const body: Buffer[] = [];
    req.on('data', (d) => body.push(d));
    req.on('end', async () => {
      if (answer) {
        log.push({ method: req.method!, url: req.url!, status: answer, at: Date.now() });
        res.writeHead(answer, {
          'content-type': 'application/json',
          ...(answer === 429 ? { 'retry-after': '1' } : {}),
        });
        res.end(
          JSON.stringify({ error_code: answer === 429 ? 'TOO_MANY_REQUESTS' : 'UNAVAILABLE', message: 'try again' }),
        );
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
      ) as Record<string, string>;
      const upstream = await fetch(target + req.url, {
        method: req.method,
        headers,
        body: body.length ? Buffer.concat(body) : undefined,
      });
      log.push({ method: req.method!, url: req.url!, status: upstream.status, at: Date.now() });
      const text = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

// Spawned CLIs and a busy machine: a test may take well over the default 30 s.
describe('retries', { timeout: 120_000 }, () => {
  let env: Env;
  let proxy: Proxy;
  beforeAll(async () => {
    env = await startEnv();
    proxy = await startProxy(env.server.url, [429, 429, 429, 503, 503]);
    env.write('roster.yaml', SMALL);
  });
  afterAll(async () => {
    await proxy?.close();
    await env?.close();
  });

  it('apply honours Retry-After on 429, retries 503, succeeds, and converges without duplicates', async () => {
    const viaProxy = (...args: string[]) =>
      runCli([...args, '--api-url', proxy.url, '--project', 'p', '--env', 'e'], {
        cwd: env.dir,
        env: { ROSTER_API_KEY: ORG_KEY },
      });
    const applied = await viaProxy('apply', '--yes', '--concurrency', '2');
    expect(applied.stderr).not.toContain('FAILED');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied 15 of 15 changes');

    const refused = proxy.log.filter((e) => e.status === 429 || e.status === 503);
    expect(refused.map((e) => e.status)).toEqual([429, 429, 429, 503, 503]);
    // Each refused request was sent again, and a 429 only after the second it asked for.
    for (const r of refused) {
      const retry = proxy.log.find((e) => e.at >= r.at && e !== r && e.method === r.method && e.url === r.url);
      expect(retry, `${r.method} ${r.url} retried`).toBeDefined();
      if (r.status === 429) expect(retry!.at - r.at).toBeGreaterThanOrEqual(990);
    }

    const plan = await viaProxy('plan', '--detailed-exitcode');
    expect(changeLines(plan.stdout)).toEqual([]);
    expect(plan.code).toBe(0);
    // Tenants: the configuration's and `default`, which the environment came with.
    expect(await liveCounts(env)).toEqual({ users: 2, tenants: 2, assignments: 3, instances: 2, groups: 1 });
  });
});
