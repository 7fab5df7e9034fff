/** The /v2 HTTP client: import from here. See README.md for the retry and pacing decisions. */
export { ApiError } from '../errors.js';
export { createClient, pathOf } from './client.js';
export { withSharedLists } from './shared-reads.js';
export type {
  ApiClient,
  ApiResponse,
  AttemptInfo,
  ClientCounters,
  ClientOptions,
  CreateResult,
  EnvPaths,
  HttpMethod,
  ListOptions,
  Query,
  ReadOptions,
  RequestOptions,
  WaitingInfo,
  WriteOptions,
} from './types.js';
export {
  categorize,
  createPacer,
  PUBLIC_LIMITS,
  REQUEST_KINDS,
  requestKind,
  type Pacer,
  type PacingCategory,
  type RateLimit,
  type RateLimits,
  type RequestKind,
} from './pacing.js';
export { isCreated, normalizeStatus, pickId, type IdField, type RequestStatus } from './tolerance.js';
