import { Pool } from 'undici';
import { InternalError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { buildApiError, buildNetworkError, displayPath } from './api-error.js';
import { createPacer, PUBLIC_LIMITS, type Pacer } from './pacing.js';
import { fetchAllPages } from './paging.js';
import { ATTEMPT_TIMEOUT, IDEMPOTENT_METHODS, judgeAttempt, retryDelay, type AttemptOutcome } from './retry.js';
import { Semaphore } from './semaphore.js';
import type {
  ApiClient,
  ApiResponse,
  ClientCounters,
  ClientOptions,
  CreateResult,
  EnvPaths,
  HttpMethod,
  ListOptions,
  Query,
  ReadOptions,
  RequestOptions,
} from './types.js';

/** Joins path segments, URL-encoding each: `pathOf(paths.schema, 'groups', 'team:eng')`. */
export function pathOf(prefix: string, ...segments: string[]): string {
  return [prefix, ...segments.map(encodeURIComponent)].join('/');
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(url.hostname) || url.hostname.endsWith('.localhost');
}

type Exchange =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: unknown }
  | { kind: 'network'; code: string; message: string };

function networkCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; errors?: Array<{ code?: unknown }> };
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

export function createClient(options: ClientOptions): ApiClient {
  registerSecret(options.apiKey);
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retries = options.retries ?? 5;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const concurrency = options.concurrency ?? 8;
  const gate = new Semaphore(concurrency);
  // One keep-alive pool for the one origin this client talks to.
  const pool = new Pool(base.origin, {
    connections: concurrency,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connect: { timeout: Math.min(timeoutMs, 10_000) },
  });
  const pacing = options.pacing ?? (isLoopback(base) ? 'none' : 'public');
  const pacer: Pacer | undefined =
    pacing === 'none' ? undefined : createPacer({ limits: pacing === 'public' ? PUBLIC_LIMITS : pacing, now, sleep });
  const counts: ClientCounters = { requests: 0, retries: 0, byMethod: {}, rateLimited: 0, alreadyExisted: 0 };
  const enc = encodeURIComponent;
  const scope = `${enc(options.project)}/${enc(options.environment)}`;
  const paths: EnvPaths = { schema: `/v2/schema/${scope}`, facts: `/v2/facts/${scope}`, elements: `/v2/elements/${scope}` };

  /** What every attempt of one request sends; built once, outside the retry loop. */
  interface Prepared {
    method: HttpMethod;
    path: string;
    target: string;
    headers: Record<string, string>;
    payload?: string;
  }

  function prepare(method: HttpMethod, path: string, opts: RequestOptions): Prepared {
    if (!path.startsWith('/')) throw new InternalError(`API paths start with '/': ${displayPath(path)}`);
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
    headers.authorization = `Bearer ${options.apiKey}`;
    // Serialised here so a body that cannot be serialised is a bug report, not a "network error".
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return { method, path, target: basePath + path + queryString(opts.query), headers, payload };
  }

  async function exchange({ method, path, target, headers, payload }: Prepared, attempt: number): Promise<Exchange> {
    return gate.run(async () => {
      await pacer?.acquire(method, displayPath(path));
      const started = now();
      counts.requests++;
      counts.byMethod[method] = (counts.byMethod[method] ?? 0) + 1;
      let result: Exchange;
      // undici's own headers/body timers tick at ~1 s resolution; a plain timer gives the attempt an exact
      // deadline covering connect, headers and body.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      try {
        const res = await pool.request({
          signal: deadline.signal,
          origin: base.origin,
          method,
          path: target,
          headers,
          body: payload,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        const text = await res.body.text();
        result = { kind: 'response', status: res.statusCode, headers: flatHeaders(res.headers), body: parseBody(text) };
      } catch (err) {
        result = deadline.signal.aborted
          ? { kind: 'network', code: ATTEMPT_TIMEOUT, message: `no complete answer within ${timeoutMs} ms` }
          : { kind: 'network', code: networkCode(err), message: err instanceof Error ? err.message : String(err) };
      } finally {
        clearTimeout(timer);
      }
      options.onRequest?.({
        method,
        path: displayPath(path),
        attempt,
        status: result.kind === 'response' ? result.status : undefined,
        errorCode: result.kind === 'network' ? result.code : undefined,
        durationMs: now() - started,
      });
      return result;
    });
  }

  async function request<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const prepared = prepare(method, path, opts);
    const idempotent = IDEMPOTENT_METHODS.has(method) || opts.idempotentCreate === true || opts.idempotent === true;
    let mayHaveApplied = false;
    for (let attempt = 1; ; attempt++) {
      const got = await exchange(prepared, attempt);
      if (got.kind === 'response') {
        const meta = { status: got.status, headers: got.headers, requestId: got.headers['x-request-id'], attempts: attempt };
        if (got.status >= 200 && got.status < 300) return { ...meta, alreadyExisted: false, data: got.body as T };
        if (got.status === 429) counts.rateLimited++;
        const code = (got.body as { error_code?: unknown } | undefined)?.error_code;
        const duplicate = got.status === 409 && (code === undefined || code === 'DUPLICATE_ENTITY');
        if (duplicate && opts.idempotentCreate && mayHaveApplied) {
          counts.alreadyExisted++;
          return { ...meta, alreadyExisted: true, data: undefined };
        }
      }
      const outcome: AttemptOutcome =
        got.kind === 'response' ? { kind: 'response', status: got.status, retryAfter: got.headers['retry-after'] } : got;
      const judged = judgeAttempt(outcome, idempotent);
      mayHaveApplied ||= judged.mayHaveApplied;
      const delay =
        judged.retryable && attempt <= retries
          ? retryDelay({ failedAttempt: attempt, retryAfter: outcome.kind === 'response' ? outcome.retryAfter : undefined, now: now(), random })
          : undefined;
      if (delay === undefined) {
        throw got.kind === 'response'
          ? buildApiError({ method, path, status: got.status, headers: got.headers, body: got.body })
          : buildNetworkError({ method, path, code: got.code, message: got.message });
      }
      counts.retries++;
      await sleep(delay);
    }
  }

  const data = async <T>(p: Promise<ApiResponse<T>>): Promise<T> => (await p).data as T;

  return {
    paths,
    request,
    get: (path, o) => data(request('GET', path, { ...o })),
    post: (path, body, o) => data(request('POST', path, { ...o, body })),
    async create<T>(path: string, body: unknown, o?: ReadOptions): Promise<CreateResult<T>> {
      const res = await request<T>('POST', path, { ...o, body, idempotentCreate: true });
      return res.alreadyExisted ? { alreadyExisted: true } : { alreadyExisted: false, data: res.data };
    },
    put: (path, body, o) => data(request('PUT', path, { ...o, body })),
    patch: (path, body, o) => data(request('PATCH', path, { ...o, body })),
    delete: (path, o) => data(request('DELETE', path, { ...o })),
    listAll<T>(path: string, o: ListOptions = {}): Promise<T[]> {
      const perPage = o.perPage ?? 100;
      return fetchAllPages<T>({
        perPage,
        parallel: o.parallel,
        fetchPage: (page) => data(request('GET', path, { headers: o.headers, query: { ...o.query, ...(page === 1 ? o.firstPageQuery : {}), page, per_page: perPage } })),
      });
    },
    counters: () => ({ ...counts, byMethod: { ...counts.byMethod } }),
    close: () => pool.close(),
  };
}
