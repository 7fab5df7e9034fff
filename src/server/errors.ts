/**
 * The one catalogue of error codes the server emits, with their HTTP status. Routes and domain rules
 * throw `httpError(code, message)`; the app's error handler turns it into the public API's shape
 * `{id, title, error_code, message}` (or 422 `{detail: [...]}` for invalid input).
 * test/server/errors.test.ts checks that every code here is documented in docs/server.md.
 */
export const ERROR_CODES = {
  INVALID_INPUT: { status: 422, title: 'Invalid input' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN_ACCESS: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  DUPLICATE_ENTITY: { status: 409, title: 'Duplicate entity' },
  CONFLICT: { status: 409, title: 'Conflict' },
  GROUP_CYCLE: { status: 422, title: 'Group cycle' },
  MISMATCH_GROUP_TYPE: { status: 422, title: 'Group types differ' },
  MISMATCH_RESOURCE_INSTANCES_TENANTS: { status: 422, title: 'Tenants differ' },
  MISMATCH_RELATION_TYPE: { status: 422, title: 'Relation does not fit' },
  USER_NOT_IN_TENANT: { status: 422, title: 'User not in tenant' },
  PAGINATION_SIZE_OVERREACHED: { status: 422, title: 'Page size too large' },
  ENVIRONMENT_REQUIRED: { status: 400, title: 'Environment required' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  BAD_REQUEST: { status: 400, title: 'Bad request' },
  MISSING_RESOURCE_ATTRIBUTE: { status: 400, title: 'Missing resource attribute' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No such endpoint' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  UNEXPECTED_ERROR: { status: 500, title: 'Unexpected error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.status = ERROR_CODES[code].status;
  }
}

export function httpError(code: ErrorCode, message: string, extra?: Record<string, unknown>): HttpError {
  return new HttpError(code, message, extra);
}

export const notFound = (what: string, key: string) => httpError('NOT_FOUND', `${what} '${key}' not found`);
export const duplicate = (what: string, key: string) =>
  httpError('DUPLICATE_ENTITY', `${what} '${key}' already exists`);

/** A 422 in the validation shape, for rules checked by hand rather than by the JSON schema. */
export class ValidationError extends Error {
  constructor(readonly detail: { loc: (string | number)[]; msg: string; type: string }[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }
}

export function invalid(loc: (string | number)[], msg: string, type = 'value_error'): ValidationError {
  return new ValidationError([{ loc, msg, type }]);
}
