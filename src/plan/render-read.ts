import type { LiveReadSummary } from '../types/read.js';
import { plural } from '../words.js';

/**
 * The plan header's line on how the live state was read (src/read/): in full, and why when an incremental
 * read was possible to ask for; or incrementally, from when, and what it read again.
 */
export function readSummaryLine(r: LiveReadSummary): string {
  const requests = plural(r.requests, 'request');
  const kept = r.snapshot && !r.snapshot.saved ? ` No snapshot kept: ${r.snapshot.why}.` : '';
  if (r.mode === 'full')
    return `Read the live state in full (${requests})${r.fallback ? `: ${r.fallback}` : ''}.${kept}`;
  const since = `from the snapshot of ${r.since ?? '?'} and ${plural(r.calls ?? 0, 'write')} the change history lists since`;
  const again =
    r.reread && r.reread.length > 0
      ? `read again ${r.reread.join(', ')} (${plural(r.objects ?? 0, 'object')})`
      : 'nothing read again';
  return `Read the live state incrementally (${requests}): ${since}; ${again}.${kept}`;
}
