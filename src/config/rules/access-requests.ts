/** Rules of the access_requests section beyond its references (those are in references.ts). */
import { parseDuration } from '../../types/duration.js';
import type { Problem } from '../source.js';
import { report, type RuleContext } from './context.js';

/** `grant_for` is a duration: a whole number and a unit (`45s`, `30m`, `12h`, `7d`), positive, at most ten years. */
export function grantForDuration({ desired, index }: RuleContext): Problem[] {
  const out: Problem[] = [];
  for (const config of desired.accessRequests.values()) {
    if (config.grantFor === undefined) continue;
    const parsed = parseDuration(config.grantFor);
    if (!parsed.ok)
      out.push(
        report(
          index.accessRequests.get(config.key),
          ['grant_for'],
          parsed.message,
          parsed.hint ? { hint: parsed.hint } : {},
        ),
      );
  }
  return out;
}
