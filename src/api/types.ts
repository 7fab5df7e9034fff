import type { Shape } from './answer.js';
import type { RateLimits } from './pacing.js';

/** The client's public shapes; the behaviour is in client.ts. */

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
  /**
   * For a GET, or a POST that reads (`/allowed/bulk`): what is wrong with a 2xx body's shape, or
   * undefined when it is usable. A wrong shape (or no JSON at all) is retried like a failed attempt,
   * then reported naming the request (src/api/answer.ts).
   */
  expect?: (body: unknown) => string | undefined;
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

export interface WaitingInfo {
  method: string;
  path: string;
  waitedMs: number;
  attempt: number;
  deadlineMs: number;
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
  /** One request's total time, retries included (`--timeout`); default 120 s. */
  deadlineMs?: number;
  /** Largest answer body read; default 32 MB (src/api/answer.ts). */
  maxAnswerBytes?: number;
  /** Attempts in a row without any answer after which the service counts as gone; default 10 (breaker.ts). */
  maxConsecutiveFailures?: number;
  /** ...and not before this long without any answer (a restart of a second or two is waited out); default 8 s. */
  minSilenceMs?: number;
  /** Time without any answer (3 failed attempts at least) after which the service counts as gone; default 45 s. */
  maxSilenceMs?: number;
  /** Called every few seconds while an answer is awaited, for a progress line. */
  onWaiting?: (info: WaitingInfo) => void;
  /** How often onWaiting is called while an answer is awaited; default 5 s. */
  waitingNoticeMs?: number;
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
  /** Sent with the first page only: `include_total_count`, whose answer gives the page count (later pages need no count). */
  firstPageQuery?: Query;
  headers?: Record<string, string>;
  /** Pages fetched at once once the count is known; default 4. */
  parallel?: number;
  /**
   * The fields each item must hold (the ones the caller reads, src/api/shapes.ts): every page is checked
   * where its shape is, so a page with an item the caller cannot use is retried, then MALFORMED_ANSWER.
   */
  item?: Shape;
}

export type ReadOptions = Pick<RequestOptions, 'query' | 'headers' | 'expect'>;
export type WriteOptions = Pick<RequestOptions, 'query' | 'headers' | 'idempotent' | 'expect'>;

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
  /** The `x-request-id` of every write answered 2xx so far (POSTs that read excluded). */
  writtenRequestIds?(): readonly string[];
  close(): Promise<void>;
}
