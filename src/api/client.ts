// undici's Pool and request alone (src/api/undici-pool.d.ts): its index loads much the client does not use.
import Pool from 'undici/lib/dispatcher/pool.js';
import poolRequest from 'undici/lib/api/api-request.js';
import { ApiError, ConfigError, InternalError, NoApiError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { buildApiError, buildNetworkError, displayPath } from './api-error.js';
import {
  AnswerTooLarge,
  expectListItems,
  expectListPage,
  malformedRead,
  MAX_ANSWER_BYTES,
  parseBody,
  readBodyText,
} from './answer.js';
import { createBreaker } from './breaker.js';
import { createPacer, PUBLIC_LIMITS, type Pacer } from './pacing.js';
import { fetchAllPages } from './paging.js';
import {
  ATTEMPT_TIMEOUT,
  IDEMPOTENT_METHODS,
  isConnectError,
  judgeAttempt,
  retryDelay,
  UNREACHABLE,
  type AttemptOutcome,
} from './retry.js';
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
import { plural } from '../words.js';

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
  for (const [k, v] of Object.entries(raw))
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(url.hostname) || url.hostname.endsWith('.localhost');
}

type Exchange =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: unknown; json: boolean }
  | { kind: 'network'; code: string; message: string; status?: number };

/** Our outcome code for a 2xx read answer that was not usable (answer.ts): retried like a 502. */
const MALFORMED = 'MALFORMED_ANSWER';
/** How often to say that an answer is still awaited. */
const WAITING_NOTICE_MS = 5_000;

/**
 * An https:// URL answered by a plain-HTTP server: OpenSSL reports a record it cannot read (`wrong version
 * number`, `packet length too long`); its internals say nothing to the user, the scheme does.
 */
function isTlsMismatch(code: string, message: string): boolean {
  return /^ERR_SSL_|^EPROTO$/.test(code) || /wrong version number|packet length too long/i.test(message);
}

function networkCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown }; errors?: Array<{ code?: unknown }> };
  const code = e?.code ?? e?.cause?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

/** The client's settings with their defaults, and what its requests share: the pool, gate, pacer, breaker, counters. */
interface Transport {
  options: ClientOptions;
  base: URL;
  basePath: string;
  timeoutMs: number;
  /**
   * The whole of one request, retries and their waits included (`--timeout`); each attempt also ends
   * at timeoutMs, so a silent server costs one attempt's worth, not six.
   */
  deadlineMs: number;
  maxAnswerBytes: number;
  noticeMs: number;
  retries: number;
  random: () => number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  minSilenceMs: number;
  gate: Semaphore;
  pool: Pool;
  pacer: Pacer | undefined;
  breaker: ReturnType<typeof createBreaker>;
  counts: ClientCounters;
  writeIds: string[];
  /** When the last "still waiting" notice was given, for the whole client. */
  lastNotice: number;
}

/** Resolves the options' defaults and opens the one keep-alive pool for the one origin this client talks to. */
function openTransport(options: ClientOptions): Transport {
  const base = new URL(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const concurrency = options.concurrency ?? 8;
  const pool = new Pool(base.origin, {
    connections: concurrency,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    connect: { timeout: Math.min(timeoutMs, 10_000) },
  });
  const pacing = options.pacing ?? (isLoopback(base) ? 'none' : 'public');
  return {
    options,
    base,
    basePath: base.pathname.replace(/\/+$/, ''),
    timeoutMs,
    deadlineMs: options.deadlineMs ?? 120_000,
    maxAnswerBytes: options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
    noticeMs: options.waitingNoticeMs ?? WAITING_NOTICE_MS,
    retries: options.retries ?? 5,
    random: options.random ?? Math.random,
    now,
    sleep,
    minSilenceMs: options.minSilenceMs ?? 8_000,
    gate: new Semaphore(concurrency),
    pool,
    pacer:
      pacing === 'none' ? undefined : createPacer({ limits: pacing === 'public' ? PUBLIC_LIMITS : pacing, now, sleep }),
    breaker: createBreaker({
      maxConsecutiveFailures: options.maxConsecutiveFailures,
      minSilenceMs: options.minSilenceMs,
      maxSilenceMs: options.maxSilenceMs,
      now,
    }),
    counts: { requests: 0, retries: 0, byMethod: {}, rateLimited: 0, alreadyExisted: 0 },
    writeIds: [],
    lastNotice: 0,
  };
}

export function createClient(options: ClientOptions): ApiClient {
  registerSecret(options.apiKey);
  const t = openTransport(options);
  const enc = encodeURIComponent;
  const scope = `${enc(options.project)}/${enc(options.environment)}`;
  const paths: EnvPaths = {
    schema: `/v2/schema/${scope}`,
    facts: `/v2/facts/${scope}`,
    elements: `/v2/elements/${scope}`,
  };
  const request = <T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> =>
    sendRequest<T>(t, method, path, opts);
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
        fetchPage: (page) =>
          data(
            request('GET', path, {
              headers: o.headers,
              expect: o.item ? expectListItems(o.item, page) : expectListPage,
              query: { ...o.query, ...(page === 1 ? o.firstPageQuery : {}), page, per_page: perPage },
            }),
          ),
      });
    },
    counters: () => ({ ...t.counts, byMethod: { ...t.counts.byMethod } }),
    writtenRequestIds: () => [...t.writeIds],
    close: () => t.pool.close(),
  };
}

/** What every attempt of one request sends; built once, outside the retry loop. */
interface Prepared {
  method: HttpMethod;
  path: string;
  target: string;
  headers: Record<string, string>;
  payload?: string;
}

/** The request's target, headers (the key last: a caller's header cannot replace it) and serialised body. */
function prepare(t: Transport, method: HttpMethod, path: string, opts: RequestOptions): Prepared {
  if (!path.startsWith('/')) throw new InternalError(`API paths start with '/': ${displayPath(path)}`);
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  headers.authorization = `Bearer ${t.options.apiKey}`;
  // Serialised here so a body that cannot be serialised is a bug report, not a "network error".
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return { method, path, target: t.basePath + path + queryString(opts.query), headers, payload };
}

/** One attempt on the wire, in a slot of the gate and paced: its answer or its failure, counted and reported. */
async function exchange(
  t: Transport,
  { method, path, target, headers, payload }: Prepared,
  attempt: number,
  clock: { deadlineAt?: number },
): Promise<Exchange> {
  const { options, now, counts } = t;
  return t.gate.run(async () => {
    await t.pacer?.acquire(method, displayPath(path));
    const started = now();
    // The request's deadline runs from its first attempt on the wire, not from its wait for a slot.
    clock.deadlineAt ??= started + t.deadlineMs;
    const attemptMs = Math.max(1, Math.min(t.timeoutMs, clock.deadlineAt - started));
    counts.requests++;
    counts.byMethod[method] = (counts.byMethod[method] ?? 0) + 1;
    let result: Exchange;
    // undici's own headers/body timers tick at ~1 s resolution; a plain timer gives the attempt an exact
    // deadline covering connect, headers and body.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), attemptMs);
    // A slow or silent service: say what is awaited, at most every few seconds for the whole client.
    const notices = options.onWaiting
      ? setInterval(() => {
          if (now() - t.lastNotice < t.noticeMs - 50) return;
          t.lastNotice = now();
          options.onWaiting!({
            method,
            path: displayPath(path),
            waitedMs: now() - started,
            attempt,
            deadlineMs: t.deadlineMs,
          });
        }, t.noticeMs)
      : undefined;
    try {
      const res = await poolRequest.call(t.pool, {
        signal: deadline.signal,
        origin: t.base.origin,
        method,
        path: target,
        headers,
        body: payload,
        headersTimeout: attemptMs,
        bodyTimeout: attemptMs,
      });
      const text = await readBodyText(res.body, t.maxAnswerBytes);
      result = { kind: 'response', status: res.statusCode, headers: flatHeaders(res.headers), ...parseBody(text) };
    } catch (err) {
      if (err instanceof AnswerTooLarge) result = { kind: 'network', code: 'ANSWER_TOO_LARGE', message: err.message };
      else if (deadline.signal.aborted)
        result = { kind: 'network', code: ATTEMPT_TIMEOUT, message: `no complete answer within ${attemptMs} ms` };
      else
        result = {
          kind: 'network',
          code: networkCode(err),
          message: err instanceof Error ? err.message : String(err),
        };
    } finally {
      clearTimeout(timer);
      if (notices) clearInterval(notices);
    }
    if (result.kind === 'response') t.breaker.answered();
    else if (result.code !== 'ANSWER_TOO_LARGE') t.breaker.failed(`${result.code}: ${result.message}`);
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

/**
 * A read answered 2xx with a body it cannot use, as a fault like a 502 (retried, then reported). A POST
 * that reads (POST /allowed/bulk) says so by giving `expect`.
 */
function malformedAsFault(got: Exchange, method: HttpMethod, opts: RequestOptions): Exchange {
  const reads = method === 'GET' || opts.expect !== undefined;
  const malformed =
    got.kind === 'response' && got.status >= 200 && got.status < 300 && got.status !== 204 && reads
      ? malformedRead(got, opts.expect)
      : undefined;
  return malformed && got.kind === 'response'
    ? { kind: 'network', code: MALFORMED, message: malformed, status: got.status }
    : got;
}

/** The request's result when the answer ends it well: a 2xx, or a 409 to a create that may have applied. */
function finishedAnswer<T>(
  t: Transport,
  got: Extract<Exchange, { kind: 'response' }>,
  method: HttpMethod,
  opts: RequestOptions,
  attempt: number,
  mayHaveApplied: boolean,
): ApiResponse<T> | undefined {
  const meta = { status: got.status, headers: got.headers, requestId: got.headers['x-request-id'], attempts: attempt };
  if (got.status >= 200 && got.status < 300) {
    // The request ids of the writes carried out: the history lists them, and the snapshot taken after
    // an apply knows they are in it (src/read/README.md).
    if (method !== 'GET' && method !== 'HEAD' && meta.requestId && opts.expect === undefined)
      t.writeIds.push(meta.requestId);
    return { ...meta, alreadyExisted: false, data: got.body as T };
  }
  if (got.status === 429) t.counts.rateLimited++;
  const code = (got.body as { error_code?: unknown } | undefined)?.error_code;
  const duplicate = got.status === 409 && (code === undefined || code === 'DUPLICATE_ENTITY');
  if (duplicate && opts.idempotentCreate && mayHaveApplied) {
    t.counts.alreadyExisted++;
    return { ...meta, alreadyExisted: true, data: undefined };
  }
  return undefined;
}

/** Sends one request, retrying as judged (retry.ts) within its deadline; throws the error of its last attempt. */
async function sendRequest<T>(
  t: Transport,
  method: HttpMethod,
  path: string,
  opts: RequestOptions,
): Promise<ApiResponse<T>> {
  const { now, random } = t;
  const prepared = prepare(t, method, path, opts);
  const idempotent = IDEMPOTENT_METHODS.has(method) || opts.idempotentCreate === true || opts.idempotent === true;
  let mayHaveApplied = false;
  let refusedSince: number | undefined;
  const clock: { deadlineAt?: number } = {};
  for (let attempt = 1; ; attempt++) {
    const down = t.breaker.tripped();
    if (down) throw buildNetworkError({ method, path, code: UNREACHABLE, message: down });
    const got = malformedAsFault(await exchange(t, prepared, attempt, clock), method, opts);
    if (got.kind === 'response') {
      const done = finishedAnswer<T>(t, got, method, opts, attempt, mayHaveApplied);
      if (done) return done;
    }
    const outcome: AttemptOutcome =
      got.kind === 'response' ? { kind: 'response', status: got.status, retryAfter: got.headers['retry-after'] } : got;
    const judged = judgeAttempt(outcome, idempotent);
    mayHaveApplied ||= judged.mayHaveApplied;
    // A connection refused never reached the service: past its retries, the request keeps trying (every
    // second at most) until it has been refused for minSilenceMs (or the breaker trips), so a service
    // restarting for a second or two is waited out, by an apply's writes as by a plan's reads.
    const refused = got.kind === 'network' && isConnectError(got.code) && judged.retryable;
    if (refused) refusedSince ??= now();
    else refusedSince = undefined;
    const stillWaiting = refused && now() - refusedSince! < t.minSilenceMs;
    let delay =
      judged.retryable && attempt <= t.retries
        ? retryDelay({
            failedAttempt: attempt,
            retryAfter: outcome.kind === 'response' ? outcome.retryAfter : undefined,
            now: now(),
            random,
          })
        : stillWaiting
          ? Math.min(1_000, retryDelay({ failedAttempt: attempt, now: now(), random }) ?? 1_000)
          : undefined;
    // No retry that would start past the request's deadline.
    if (delay !== undefined && clock.deadlineAt !== undefined && now() + delay >= clock.deadlineAt) delay = undefined;
    if (delay === undefined) throw lastAttemptError(t, method, path, got, attempt, clock);
    t.counts.retries++;
    await t.sleep(delay);
  }
}

/** The error a request ends with when its last attempt failed: the service's, no API here, TLS, or the network's. */
function lastAttemptError(
  t: Transport,
  method: HttpMethod,
  path: string,
  got: Exchange,
  attempt: number,
  clock: { deadlineAt?: number },
): Error {
  if (got.kind === 'response') {
    const error = buildApiError({ method, path, status: got.status, headers: got.headers, body: got.body });
    // The service says NOT_FOUND of an object it does not have; any other 404 (a router's
    // ROUTE_NOT_FOUND, a proxy's page) means no such endpoint: the URL is wrong, not the object.
    if (got.status === 404 && error.info.errorCode !== 'NOT_FOUND') return noApiHere(t, error);
    return error;
  }
  const past = clock.deadlineAt !== undefined && t.now() >= clock.deadlineAt - 1;
  const message =
    past && got.code === ATTEMPT_TIMEOUT
      ? `no complete answer within the ${Math.round(t.deadlineMs / 1000)} s deadline (--timeout), ${plural(attempt, 'attempt')}`
      : got.message;
  if (t.base.protocol === 'https:' && isTlsMismatch(got.code, got.message)) {
    return new ConfigError(
      `${t.base.origin} did not answer TLS (${got.code}): is it http://? Check the scheme of --api-url (ROSTER_API_URL)`,
    );
  }
  return buildNetworkError({
    method,
    path,
    code: got.code,
    status: got.status,
    message: attempt > 1 ? `${message} (after ${attempt} attempts)` : message,
  });
}

/** A 404 that is not the service's: `no /v2 API at <base> (GET <path>: 404 CODE); check ROSTER_API_URL`. */
function noApiHere(t: Transport, error: ApiError): NoApiError {
  const { method, path, status, errorCode } = error.info;
  return new NoApiError(
    `no /v2 API at ${t.base.origin}${t.basePath} (${method} ${t.basePath}${path}: ${status}${errorCode ? ` ${errorCode}` : ''}); check ROSTER_API_URL (--api-url)`,
    error,
  );
}
