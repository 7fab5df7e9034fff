/**
 * Counts in words (src/words.ts), the same everywhere (issue #31): grouped by thousands, the noun and
 * the verb agreeing with the count, and no hand-made plural left in the sources to drift from them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agree, count, plural } from '../../src/words.js';
import { summaryLine } from '../../src/plan/render-common.js';
import { assertSafe, describeDeletes } from '../../src/plan/safety.js';
import type { Plan } from '../../src/plan/index.js';
import { ROOT } from '../helpers/cli.js';

describe('counts in words', () => {
  it.each([
    [0, '0 objects'],
    [1, '1 object'],
    [2, '2 objects'],
    [9904, '9,904 objects'],
    [1234567, '1,234,567 objects'],
  ])('%d → %s', (n, words) => {
    expect(plural(n, 'object')).toBe(words);
  });

  it('irregular plurals and agreeing verbs', () => {
    expect([plural(1, 'match', 'matches'), plural(3, 'match', 'matches')]).toEqual(['1 match', '3 matches']);
    expect([agree(1, 'goes', 'go'), agree(2, 'goes', 'go'), agree(0, 'goes', 'go')]).toEqual(['goes', 'go', 'go']);
    expect(count(2476)).toBe('2,476');
  });

  it('the plan summary groups its counts, and says "1 that goes with them"', () => {
    const plan = (create: number, cascade: number) =>
      ({
        summary: { create, update: 0, delete: 1 },
        changes: [
          { action: 'delete', id: 'user:a', cascade: Array.from({ length: cascade }, (_, i) => ({ id: `x:${i}` })) },
        ],
      }) as unknown as Plan;
    expect(summaryLine(plan(9904, 0))).toBe('9,904 to create, 0 to update, 1 to delete.');
    expect(summaryLine(plan(0, 1))).toMatch(/1 to delete \(and 1 that goes with them\)\.$/);
    expect(describeDeletes({ deletes: 1, cascaded: 1, total: 2 })).toBe(
      '1 object and 1 that goes with them (2 in all)',
    );
    expect(describeDeletes({ deletes: 3000, cascaded: 6904, total: 9904 })).toBe(
      '3,000 objects and 6,904 that go with them (9,904 in all)',
    );
  });

  it('the delete limit is grouped too', () => {
    const changes = Array.from({ length: 2477 }, (_, i) => ({ action: 'delete', id: `user:u${i}`, kind: 'user' }));
    const plan = {
      changes,
      summary: { create: 0, update: 0, delete: 2477 },
      managedLiveCount: 9904,
    } as unknown as Plan;
    expect(() => assertSafe(plan, { maxDeletes: 2476 })).toThrow(
      'the plan deletes 2,477 objects, more than the limit of 2,476;',
    );
  });

  it('no hand-made plural is left in src/ (they use src/words.ts)', () => {
    const files = (readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }) as string[]).filter((f) =>
      /\.tsx?$/.test(f),
    );
    const handMade = /[=!]== 1 \? '' : 's'|[=!]== 1 \? 's' : ''|> 1 \? 's' : ''|=== 1 \? 'es' : ''/;
    const found = files.filter((f) => handMade.test(readFileSync(path.join(ROOT, 'src', f), 'utf8')));
    expect(found).toEqual([]);
  });
});
