import type { Plan } from './types.js';
import { deletionCount } from './cascade.js';
import { agree, count, plural } from '../words.js';
import { REQUEST_KINDS } from '../api/pacing.js';

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  const { cascaded } = deletionCount(plan.changes);
  return `${count(s.create)} to create, ${count(s.update)} to update, ${count(s.delete)} to delete${cascaded > 0 ? ` (and ${count(cascaded)} that ${agree(cascaded, 'goes', 'go')} with them)` : ''}.`;
}

/**
 * `Applying it: 11 requests: 5 schema writes, 3 writes, 3 bulk writes; then 4 reads to verify; about 4
 * min, paced to the public service's rate limits.` Each request is named once, by its kind (`bulk
 * delete`, `write`: src/api/pacing.ts `requestKind`), so the parts add up to the requests; the
 * rate-limit classes overlap (a bulk delete is a write, a delete and a bulk call) and said side by side
 * read as more requests than there are (issues #31, #41). The reads to verify come after them
 * (src/apply/verify-scope.ts). Against a service the apply does not pace (a local `roster serve`), the
 * time is what the public limits would need.
 */
export function costLine(plan: Plan): string | undefined {
  const c = plan.cost;
  if (!c || plan.changes.length === 0) return undefined;
  // A plan saved before requests were counted by kind says only how many.
  const kinds = c.kinds
    ? `: ${REQUEST_KINDS.filter((k) => (c.kinds![k] ?? 0) > 0)
        .map((k) => plural(c.kinds![k]!, k))
        .join(', ')}`
    : '';
  const whose = c.limits === 'public' ? "the public service's rate limits" : 'the given rate limits';
  const time =
    c.paced === false
      ? `not paced against this service (${duration(c.seconds)} at ${whose})`
      : `${duration(c.seconds)}, paced to ${whose}`;
  const verify = c.verify === undefined ? '' : `; then ${plural(c.verify, 'read')} to verify`;
  return `Applying it: ${plural(c.requests, 'request')}${kinds}${verify}; ${time}.`;
}

/** `1 object`, `2 objects`, `9,117 changes` (src/words.ts, kept here for the renderers that import it). */
export { plural };

/** `under a second`, `about 40 s`, `about 4 min`, `about 2 h 10 min`. */
export function duration(seconds: number): string {
  if (seconds < 1) return 'under a second';
  if (seconds < 90) return `about ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `about ${minutes} min`;
  return `about ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
