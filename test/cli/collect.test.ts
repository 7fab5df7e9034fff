import { describe, expect, it } from 'vitest';
import { runInNewContext } from 'node:vm';
import { collectGarbage } from '../../src/cli/collect.js';

describe('collectGarbage', () => {
  it('collects without flags on the command line (gc is given to contexts made after it)', () => {
    expect(() => collectGarbage()).not.toThrow();
    expect(runInNewContext('typeof gc')).toBe('function');
  });
});
