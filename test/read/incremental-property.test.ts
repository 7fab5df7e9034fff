/**
 * The incremental read's one promise: after any changes another tool makes through the API between the
 * snapshot and the plan, the live state read incrementally (snapshot + change history) is the one a full
 * read gives, and so is the plan made on it. Random environments (test/access/public-env.ts, abac-env.ts)
 * are written, snapshotted, changed out of band (out-of-band.ts: every kind, deletes included), then read
 * both ways against the real server. The environment's own writes are recorded in the snapshot by request
 * id, as an apply records its own: otherwise they fall in the overlap and everything is read again,
 * which would make the property hold trivially.
 *
 * `npm test` runs 3 environments (fixed seed); ROSTER_INCREMENTAL_RUNS=50 for more, ROSTER_PROPERTY_SEED
 * to replay one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { readLive } from '../../src/read/live.js';
import { deriveSnapshotKey } from '../../src/read/seal.js';
import { snapshotFile } from '../../src/read/snapshot.js';
import { planChanges } from '../../src/plan/plan.js';
import { fingerprintLive } from '../../src/plan/checksum.js';
import { emptyDesiredState, SECTIONS, type DesiredState } from '../../src/types/desired.js';
import type { LiveState } from '../../src/types/live.js';
import { ORG_KEY, startTestServer, type TestServer } from '../helpers/server.js';
import { arbPublicEnv, describeWrite } from '../access/public-env.js';
import { abacWrites, arbAbacSpec } from '../access/abac-env.js';
import { arbOutOfBand, callOf, type OobCall } from './out-of-band.js';

const RUNS = Number(process.env.ROSTER_INCREMENTAL_RUNS || 3);
const SEED = { seed: Number(process.env.ROSTER_PROPERTY_SEED || 4207) };

describe('an incremental read after random out-of-band changes', () => {
  it(
    'equals the full read, and the plans made on them are equal',
    async () => {
      await fc.assert(
        fc.asyncProperty(arbPublicEnv, arbAbacSpec, arbOutOfBand, async (base, abac, draws) => {
          const server = await startTestServer();
          const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-incremental-'));
          const client = createClient({ baseUrl: server.url, apiKey: ORG_KEY, project: 'p', environment: 'e' });
          try {
            const own: string[] = [];
            for (const w of [...base, ...abacWrites(abac)]) await send(server, w, own);
            const target = { url: server.url, project: 'p', environment: 'e' };
            const place = { file: snapshotFile(dir, target), key: deriveSnapshotKey(ORG_KEY), target };
            const first = await readLive({ client, snapshot: place, refresh: 'full', own });
            expect(first.summary.snapshot).toEqual({ saved: true });
            const sent: string[] = [];
            for (const d of draws) {
              const call = callOf(d, first.live);
              if (call) sent.push(`${await send(server, call)} ${describeWrite(call as never)}`);
            }
            const incremental = await readLive({ client, snapshot: place, refresh: 'incremental' });
            const full = await readLive({ client, refresh: 'full' });
            const context = `out-of-band calls:\n${sent.join('\n')}\nread again: ${incremental.summary.reread?.join(', ')}`;
            if (process.env.ROSTER_PROPERTY_VERBOSE) console.log(context);
            expect(incremental.summary.mode, context).toBe('incremental');
            expect(incremental.live, context).toEqual(full.live);
            expect(incremental.requestGrants, context).toEqual(full.requestGrants);
            expect(fingerprintLive(incremental.live), context).toBe(fingerprintLive(full.live));
            const desired = desiredOf(first.live);
            const options = { project: 'p', environment: 'e', prune: true };
            expect(planChanges(desired, incremental.live, options), context).toEqual(
              planChanges(desired, full.live, options),
            );
          } finally {
            await client.close();
            await server.close();
            rmSync(dir, { recursive: true, force: true });
          }
        }),
        { numRuns: RUNS, ...SEED, endOnFailure: true },
      );
    },
    60_000 + RUNS * 20_000,
  );
});

/** Sends one call; returns its status. A 5xx is never an answer to any input. */
async function send(server: TestServer, call: OobCall, own?: string[]): Promise<number> {
  const r = await server[call.api](call.method, call.path, call.body);
  if (r.status >= 500) throw new Error(`${call.method} ${call.path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  const id = r.headers.get('x-request-id');
  if (own && id) own.push(id);
  return r.status;
}

/** The state before the changes, as a configuration declaring every section would: the plan undoes them. */
function desiredOf(live: LiveState): DesiredState {
  return { ...emptyDesiredState(), ...structuredClone(live), sections: new Set(SECTIONS) };
}
