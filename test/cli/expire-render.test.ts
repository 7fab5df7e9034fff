/**
 * `roster requests expire`'s text: the count of revoked grants is what the apply did, not what it did
 * not fail: a grant it never tried (the service stopped answering) is not counted as revoked.
 */
import { describe, expect, it } from 'vitest';
import { renderExpiryText } from '../../src/cli/commands/expire.js';

const grant = (id: string) =>
  ({
    action: 'delete',
    kind: 'assignment',
    id,
    before: {},
    expired: {
      grantFor: '1h',
      expiredAt: '2026-01-01T01:00:00Z',
      request: { id: `r-${id}`, config: 'default', approvedAt: '2026-01-01T00:00:00Z', reviewer: 'ada' },
    },
  }) as unknown as Parameters<typeof renderExpiryText>[0][number];

describe('renderExpiryText', () => {
  it('counts what was done: one revoked, one never attempted', () => {
    const text = renderExpiryText(
      [grant('a'), grant('b')],
      ['a'],
      [{ id: 'b', error: 'not attempted: the service stopped answering' }],
      false,
    );
    expect(text.split('\n')[0]).toBe('Revoked 1 of 2 expired grants:');
    expect(text).toContain('failed b: not attempted: the service stopped answering');
  });
});
