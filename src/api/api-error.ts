import { ApiError } from '../errors.js';
import { redactSecrets } from '../secrets.js';
import { ATTEMPT_TIMEOUT } from './retry.js';

/**
 * Turning a failed exchange into an `ApiError`. Every string that came from the wire passes through
 * `redactSecrets`: a server may echo the Authorization header back in its message.
 */

const MAX_DETAIL = 300;

function clean(text: string | undefined): string | undefined {
  if (text === undefined || text === '') return undefined;
  const redacted = redactSecrets(text);
  return redacted.length > MAX_DETAIL ? `${redacted.slice(0, MAX_DETAIL)}…` : redacted;
}

/** The path as shown to users: never the query string (filters may carry anything). */
export function displayPath(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `{detail: [{loc, msg}]}` (422) → "body.key: field required". */
function validationDetail(detail: unknown): string | undefined {
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  const first = detail[0] as { loc?: unknown; msg?: unknown };
  const loc = Array.isArray(first.loc) ? first.loc.join('.') : undefined;
  const msg = str(first.msg);
  const more = detail.length > 1 ? ` (and ${detail.length - 1} more)` : '';
  return [loc, msg].filter(Boolean).join(': ') + more;
}

export function buildApiError(input: {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}): ApiError {
  const body = typeof input.body === 'object' && input.body !== null ? (input.body as Record<string, unknown>) : {};
  const validation = Array.isArray(body.detail) ? validationDetail(body.detail) : undefined;
  const errorCode =
    str(body.error_code) ?? (validation !== undefined ? 'VALIDATION_ERROR' : undefined) ?? str(body.code);
  // A redirect is not followed (the key would go to another host): say where it points.
  const location = input.status >= 300 && input.status < 400 ? input.headers.location : undefined;
  const detail =
    (location !== undefined
      ? `redirected to ${location}; point --api-url (ROSTER_API_URL) at the service itself`
      : undefined) ??
    validation ??
    str(body.message) ??
    str(body.detail) ??
    str(body.title) ??
    str(body.error) ??
    (typeof input.body === 'string' ? input.body : undefined);
  return new ApiError({
    method: input.method,
    path: redactSecrets(displayPath(input.path)),
    status: input.status,
    errorCode: clean(errorCode),
    requestId: clean(input.headers['x-request-id'] ?? str(body.id)),
    detail: clean(detail),
  });
}

/** Codes of our own making (client.ts, breaker.ts): the error code says it, the detail needs no prefix. */
const OWN_CODES = new Set(['UNREACHABLE', 'MALFORMED_ANSWER', 'ANSWER_TOO_LARGE']);

const TIMEOUT_CODES = new Set([
  ATTEMPT_TIMEOUT,
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * No answer at all (refused, reset, timed out). Status 0 marks "no HTTP status"; error_code is
 * `TIMEOUT` or `NETWORK_ERROR`, and the detail names the low-level code.
 */
export function buildNetworkError(input: {
  method: string;
  path: string;
  code: string;
  message: string;
  status?: number;
}): ApiError {
  const own = OWN_CODES.has(input.code);
  return new ApiError({
    method: input.method,
    path: redactSecrets(displayPath(input.path)),
    // A malformed answer had a status (200); the others had none.
    status: input.status ?? 0,
    errorCode: own ? input.code : TIMEOUT_CODES.has(input.code) ? 'TIMEOUT' : 'NETWORK_ERROR',
    detail: clean(own ? input.message : `${input.code}: ${input.message}`),
  });
}
