import { createHash } from 'node:crypto';
import { LIVE_PARTS, type LiveState } from '../types/live.js';
import type { Plan } from './types.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const ABAC_PARTS = new Set<string>(['userAttributes', 'tenantAttributes', 'conditionSets', 'setRules']);

/** A fingerprint of the live state: equal exactly when the two reads saw the same objects. */
export function fingerprintLive(live: LiveState): string {
  // The parts of attribute-based access count only when the environment has some, so that the
  // fingerprint of an environment without any is what it was before they were read.
  const sections = [...LIVE_PARTS]
    .filter((name) => !ABAC_PARTS.has(name) || live[name].size > 0)
    .sort()
    .map((name) => [name, [...(live[name] as Map<string, unknown>).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return sha256(JSON.stringify(sections));
}

/**
 * The checksum of a plan: every field but itself (and the access summary and the cost, which only describe it). It
 * covers more than the changes: a saved plan edited to name another environment, or a smaller count of
 * managed objects (which sets the default deletion limit), must be refused like one with edited changes.
 */
export function checksumPlan(plan: Omit<Plan, 'checksum' | 'access' | 'cost' | 'undeclared'>): string {
  const { formatVersion, project, environment, prune, authoritative, managed, changes, summary, liveFingerprint, managedLiveCount, held } = plan;
  // `held` (grants kept for approved access requests) is what the reviewer was told stays; absent, it
  // adds nothing to the text, so plans without it keep their checksum. So does `authoritative`: a plan
  // that deletes by the configuration's declaration must say so where it was reviewed.
  return sha256(JSON.stringify({ formatVersion, project, environment, prune, authoritative, managed, changes, summary, liveFingerprint, managedLiveCount, held }));
}
