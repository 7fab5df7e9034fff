/**
 * An HTTP proxy to put between the CLI (or a client) and `roster serve`, for benches and tests that need
 * to see the requests as the service would: it counts them, records how many were in flight, can add a
 * fixed latency to every request (an internet round trip), and can enforce rate limits the way a
 * strict service would (a sliding window per category: any window of `windowMs` holds at most `limit`
 * requests; the others are answered 429 with `Retry-After`). Kept free of src/ imports but the pacing
 * categories, so it judges the client by the same published limits.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { categorize, type PacingCategory, type RateLimits } from '../src/api/pacing.js';

export interface ProxiedRequest {
  method: string;
  /** Decoded path, without the query. */
  path: string;
  query: [string, string][];
  status: number;
  /** Milliseconds since the proxy started: when the request arrived and when its answer was sent. */
  start: number;
  end: number;
  /** Requests in flight when this one arrived, itself included. */
  inFlight: number;
}

export interface ProxyOptions {
  upstream: string;
  /** Added before each request is forwarded. Default 0. */
  latencyMs?: number;
  limits?: RateLimits;
}

export interface Proxy {
  url: string;
  seen: ProxiedRequest[];
  /** Requests answered 429 by the proxy's own limits. */
  limited(): number;
  maxInFlight(): number;
  /** Forget what was seen (limits keep their windows). */
  reset(): void;
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions): Promise<Proxy> {
  const target = new URL(options.upstream);
  const now = () => performance.now();
  const t0 = now();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const seen: ProxiedRequest[] = [];
  const windows = new Map<PacingCategory, number[]>();
  let inFlight = 0;
  let max = 0;
  let limited = 0;

  /** Takes a slot in every limited category, or says how many seconds until one frees. */
  const admit = (method: string, path: string): number => {
    if (!options.limits) return 0;
    const t = now();
    let wait = 0;
    const mine = categorize(method, path).filter((c) => options.limits![c]);
    for (const c of mine) {
      const { limit, windowMs } = options.limits[c]!;
      const times = (windows.get(c) ?? windows.set(c, []).get(c)!).filter((x) => x > t - windowMs);
      windows.set(c, times);
      if (times.length >= limit) wait = Math.max(wait, times[times.length - limit] + windowMs - t);
    }
    if (wait > 0) return Math.ceil(wait / 1000);
    for (const c of mine) windows.get(c)!.push(t);
    return 0;
  };

  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://proxy');
    inFlight++;
    max = Math.max(max, inFlight);
    const entry: ProxiedRequest = {
      method: req.method ?? '?',
      path: decodeURIComponent(u.pathname),
      query: [...u.searchParams],
      status: 0,
      start: now() - t0,
      end: 0,
      inFlight,
    };
    seen.push(entry);
    const done = (status: number) => {
      entry.status = status;
      entry.end = now() - t0;
      inFlight--;
    };
    const forward = () => {
      const retryAfter = admit(entry.method, entry.path);
      if (retryAfter > 0) {
        limited++;
        req.resume();
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfter) });
        res.end(JSON.stringify({ error_code: 'TOO_MANY_REQUESTS', message: 'rate limit (proxy)' }));
        return done(429);
      }
      const up = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
          r.on('end', () => done(r.statusCode ?? 502));
        },
      );
      up.on('error', () => {
        done(502);
        res.destroy();
      });
      req.pipe(up);
    };
    if (options.latencyMs) setTimeout(forward, options.latencyMs);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    limited: () => limited,
    maxInFlight: () => max,
    reset() {
      seen.length = 0;
      max = inFlight;
      limited = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
