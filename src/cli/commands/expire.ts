import { ConfigError } from '../../errors.js';
import { expiredNote } from '../../plan/render-held.js';
import type { TargetOptions } from '../../usecases/target.js';
import { runExpire, type ExpiredChange } from '../../usecases/expire.js';
import { printWarnings } from '../report.js';
import { count, plural } from '../../words.js';

export interface ExpireCommandOptions extends Omit<TargetOptions, 'concurrency'> {
  dryRun?: boolean;
  format: string;
  concurrency?: string;
}

/**
 * `roster requests expire [PATH...]` (src/usecases/expire.ts): revokes the grants of approved access
 * requests whose `grant_for` is over. Made for a schedule (the workflow's `expire` job, with the CI key):
 * no confirmation, since it can only take away what an approval gave for a limited time; a run with
 * nothing expired changes nothing. Exit 1 when a revocation failed.
 */
export async function expireCommand(paths: string[], opts: ExpireCommandOptions): Promise<void> {
  if (opts.format !== 'text' && opts.format !== 'json')
    throw new ConfigError(`--format must be text or json, got '${opts.format}'`);
  const concurrency = opts.concurrency === undefined ? 8 : Number(opts.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new ConfigError(`--concurrency must be a whole number of at least 1, got '${opts.concurrency}'`);
  const { expired, done, failed } = await runExpire(paths, { ...opts, concurrency }, printWarnings);
  const dryRun = opts.dryRun === true;
  process.stdout.write(
    opts.format === 'json'
      ? renderExpiryJson(expired, done, failed, dryRun)
      : renderExpiryText(expired, done, failed, dryRun),
  );
  if (failed.length > 0) process.exitCode = 1;
}

export function renderExpiryText(
  expired: ExpiredChange[],
  done: string[],
  failed: { id: string; error: string }[],
  dryRun: boolean,
): string {
  if (expired.length === 0)
    return 'No grant of an approved access request has outlived its grant_for: nothing to revoke.\n';
  const lines = [
    dryRun
      ? `Would revoke ${expiredGrants(expired.length)} (nothing was changed; run without --dry-run to revoke):`
      : `Revoked ${count(done.length)} of ${expiredGrants(expired.length)}:`,
  ];
  for (const c of expired) lines.push(`  - ${c.id}`, `      ${expiredNote(c.expired)}`);
  for (const f of failed) lines.push(`  failed ${f.id}: ${f.error}`);
  if (failed.length > 0)
    lines.push('Run roster requests expire again: it reads the live state anew and revokes what is left.');
  return lines.join('\n') + '\n';
}

function renderExpiryJson(
  expired: ExpiredChange[],
  done: string[],
  failed: { id: string; error: string }[],
  dryRun: boolean,
): string {
  const grants = expired.map((c) => ({ id: c.id, ...c.before, expired: c.expired, revoked: done.includes(c.id) }));
  return JSON.stringify({ dryRun, grants, failed }, null, 2) + '\n';
}

const expiredGrants = (n: number) => plural(n, 'expired grant');
