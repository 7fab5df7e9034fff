import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postFromAnotherProcess } from '../helpers/client-process.js';
import { startSlowLink, type SlowLink } from '../helpers/slow-link.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { ok } from './builders.js';

/**
 * A body over the limit (4 MiB) answers 413 in a way every client reads: the server reads and discards
 * the rest of the body before answering (src/server/drain.ts). Node's fetch and undici write the whole
 * body before reading the answer; they used to see EPIPE or "other side closed" instead of the 413.
 */
let s: TestServer;
let slow: SlowLink;
beforeAll(async () => {
  s = await startTestServer();
  // About 6 MB/s: a 5 MB body is still arriving for most of a second after the limit trips.
  slow = await startSlowLink(s.url, { bytesPerTick: 64 * 1024, tickMs: 10 });
});
afterAll(async () => {
  await slow.close();
  await s.close();
});

const PATH = '/v2/facts/p/e/tenants';
const HEADERS = { authorization: `Bearer ${ORG_KEY}`, 'content-type': 'application/json' };

describe('a body over the limit gives a readable 413', () => {
  describe.each(['fetch', 'undici'] as const)('%s', (client) => {
    it.each([
      ['directly, with a content-length', false, false],
      ['directly, chunked', false, true],
      ['through a slow link, with a content-length', true, false],
      ['through a slow link, chunked', true, true],
    ])('%s', async (_, throughSlowLink, chunked) => {
      const url = (throughSlowLink ? slow.url : s.url) + PATH;
      // Five times: without the drain, about half of the attempts saw EPIPE instead of the answer.
      const outcomes = await postFromAnotherProcess({
        url,
        headers: HEADERS,
        size: 5 * 1024 * 1024,
        client,
        chunked,
        times: throughSlowLink ? 2 : 5,
      });
      for (const o of outcomes) {
        expect(o, JSON.stringify(o)).toMatchObject({
          status: 413,
          body: { error_code: 'PAYLOAD_TOO_LARGE', id: expect.any(String) },
        });
      }
      // And the server still answers.
      expect(ok(await s.facts('GET', '/tenants'))).toBeDefined();
    });
  });

  it('a body within the limit still goes through the slow link, and is read and validated', async () => {
    const outcomes = await postFromAnotherProcess({
      url: slow.url + PATH,
      headers: HEADERS,
      size: 1024 * 1024,
      client: 'undici',
      chunked: true,
      times: 1,
    });
    // A name of 1 MiB is too long for a tenant: the answer names the field, so the whole body was parsed.
    expect(outcomes).toEqual([{ status: 422, body: { detail: [expect.objectContaining({ loc: ['body', 'name'] })] } }]);
  });
});

describe('the server reads an oversized body only up to a bound, then closes', () => {
  // One server per bound, the other bound out of reach: whichever closes the connection is the one tested.
  let byBytes: TestServer;
  let byTime: TestServer;
  beforeAll(async () => {
    byBytes = await startTestServer({
      limits: { bodyLimit: 1024, drainBounds: { maxBytes: 256 * 1024, maxMs: 10 * 60_000 } },
    });
    byTime = await startTestServer({
      limits: { bodyLimit: 1024, drainBounds: { maxBytes: 64 * 1024 * 1024, maxMs: 1000 } },
    });
  });
  afterAll(async () => {
    await byBytes.close();
    await byTime.close();
  });

  /** Sends a body announced as 1 GB, `piece` bytes every `everyMs`, until the server closes; bytes sent by then. */
  function sendForever(server: TestServer, piece: number, everyMs: number): Promise<{ sent: number; answer: string }> {
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let sent = 0;
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(
          `POST ${PATH} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${ORG_KEY}\r\ncontent-type: application/json\r\ncontent-length: 1000000000\r\n\r\n`,
        );
      });
      const timer = setInterval(() => {
        if (socket.writable) {
          socket.write(Buffer.alloc(piece, 0x20));
          sent += piece;
        }
      }, everyMs);
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ sent, answer: Buffer.concat(chunks).toString() });
      });
    });
  }

  it('past the byte bound (the time bound is ten minutes away)', async () => {
    const { sent, answer } = await sendForever(byBytes, 32 * 1024, 5);
    expect(sent).toBeGreaterThanOrEqual(256 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('past the time bound (the byte bound is 64 MiB away)', async () => {
    const { sent, answer } = await sendForever(byTime, 100, 50);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});
