import { ConfigError } from '../errors.js';
import { parseDuration } from '../types/duration.js';

/** The options of `roster serve` (cli/commands/serve.ts), and their parsing. */
export interface ServeOptions {
  host: string;
  port: string;
  data: string;
  /** postgres://... (or ROSTER_DATABASE_URL): PostgreSQL instead of SQLite under --data. */
  database?: string;
  apiKey?: string;
  envKey: string[];
  /** `<project>/<env>`: created at start unless it exists. */
  createEnv: string[];
  quiet?: boolean;
  decisionLogMaxAge: string;
  decisionLogMaxCount: string;
  /** false with --no-decision-log. */
  decisionLog: boolean;
  historyMaxAge: string;
  historyMaxCount: string;
  historyOrgKeyOnly?: boolean;
  /** false with --no-history. */
  history: boolean;
}

/** The decision log's retention (src/server/decision-log.ts), or false for none. */
export function decisionLogOptions(
  opts: Pick<ServeOptions, 'decisionLog' | 'decisionLogMaxAge' | 'decisionLogMaxCount'>,
): { maxAgeMs: number; maxCount: number } | false {
  if (opts.decisionLog === false) return false;
  const age = parseDuration(String(opts.decisionLogMaxAge ?? '30d').trim());
  if (!age.ok)
    throw new ConfigError(`--decision-log-max-age must be a duration (30d, 12h), got '${opts.decisionLogMaxAge}'`);
  const count = Number(opts.decisionLogMaxCount ?? '1000000');
  if (!Number.isInteger(count) || count < 1)
    throw new ConfigError(
      `--decision-log-max-count must be a whole number of at least 1, got '${opts.decisionLogMaxCount}'`,
    );
  return { maxAgeMs: age.ms, maxCount: count };
}

/** The change history's retention (src/server/api-history.ts), or false for none. */
export function historyOptions(
  opts: Pick<ServeOptions, 'history' | 'historyMaxAge' | 'historyMaxCount' | 'historyOrgKeyOnly'>,
): { maxAgeMs: number; maxCount: number; orgKeyOnly: boolean } | false {
  if (opts.history === false) return false;
  const age = parseDuration(String(opts.historyMaxAge ?? '30d').trim());
  if (!age.ok) throw new ConfigError(`--history-max-age must be a duration (30d, 12h), got '${opts.historyMaxAge}'`);
  const count = Number(opts.historyMaxCount ?? '100000');
  if (!Number.isInteger(count) || count < 1)
    throw new ConfigError(`--history-max-count must be a whole number of at least 1, got '${opts.historyMaxCount}'`);
  return { maxAgeMs: age.ms, maxCount: count, orgKeyOnly: opts.historyOrgKeyOnly === true };
}

export function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

export function parseEnvKey(spec: string): { project: string; env: string; key: string } {
  const m = /^([A-Za-z0-9\-_]+)\/([A-Za-z0-9\-_]+)=(.+)$/.exec(spec);
  if (!m)
    throw new ConfigError(`--env-key must look like <project>/<env>=<key> (got a value of ${spec.length} characters)`);
  return { project: m[1], env: m[2], key: m[3] };
}

export function parseScope(spec: string): { project: string; env: string } {
  const m = /^([A-Za-z0-9\-_]{1,256})\/([A-Za-z0-9\-_]{1,256})$/.exec(spec);
  if (!m)
    throw new ConfigError(
      `--create-env must look like <project>/<env> (keys of letters, digits, - and _), got '${spec}'`,
    );
  return { project: m[1], env: m[2] };
}
