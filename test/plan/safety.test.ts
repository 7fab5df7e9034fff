import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { assertSafe, defaultMaxDeletes } from '../../src/plan/safety.js';
import { UnsafePlanError } from '../../src/errors.js';
import { aTenant, desired, live, OPTIONS } from './builders.js';

const tenants = (n: number) => Array.from({ length: n }, (_, i) => aTenant(`t${String(i).padStart(2, '0')}`));

/** `live` tenants, of which the configuration keeps `kept`, pruning the rest. */
const pruning = (liveCount: number, kept: number) =>
  planChanges(desired({ tenants: tenants(kept) }), live({ tenants: tenants(liveCount) }), { ...OPTIONS, prune: true });

function refusal(fn: () => void): UnsafePlanError | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof UnsafePlanError) return err;
    throw err;
  }
}

describe('assertSafe', () => {
  it.each([
    // live, kept, deletes, default limit, refused
    { live: 10, kept: 0, deletes: 10, limit: undefined, refused: false },
    { live: 11, kept: 9, deletes: 2, limit: 2, refused: false },
    { live: 11, kept: 8, deletes: 3, limit: 2, refused: true },
    { live: 40, kept: 30, deletes: 10, limit: 10, refused: false },
    { live: 40, kept: 29, deletes: 11, limit: 10, refused: true },
  ])(
    '$live managed live objects, $deletes deletions: limit $limit, refused $refused',
    ({ live: n, kept, deletes, limit, refused }) => {
      const plan = pruning(n, kept);
      expect(plan.summary.delete).toBe(deletes);
      expect(plan.managedLiveCount).toBe(n);
      expect(defaultMaxDeletes(plan)).toBe(limit);
      expect(refusal(() => assertSafe(plan)) !== undefined).toBe(refused);
    },
  );

  it('the refusal names the flag that overrides it, and the count to give it', () => {
    const err = refusal(() => assertSafe(pruning(40, 29)));
    expect(err?.flag).toBe('--max-deletes');
    expect(err?.message).toBe(
      'the plan deletes 11 objects, more than the limit of 10 (25% of the 40 managed live objects); review it, then raise the limit with --max-deletes 11 if it is intended',
    );
  });

  it('--max-deletes replaces the default, either way', () => {
    expect(refusal(() => assertSafe(pruning(40, 29), { maxDeletes: 11 }))).toBeUndefined();
    expect(refusal(() => assertSafe(pruning(10, 7), { maxDeletes: 2 }))?.message).toContain('--max-deletes 3');
    expect(refusal(() => assertSafe(pruning(10, 10), { maxDeletes: 0 }))).toBeUndefined();
  });

  it('creates and updates never count against the limit', () => {
    const plan = planChanges(desired({ tenants: tenants(50) }), live({ tenants: tenants(11) }), OPTIONS);
    expect(plan.summary.create).toBe(39);
    expect(refusal(() => assertSafe(plan))).toBeUndefined();
  });
});
