/**
 * Errors classified by who must act. Everything below the CLI's top-level handler just throws one of
 * these; `src/cli/report.ts` is the one place that turns them into messages and exit codes.
 */

/** One problem in the user's input, with its place. */
export interface ConfigProblem {
  file?: string;
  line?: number;
  column?: number;
  /** Path inside the document, e.g. `groups.team:platform.member_of[0]`. */
  path?: string;
  message: string;
  hint?: string;
  severity?: 'error' | 'warning';
  /** For a warning that can be acknowledged (docs/config.md, `acknowledge:`): its rule and object. */
  rule?: string;
  object?: string;
}

/** The user fixes their input (configuration files, flags). */
export class ConfigError extends Error {
  readonly kind = 'config' as const;
  constructor(
    message: string,
    readonly problems: ConfigProblem[] = [],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** The remote side refused or failed. */
export class ApiError extends Error {
  readonly kind = 'api' as const;
  constructor(
    readonly info: {
      method: string;
      path: string;
      status: number;
      errorCode?: string;
      requestId?: string;
      detail?: string;
    },
  ) {
    super(
      // Status 0: no HTTP answer at all (refused, reset, timed out); "answered 0" would say the opposite.
      (info.status === 0
        ? `${info.method} ${info.path} got no answer (${info.errorCode ?? 'NETWORK_ERROR'})`
        : `${info.method} ${info.path} answered ${info.status}` + (info.errorCode ? ` ${info.errorCode}` : '')) +
        (info.detail ? `: ${info.detail}` : '') +
        (info.requestId ? ` (request ${info.requestId})` : ''),
    );
    this.name = 'ApiError';
  }
}

/**
 * A 404 that is not the service's own `NOT_FOUND` (a router's `ROUTE_NOT_FOUND`, a proxy's page): no
 * /v2 API at that URL, which the user fixes. Keeps the answer, for a caller that knows better what the
 * missing endpoint means (a decision point that serves no decisions: src/api/read-decisions.ts).
 */
export class NoApiError extends ConfigError {
  constructor(
    message: string,
    readonly answer: ApiError,
  ) {
    super(message);
  }
}

/** The plan is refused by a safety rule; the message names the flag that overrides it. */
export class UnsafePlanError extends Error {
  readonly kind = 'unsafe' as const;
  constructor(
    message: string,
    readonly flag: string,
  ) {
    super(message);
    this.name = 'UnsafePlanError';
  }
}

/** A bug in Roster. */
export class InternalError extends Error {
  readonly kind = 'internal' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InternalError';
  }
}

export type RosterError = ConfigError | ApiError | UnsafePlanError | InternalError;
