import { createHash } from 'node:crypto';
import { LIVE_PARTS, type LiveState } from '../types/live.js';
import type { Plan } from './types.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const ABAC_PARTS = new Set<string>(['userAttributes', 'tenantAttributes', 'conditionSets', 'setRules']);

/**
 * A fingerprint of the live state: equal exactly when the two reads saw the same objects. The hash of
 * the JSON text of its parts, each part's entries sorted by key; the text is hashed as it is written,
 * entry by entry, never held whole (tens of megabytes at 100,000 users).
 */
export function fingerprintLive(live: LiveState): string {
  // The parts of attribute-based access count only when the environment has some, so that the
  // fingerprint of an environment without any is what it was before they were read.
  const names = [...LIVE_PARTS].filter((name) => !ABAC_PARTS.has(name) || live[name].size > 0).sort();
  const h = new JsonHash();
  h.write('[');
  names.forEach((name, i) => {
    const part = live[name] as Map<string, unknown>;
    h.write(`${i > 0 ? ',' : ''}[${JSON.stringify(name)},`);
    h.array([...part.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((key) => [key, part.get(key)]));
    h.write(']');
  });
  h.write(']');
  return h.digest();
}

/**
 * The checksum of a plan: every field but itself (and the access summary and the cost, which only describe it). It
 * covers more than the changes: a saved plan edited to name another environment, or a smaller count of
 * managed objects (which sets the default deletion limit), must be refused like one with edited changes.
 */
export function checksumPlan(plan: Omit<Plan, 'checksum' | 'access' | 'cost' | 'undeclared'>): string {
  const {
    formatVersion,
    project,
    environment,
    prune,
    authoritative,
    managed,
    changes,
    summary,
    liveFingerprint,
    managedLiveCount,
    held,
  } = plan;
  // `held` (grants kept for approved access requests) is what the reviewer was told stays; absent, it
  // adds nothing to the text, so plans without it keep their checksum. So does `authoritative`: a plan
  // that deletes by the configuration's declaration must say so where it was reviewed.
  // The text of JSON.stringify of these fields, hashed as it is written: the changes one by one, never
  // the whole plan's text at once (over a hundred megabytes for an apply from empty at 100,000 users).
  const fields = {
    formatVersion,
    project,
    environment,
    prune,
    authoritative,
    managed,
    changes,
    summary,
    liveFingerprint,
    managedLiveCount,
    held,
  };
  const h = new JsonHash();
  h.write('{');
  let first = true;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue; // as JSON.stringify leaves it out
    h.write(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (key === 'changes') h.array(changes);
    else h.write(JSON.stringify(value));
  }
  h.write('}');
  return h.digest();
}

/**
 * sha256 of a JSON text written in pieces: `sha256(JSON.stringify(x))`, where the caller writes `x`'s
 * text itself and large arrays item by item (`array`), so that the whole text is never one string.
 */
class JsonHash {
  private readonly hash = createHash('sha256');
  private pending = '';

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= 1 << 16) {
      this.hash.update(this.pending);
      this.pending = '';
    }
  }

  /** JSON.stringify of an array: an item that has no JSON text (undefined) is written `null`. */
  array(items: readonly unknown[]): void {
    this.write('[');
    items.forEach((item, i) => this.write((i > 0 ? ',' : '') + (JSON.stringify(item) ?? 'null')));
    this.write(']');
  }

  digest(): string {
    this.hash.update(this.pending);
    return this.hash.digest('hex');
  }
}
