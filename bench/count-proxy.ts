/**
 * A counting proxy at the TCP level, for benches that only need to know which requests a client sent
 * (bench/scale.bench.ts): bytes are passed through untouched, and the request heads are read off the
 * client's side of each connection to record method and path. It does not see answers (no statuses)
 * and cannot add latency or limits: bench/proxy.ts does, through Node's HTTP server, at about four
 * times the CPU per request (measured at ×10: ~0.3 ms a request there, which on 2 cores slowed the
 * apply it measured by ~25 s).
 */
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

export interface CountedRequest {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
}

export interface CountingProxy {
  url: string;
  seen: CountedRequest[];
  reset(): void;
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Follows one connection's request stream: heads, then bodies by content-length or chunked coding
 * (undici sends a string body with content-length; chunked is followed for other clients).
 */
export class RequestStream {
  private head = Buffer.alloc(0);
  /** Body bytes still to skip (content-length). */
  private bodyLeft = 0;
  /** Inside a chunked body: the chunk bytes still to skip, and what is awaited after them. */
  private chunked = false;
  private chunkLeft = 0;
  private line = Buffer.alloc(0);
  private trailers = false;

  constructor(private readonly onRequest: (r: CountedRequest) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const n = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= n;
        at += n;
        continue;
      }
      if (this.chunked) {
        at = this.chunkedStep(chunk, at);
        continue;
      }
      const joined = this.head.length ? Buffer.concat([this.head, chunk.subarray(at)]) : chunk.subarray(at);
      const end = joined.indexOf(HEAD_END);
      if (end < 0) {
        this.head = Buffer.from(joined);
        return;
      }
      const consumed = end + 4 - this.head.length;
      this.head = Buffer.alloc(0);
      this.startBody(joined.toString('latin1', 0, end));
      at += consumed;
    }
  }

  private startBody(head: string): void {
    const lines = head.split('\r\n');
    const [method = '?', target = '?'] = lines[0].split(' ');
    this.onRequest({ method, target });
    for (const l of lines) {
      const colon = l.indexOf(':');
      if (colon < 0) continue;
      const name = l.slice(0, colon).trim().toLowerCase();
      const value = l.slice(colon + 1).trim();
      if (name === 'content-length') this.bodyLeft = Number(value);
      else if (name === 'transfer-encoding' && /chunked/i.test(value)) this.chunked = true;
    }
  }

  /** One step through a chunked body: a size line, chunk data and its CRLF, or the trailers. */
  private chunkedStep(chunk: Buffer, at: number): number {
    if (this.chunkLeft > 0) {
      const n = Math.min(this.chunkLeft, chunk.length - at);
      this.chunkLeft -= n;
      return at + n;
    }
    const nl = chunk.indexOf(10, at);
    if (nl < 0) {
      this.line = Buffer.concat([this.line, chunk.subarray(at)]);
      return chunk.length;
    }
    const text = Buffer.concat([this.line, chunk.subarray(at, nl)])
      .toString('latin1')
      .trim();
    this.line = Buffer.alloc(0);
    if (this.trailers) {
      // An empty line ends the trailers, and the request.
      if (text === '') {
        this.trailers = false;
        this.chunked = false;
      }
    } else if (text !== '') {
      const size = parseInt(text.split(';')[0], 16);
      if (size === 0) this.trailers = true;
      else this.chunkLeft = size + 2; // the data and its CRLF
    }
    return nl + 1;
  }
}

export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const seen: CountedRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const up = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(up);
    const stream = new RequestStream((r) => seen.push(r));
    client.setNoDelay(true);
    up.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      stream.push(chunk);
      if (!up.write(chunk)) client.pause();
    });
    up.on('drain', () => client.resume());
    up.pipe(client);
    const end = () => {
      client.destroy();
      up.destroy();
      sockets.delete(client);
      sockets.delete(up);
    };
    client.on('close', end).on('error', end);
    up.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    reset: () => void (seen.length = 0),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface ProxyCounts {
  requests: number;
  /** Requests other than GET. */
  writes: number;
}

export interface CountingProxyProcess {
  url: string;
  counts(): Promise<ProxyCounts>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The counting proxy in a process of its own (bench/count-proxy-main.ts), as the service and the CLI
 * are: in the bench's own process, which holds the generated environment, its collections paused the
 * forwarding (×10: 83 s for an apply that took 68 s through the same proxy in its own process).
 */
export async function startCountingProxyProcess(upstream: string): Promise<CountingProxyProcess> {
  const { spawn } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const here = path.dirname(fileURLToPath(import.meta.url));
  const tsx = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', tsx, path.join(here, 'count-proxy-main.ts'), upstream], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const replies: ((m: { type: string } & Record<string, unknown>) => void)[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the counting proxy exited ${code}`)));
    child.on('message', (m: { type: string; url?: string } & Record<string, unknown>) =>
      m.type === 'url' ? resolve(m.url!) : replies.shift()?.(m),
    );
  });
  const ask = <T>(type: string) =>
    new Promise<T>((resolve) => {
      replies.push((m) => resolve(m as T));
      child.send({ type });
    });
  return {
    url,
    counts: async () => {
      const { requests, writes } = await ask<ProxyCounts>('counts');
      return { requests, writes };
    },
    reset: async () => void (await ask('reset')),
    close: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
