import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RequestStream,
  startCountingProxy,
  startCountingProxyProcess,
  type CountingProxy,
} from '../../bench/count-proxy.js';
import { createClient } from '../../src/api/client.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';

/** Feeds `text` to a RequestStream cut into pieces of `size` bytes; what it counted. */
function counted(text: string, size: number): string[] {
  const out: string[] = [];
  const s = new RequestStream((r) => out.push(`${r.method} ${r.target}`));
  const bytes = Buffer.from(text, 'latin1');
  for (let i = 0; i < bytes.length; i += size) s.push(bytes.subarray(i, i + size));
  return out;
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`;
const post = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const chunked = (path: string, parts: string[], trailer = '') =>
  `PUT ${path} HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('')}0\r\n${trailer}\r\n`;

describe('RequestStream', () => {
  const cases: [string, string, string[]][] = [
    ['one GET', get('/a'), ['GET /a']],
    ['pipelined reads', get('/a') + get('/b?page=2'), ['GET /a', 'GET /b?page=2']],
    // A body that looks like a request head is a body, not a request.
    ['a body holding a request head', post('/p', get('/not-a-request')) + get('/c'), ['POST /p', 'GET /c']],
    ['an empty body', post('/p', '') + get('/d'), ['POST /p', 'GET /d']],
    ['chunked, then another', chunked('/u', ['{"a":', '1}']) + get('/e'), ['PUT /u', 'GET /e']],
    ['chunked with a trailer', chunked('/u', ['x'], 'x-t: 1\r\n') + get('/f'), ['PUT /u', 'GET /f']],
  ];
  for (const [name, text, expected] of cases) {
    it(`${name}: whole, and cut at every size`, () => {
      for (const size of [text.length, 1, 2, 3, 5, 7, 16])
        expect(counted(text, size), `pieces of ${size}`).toEqual(expected);
    });
  }
});

describe('startCountingProxy', () => {
  let server: TestServer;
  let proxy: CountingProxy;
  beforeAll(async () => {
    server = await startTestServer();
    proxy = await startCountingProxy(server.url);
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });

  it('passes requests and answers through and records each request once', async () => {
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      pacing: 'none',
    });
    try {
      proxy.reset();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          client.put(`${client.paths.facts}/users/u${i}`, { key: `u${i}`, attributes: { n: i } }),
        ),
      );
      const users = await client.listAll<{ key: string }>(`${client.paths.facts}/users`, { perPage: 7 });
      expect(users.map((u) => u.key).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `u${i}`).sort());
      expect(proxy.seen.filter((r) => r.method === 'PUT')).toHaveLength(20);
      expect(proxy.seen.filter((r) => r.method === 'GET')).toHaveLength(3);
      expect(proxy.seen.length).toBe(client.counters().requests);
    } finally {
      await client.close();
    }
  });
});

describe('startCountingProxyProcess', () => {
  it('counts in a process of its own: requests, writes, and from zero after reset', async () => {
    const server = await startTestServer();
    const proxy = await startCountingProxyProcess(server.url);
    const client = createClient({
      baseUrl: proxy.url,
      apiKey: ORG_KEY,
      project: 'p',
      environment: 'e',
      pacing: 'none',
    });
    try {
      await client.put(`${client.paths.facts}/users/a`, { key: 'a' });
      await client.get(`${client.paths.facts}/users/a`);
      expect(await proxy.counts()).toEqual({ requests: 2, writes: 1 });
      await proxy.reset();
      await client.get(`${client.paths.facts}/users/a`);
      expect(await proxy.counts()).toEqual({ requests: 1, writes: 0 });
    } finally {
      await client.close();
      await proxy.close();
      await server.close();
    }
  });
});
