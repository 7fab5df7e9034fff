export { ApiError } from '../errors.js';
export {
  createClient,
  pathOf,
  type ApiClient,
  type ApiResponse,
  type AttemptInfo,
  type ClientCounters,
  type ClientOptions,
  type CreateResult,
  type EnvPaths,
  type HttpMethod,
  type ListOptions,
  type Query,
  type RequestOptions,
} from './client.js';
export { categorize, createPacer, PUBLIC_LIMITS, type Pacer, type PacingCategory, type RateLimit, type RateLimits } from './pacing.js';
export { isCreated, normalizeStatus, pickId, type IdField, type RequestStatus } from './tolerance.js';
