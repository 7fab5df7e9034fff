import { createHash } from 'node:crypto';
import type { LiveState } from './live.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A fingerprint of the live state: equal exactly when the two reads saw the same objects. */
export function fingerprintLive(live: LiveState): string {
  const sections = Object.entries(live)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, map]) => [name, [...(map as Map<string, unknown>).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return sha256(JSON.stringify(sections));
}
