import { ConfigError } from '../errors.js';

/** What `roster serve` was starting: where it listens, and its store. */
export interface StartContext {
  host: string;
  port: number;
  /** The PostgreSQL URL with its password redacted; absent for SQLite under `data`. */
  database?: string;
  data?: string;
}

type NodeError = NodeJS.ErrnoException & { address?: string; hostname?: string; errors?: NodeError[] };

/**
 * The errors of starting a service that are the user's to fix (a port in use, a database that does not
 * exist, a refused password, an unusable data directory) as one-line ConfigErrors saying what and how to
 * fix it; undefined for anything else, which stays a bug. Shared by `roster serve` and the embedded default.
 */
export function startError(err: unknown, at: StartContext): ConfigError | undefined {
  const e = firstCause(err);
  if (!e) return undefined;
  const listen = `${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
  if (e.syscall === 'listen' || (e.syscall === 'getaddrinfo' && e.hostname === at.host)) {
    switch (e.code) {
      case 'EADDRINUSE':
        return new ConfigError(
          `cannot listen on ${listen}: the port is in use by another process; stop it, or choose another --port (0 picks a free one)`,
        );
      case 'EACCES':
        return new ConfigError(
          `cannot listen on ${listen}: ports below 1024 need privileges; choose a --port of 1024 or above`,
        );
      case 'EADDRNOTAVAIL':
        return new ConfigError(
          `cannot listen on ${listen}: ${at.host} is not an address of this machine; fix --host (127.0.0.1, or 0.0.0.0 for every interface)`,
        );
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return new ConfigError(`cannot listen on ${listen}: the host name ${at.host} does not resolve; fix --host`);
    }
  }
  if (at.database) return databaseError(e, at.database);
  if (at.data && e.code && UNUSABLE_DATA_DIR.has(e.code)) {
    return new ConfigError(`cannot use the data directory ${at.data} (--data or ROSTER_DATA_DIR): ${e.message}`);
  }
  return undefined;
}

/** PostgreSQL's and the network's refusals of a connection, by SQLSTATE or errno code. */
function databaseError(e: NodeError, database: string): ConfigError | undefined {
  const where = `PostgreSQL at ${database} (--database or ROSTER_DATABASE_URL)`;
  switch (e.code) {
    case '3D000': // invalid_catalog_name
      return new ConfigError(
        `${where}: ${e.message}; create it (createdb NAME) or name an existing database in the URL`,
      );
    case '28P01': // invalid_password
    case '28000': // invalid_authorization_specification (no pg_hba.conf entry, unknown role)
      return new ConfigError(`${where} refused the login: ${e.message}; fix the user and password in the URL`);
    case '3F000': // invalid_schema_name
    case '42501': // insufficient_privilege (creating the schema or its tables)
      return new ConfigError(
        `${where}: ${e.message}; grant the user CREATE on the database, or choose a ?schema= it may use`,
      );
    case 'ECONNREFUSED':
      return new ConfigError(
        `cannot connect to ${where}: connection refused; is PostgreSQL running and listening there?`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(`cannot connect to ${where}: the host name does not resolve; fix the host in the URL`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new ConfigError(`cannot connect to ${where}: ${e.code}; check the host, the port and the network`);
  }
  if (/connection timeout|timeout expired/i.test(e.message)) {
    return new ConfigError(
      `cannot connect to ${where}: no answer within 10 s; check the host, the port and the network`,
    );
  }
  return undefined;
}

/** The error itself, or the first of an AggregateError (a host with several addresses), or its cause. */
function firstCause(err: unknown): NodeError | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as NodeError;
  if (!e.code && Array.isArray(e.errors) && e.errors[0] instanceof Error) return e.errors[0];
  if (!e.code && e.cause instanceof Error && (e.cause as NodeError).code) return e.cause as NodeError;
  return e;
}

/** Errors of the file system and SQLite that say the data directory cannot hold the service's store. */
export const UNUSABLE_DATA_DIR = new Set([
  'ENOTDIR',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOSPC',
  'EEXIST',
  'EISDIR',
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT',
]);
