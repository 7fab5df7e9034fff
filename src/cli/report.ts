import { ApiError, ConfigError, InternalError, UnsafePlanError, type ConfigProblem } from '../errors.js';
import { redactSecrets } from '../secrets.js';

/**
 * The one place where errors become messages and exit codes. Commands and everything below them throw;
 * this prints a message addressed to whoever must act, and never prints a secret.
 */
const MAX_REPORTED_PROBLEMS = 200;

export function reportError(
  err: unknown,
  write: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): number {
  if (err instanceof ConfigError) {
    write(redactSecrets(`error: ${err.message}`));
    // Bounded like `roster validate`'s text (src/config/render.ts): the count is in the message above.
    const shown = err.problems.slice(0, MAX_REPORTED_PROBLEMS);
    for (const p of shown) write(redactSecrets(`  ${problemLine(p)}`));
    if (err.problems.length > shown.length)
      write(
        `  and ${(err.problems.length - shown.length).toLocaleString('en-US')} more (roster validate --format json lists them all)`,
      );
    return 1;
  }
  if (err instanceof ApiError) {
    // Status 0: no HTTP answer at all (refused, reset, timed out) after the client's retries.
    // A 2xx here is an answer the client could not use (MALFORMED_ANSWER, ANSWER_TOO_LARGE): not a refusal.
    const lead =
      err.info.status === 0
        ? 'could not reach the service'
        : err.info.status < 300
          ? 'the service gave an answer Roster cannot use'
          : 'the service refused a request';
    write(redactSecrets(`error: ${lead}: ${err.message}`));
    return 1;
  }
  if (err instanceof UnsafePlanError) {
    write(redactSecrets(`error: ${err.message}`));
    return 1;
  }
  if (err instanceof InternalError) {
    write(redactSecrets(`internal error (a bug in roster, please report it): ${err.message}`));
    return 70;
  }
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  write(redactSecrets(`internal error (a bug in roster, please report it): ${message}`));
  return 70;
}

/** `file:line:column: path: message (hint)`: a configuration problem on one line. */
export function problemLine(p: ConfigProblem): string {
  const where = [p.file, p.line, p.column].filter((x) => x !== undefined).join(':');
  return `${where ? where + ': ' : ''}${p.path ? p.path + ': ' : ''}${p.message}${p.hint ? ` (${p.hint})` : ''}`;
}

/** The configuration's warnings, on stderr, secrets redacted. */
export function printWarnings(warnings: ConfigProblem[]): void {
  for (const w of warnings) process.stderr.write(redactSecrets(`warning: ${problemLine(w)}`) + '\n');
}
