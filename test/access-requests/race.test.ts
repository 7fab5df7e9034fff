import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer, Resp } from '../helpers/server.js';
import {
  aRequest,
  addToTenant,
  as,
  assign,
  assignmentsOf,
  expectError,
  ok,
  seedWorld,
  startWithClock,
  user,
} from './builders.js';

/**
 * Decisions are atomic: of fifty concurrent approve/deny/cancel calls on one pending request, each sent
 * by an actor entitled to it, exactly one succeeds and at most one role is granted; the others get 409.
 */
let s: TestServer;
const MODERATORS = ['m0', 'm1', 'm2', 'm3', 'm4'];
beforeAll(async () => {
  ({ s } = await startWithClock());
  await seedWorld(s);
  for (const m of MODERATORS) {
    await user(s, m);
    await assign(s, { user: m, role: 'admin', tenant: 't' });
  }
});
afterAll(() => s.close());

/** Fifty calls: approve and deny from the moderators in turn, cancel from the requester, interleaved. */
function fiftyCalls(requester: string, id: string, order: number): Promise<Resp>[] {
  return Array.from({ length: 50 }, (_, i) => {
    const kind = (['approve', 'deny', 'cancel'] as const)[(i + order) % 3];
    if (kind === 'cancel') return as(s, requester).cancel(id, { reason: `cancel ${i}` });
    return as(s, MODERATORS[i % MODERATORS.length])[kind](id, { reviewer_comment: `${kind} ${i}` });
  });
}

describe('the fifty-way race', () => {
  it.each([0, 1, 2])(
    'exactly one 200, 49 × 409 carrying the winning status, and the grant matches the winner (rotation %i)',
    async (order) => {
      const requester = `racer${order}`;
      await user(s, requester);
      await addToTenant(s, 't', requester);
      const r = await aRequest(s, requester, { role: 'editor', resource_instance: 'doc:d1' });

      const answers = await Promise.all(fiftyCalls(requester, r.id, order));

      const winners = answers.filter((a) => a.status === 200);
      const losers = answers.filter((a) => a.status !== 200);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(49);
      const final = winners[0].body;
      for (const l of losers) {
        expectError(l, 409, 'CONFLICT');
        expect(l.body.status).toBe(final.status);
      }
      // The stored request is the winner's answer.
      expect(ok(await as(s, requester).get(r.id))).toEqual(final);
      const grants = await assignmentsOf(s, { user: requester });
      expect(grants).toEqual(final.status === 'approved' ? [`${requester} editor t doc:d1`] : []);
    },
  );

  it('fifty concurrent approvals from five moderators: one 200, 49 × 409, exactly one role assignment', async () => {
    await user(s, 'racer-a');
    await addToTenant(s, 't', 'racer-a');
    const r = await aRequest(s, 'racer-a', { role: 'viewer' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        as(s, MODERATORS[i % 5]).approve(r.id, { role: i % 2 ? 'viewer' : 'editor' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(49).fill(409)]);
    const role = answers.find((a) => a.status === 200)!.body.access_request_details.role;
    expect(await assignmentsOf(s, { user: 'racer-a' })).toEqual([`racer-a ${role} t -`]);
  });
});
