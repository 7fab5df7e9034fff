/**
 * The plan's checksum and the live state's fingerprint are hashed as their JSON text is written, piece
 * by piece (src/plan/checksum.ts): the hashes are those of the whole text, so that saved plans made
 * before keep verifying. Checked against sha256 of JSON.stringify on random plans and live states.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { checksumPlan, fingerprintLive, sha256 } from '../../src/plan/checksum.js';
import { LIVE_PARTS, type LiveState } from '../../src/types/live.js';
import { OPTIONS } from './builders.js';
import { buildWorld, desiredOf, sectionsArb, worldArb } from './arbitraries.js';
import { readWorld } from './simulate.js';

const ABAC = new Set(['userAttributes', 'tenantAttributes', 'conditionSets', 'setRules']);

/** The fingerprint as it was computed before issue 32: the whole text, then its hash. */
function wholeFingerprint(live: LiveState): string {
  const sections = [...LIVE_PARTS]
    .filter((name) => !ABAC.has(name) || live[name].size > 0)
    .sort()
    .map((name) => [
      name,
      [...(live[name] as Map<string, unknown>).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ]);
  return sha256(JSON.stringify(sections));
}

describe('checksum and fingerprint, hashed as written', () => {
  it('are the hashes of the whole JSON text', () => {
    fc.assert(
      fc.property(
        worldArb,
        worldArb,
        sectionsArb,
        fc.boolean(),
        fc.string({ unit: 'binary' }),
        (want, have, sections, prune, text) => {
          const live = readWorld(buildWorld(have));
          // Any text in a field (here a user's email, non-ASCII included) is hashed as JSON.stringify writes it.
          const first = [...live.users.values()][0];
          if (first) first.email = text;
          const plan = planChanges(desiredOf(buildWorld(want), sections), live, { ...OPTIONS, prune });
          const { checksum, access: _a, cost: _c, undeclared: _u, ...rest } = plan;
          const {
            formatVersion,
            project,
            environment,
            authoritative,
            managed,
            changes,
            summary,
            liveFingerprint,
            managedLiveCount,
            held,
          } = rest;
          const whole = sha256(
            JSON.stringify({
              formatVersion,
              project,
              environment,
              prune: rest.prune,
              authoritative,
              managed,
              changes,
              summary,
              liveFingerprint,
              managedLiveCount,
              held,
            }),
          );
          expect(checksum).toBe(whole);
          expect(checksumPlan(plan)).toBe(whole);
          expect(fingerprintLive(live)).toBe(wholeFingerprint(live));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a plan of many changes (past the pieces hashed at once) hashes as its whole text', () => {
    const live = readWorld(buildWorld(fc.sample(worldArb, { numRuns: 1, seed: 1 })[0]));
    const plan = planChanges(
      desiredOf(buildWorld(fc.sample(worldArb, { numRuns: 1, seed: 2 })[0]), ['users']),
      live,
      OPTIONS,
    );
    const many = {
      ...plan,
      changes: Array.from({ length: 3000 }, (_, i) => ({
        ...(plan.changes[0] ?? {}),
        id: `user:é${i}`,
      })) as typeof plan.changes,
    };
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
    } = many;
    expect(checksumPlan(many)).toBe(
      sha256(
        JSON.stringify({
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
        }),
      ),
    );
  });
});
