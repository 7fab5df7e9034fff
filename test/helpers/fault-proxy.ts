import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP proxy in front of the real server that injects faults between the CLI (or a client) and the
 * service. For each request, `decide` returns the fault to inject, or undefined to pass it through:
 * - `truncate`: forward, then answer with the first half of the body, well framed (Content-Length
 *   says the cut length), so the client sees a complete answer that is not valid JSON;
 * - `wrong-shape`: answer 200 with JSON the client cannot use (`{"unexpected": true}`);
 * - `json`: answer 200 with `body` as JSON (any value, `null` included);
 * - `item`: forward, then replace item `index` of the list page answered (a bare array or `{data}`) with
 *   `change(item)`, keeping the rest of the page as the server sent it; a page without that item, or an
 *   answer that is not a list page, passes unchanged (`seen` then records no fault);
 * - `html`: answer 200 with an HTML page, as a login proxy would;
 * - `redirect`: answer 307 with a Location;
 * - `endless`: answer 200 and stream bytes without end;
 * - `silent`: never answer (the connection stays open);
 * - `status`: answer `status` (with `retryAfter` when given) without forwarding;
 * - `hold`: forward only once `until` settles (another client acts in between);
 * - `die`: stop listening and cut every connection: the service is gone for good;
 * - `restart`: forward and answer, then stop listening and cut every connection for `downMs`, then
 *   listen again on the same port (a service restarting: connections are refused meanwhile).
 * `seen` records every request with the fault it got.
 */
export type Fault =
  | { kind: 'truncate' | 'wrong-shape' | 'html' | 'endless' | 'silent' | 'die' }
  | { kind: 'redirect'; location: string }
  | { kind: 'json'; body: unknown }
  | { kind: 'item'; index: number; change: (item: unknown) => unknown }
  | { kind: 'hold'; until: Promise<unknown> }
  | { kind: 'restart'; downMs: number }
  | { kind: 'status'; status: number; retryAfter?: string; body?: unknown };

export interface FaultRequest {
  method: string;
  path: string;
  /** The query, without `?` (empty when none). */
  query: string;
  /** 0-based index among all requests the proxy received. */
  index: number;
}

export interface FaultProxy {
  url: string;
  seen: (FaultRequest & { fault?: Fault['kind'] })[];
  /** True once a `die` fault was injected. */
  dead(): boolean;
  close(): Promise<void>;
}

export async function startFaultProxy(
  target: string,
  decide: (req: FaultRequest) => Fault | undefined,
): Promise<FaultProxy> {
  const seen: FaultProxy['seen'] = [];
  const sockets = new Set<Socket>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  let dead = false;
  const upstream = new URL(target);

  const forward = (
    req: http.IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const up = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      up.on('error', reject);
      up.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const entry: FaultProxy['seen'][number] = {
        method: req.method ?? '?',
        path: url.pathname,
        query: url.search.slice(1),
        index: seen.length,
      };
      seen.push(entry);
      const fault = dead ? { kind: 'die' as const } : decide(entry);
      entry.fault = fault?.kind;
      const relay = (up: { status: number; headers: http.IncomingHttpHeaders; body: Buffer }) => {
        const headers = { ...up.headers };
        delete headers['transfer-encoding'];
        delete headers.connection;
        res.writeHead(up.status, { ...headers, 'content-length': String(up.body.length) });
        res.end(up.body);
      };
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      try {
        switch (fault?.kind) {
          case 'hold':
            await fault.until.catch(() => {});
          // falls through: forwarded once released
          case undefined:
            return relay(await forward(req, Buffer.concat(chunks)));
          case 'truncate': {
            const up = await forward(req, Buffer.concat(chunks));
            const cut = up.body.subarray(0, Math.floor(up.body.length / 2));
            res.writeHead(up.status, { 'content-type': 'application/json', 'content-length': String(cut.length) });
            return void res.end(cut);
          }
          case 'wrong-shape':
            return json(200, { unexpected: true });
          case 'json':
            return json(200, fault.body);
          case 'item': {
            const up = await forward(req, Buffer.concat(chunks));
            const page: unknown = up.status === 200 ? JSON.parse(up.body.toString('utf8')) : undefined;
            const items = Array.isArray(page) ? page : (page as { data?: unknown } | undefined)?.data;
            if (!Array.isArray(items) || items.length <= fault.index) {
              entry.fault = undefined;
              return relay(up);
            }
            items[fault.index] = fault.change(items[fault.index]);
            return json(200, page);
          }
          case 'html':
            res.writeHead(200, { 'content-type': 'text/html' });
            return void res.end('<html><body>Please sign in</body></html>');
          case 'redirect':
            res.writeHead(307, { location: fault.location });
            return void res.end();
          case 'status':
            return json(
              fault.status,
              fault.body ?? { error_code: 'UNAVAILABLE', message: 'injected' },
              fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
            );
          case 'endless': {
            res.writeHead(200, { 'content-type': 'application/json' });
            const piece = Buffer.alloc(1 << 16, 0x20);
            const pump = () => {
              while (!res.destroyed && res.write(piece));
              if (!res.destroyed) res.once('drain', pump);
            };
            res.write('[');
            return pump();
          }
          case 'silent':
            return;
          case 'restart': {
            relay(await forward(req, Buffer.concat(chunks)));
            const port = (server.address() as AddressInfo).port;
            res.once('finish', () => {
              server.close();
              for (const s of sockets) s.destroy();
              setTimeout(() => server.listen(port, '127.0.0.1'), fault.downMs);
            });
            return;
          }
          case 'die':
            dead = true;
            server.close();
            for (const s of sockets) s.destroy();
            return;
        }
      } catch {
        res.destroy();
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    dead: () => dead,
    close: () =>
      new Promise<void>((r) => {
        agent.destroy();
        for (const s of sockets) s.destroy();
        if (!server.listening) return r();
        server.close(() => r());
      }),
  };
}
