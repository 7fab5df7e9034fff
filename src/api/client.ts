import { Pool } from 'undici';
import { InternalError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { buildApiError, buildNetworkError, displayPath } from './api-error.js';
import { createPacer, PUBLIC_LIMITS, type Pacer, type RateLimits } from './pacing.js';
import { fetchAllPages } from './paging.js';
import { ATTEMPT_TIMEOUT, IDEMPOTENT_METHODS, judgeAttempt, retryDelay, type AttemptOutcome } from './retry.js';
import { Semaphore } from './semaphore.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type QueryScalar = string | number | boolean;
export type Query = Record<string, QueryScalar | readonly QueryScalar[] | null | undefined>;

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
  /**
   * A POST that creates a keyed object. It is retried like an idempotent method, and a 409
   * DUPLICATE_ENTITY that answers a retry after an attempt whose fate is unknown is our own earlier
   * attempt: the response resolves with `alreadyExisted: true` instead of throwing.
   */
  idempotentCreate?: boolean;
  /** A POST that is safe to repeat (e.g. `/allowed`): retried like GET. */
  idempotent?: boolean;
}

export type ApiResponse<T> = {
  status: number;
  headers: Record<string, string>;
  requestId?: string;
  /** Attempts made, 1 when the first one succeeded. */
  attempts: number;
} & ({ alreadyExisted: false; data: T } | { alreadyExisted: true; data: undefined });

export type CreateResult<T> = { alreadyExisted: false; data: T } | { alreadyExisted: true };

/** Reported after every attempt, for counting in tests and benches. */
export interface AttemptInfo {
  method: string;
  path: string;
  attempt: number;
  /** Undefined when no HTTP answer came (network error, timeout). */
  status?: number;
  errorCode?: string;
  durationMs: number;
}

export interface ClientCounters {
  /** Attempts sent, retries included. */
  requests: number;
  retries: number;
  byMethod: Record<string, number>;
  /** 429 answers received. */
  rateLimited: number;
  /** Creates that met 409 on a retry and were counted as done. */
  alreadyExisted: number;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  project: string;
  environment: string;
  /** Requests in flight at once; default 8. */
  concurrency?: number;
  /** Headers timeout and body (idle) timeout per attempt; default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 5. */
  retries?: number;
  /** Default: 'none' for a loopback host, 'public' otherwise. */
  pacing?: 'none' | 'public' | RateLimits;
  /** Jitter source in [0, 1); default Math.random. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Clock for pacing and Retry-After dates; default Date.now. */
  now?: () => number;
  onRequest?: (info: AttemptInfo) => void;
}

export interface EnvPaths {
  schema: string;
  facts: string;
  elements: string;
}

export interface ListOptions {
  /** Default 100 (the public maximum for most lists). */
  perPage?: number;
  query?: Query;
  headers?: Record<string, string>;
  /** Pages fetched at once once the count is known; default 4. */
  parallel?: number;
}

type ReadOptions = Pick<RequestOptions, 'query' | 'headers'>;
type WriteOptions = Pick<RequestOptions, 'query' | 'headers' | 'idempotent'>;

export interface ApiClient {
  readonly paths: EnvPaths;
  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, options?: ReadOptions): Promise<T>;
  post<T = unknown>(path: string, body?: unknown, options?: WriteOptions): Promise<T>;
  /** POST with `idempotentCreate`: a retry that meets 409 resolves `{alreadyExisted: true}`. */
  create<T = unknown>(path: string, body: unknown, options?: ReadOptions): Promise<CreateResult<T>>;
  put<T = unknown>(path: string, body?: unknown, options?: ReadOptions): Promise<T>;
  patch<T = unknown>(path: string, body?: unknown, options?: ReadOptions): Promise<T>;
  delete<T = void>(path: string, options?: ReadOptions & { body?: unknown }): Promise<T>;
  listAll<T = unknown>(path: string, options?: ListOptions): Promise<T[]>;
  counters(): ClientCounters;
  close(): Promise<void>;
}

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

  async function exchange(method: HttpMethod, path: string, opts: RequestOptions, attempt: number): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    headers.authorization = `Bearer ${options.apiKey}`;
    const hasBody = opts.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';
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
          path: basePath + path + queryString(opts.query),
          headers,
          body: hasBody ? JSON.stringify(opts.body) : undefined,
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
    if (!path.startsWith('/')) throw new InternalError(`API paths start with '/': ${displayPath(path)}`);
    const idempotent = IDEMPOTENT_METHODS.has(method) || opts.idempotentCreate === true || opts.idempotent === true;
    let mayHaveApplied = false;
    for (let attempt = 1; ; attempt++) {
      const got = await exchange(method, path, opts, attempt);
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
        fetchPage: (page) => data(request('GET', path, { headers: o.headers, query: { ...o.query, page, per_page: perPage } })),
      });
    },
    counters: () => ({ ...counts, byMethod: { ...counts.byMethod } }),
    close: () => pool.close(),
  };
}
