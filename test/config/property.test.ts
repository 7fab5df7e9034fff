import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateEnvironment, toYaml, type RawConfigObject } from '../../bench/generate.js';
import { validateSources } from '../../src/config/index.js';

const sizes = fc.record({
  users: fc.integer({ min: 1, max: 60 }),
  groups: fc.integer({ min: 0, max: 25 }),
  maxDepth: fc.integer({ min: 1, max: 8 }),
  instances: fc.integer({ min: 0, max: 30 }),
  memberships: fc.integer({ min: 0, max: 120 }),
  tenants: fc.integer({ min: 1, max: 4 }),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
});

/** Splits every section's entries over `parts` files, by the given assignment, keeping entries whole. */
function split(config: RawConfigObject, parts: number, assign: (i: number) => number): Record<string, unknown>[] {
  const files: Record<string, Record<string, unknown>>[] = Array.from({ length: parts }, () => ({}));
  let n = 0;
  for (const [section, body] of Object.entries(config)) {
    if (section === 'version') continue;
    for (const [key, entry] of Object.entries(body as Record<string, unknown>)) {
      const file = files[assign(n++) % parts];
      (file[section] ??= {})[key] = entry;
    }
  }
  return files;
}

describe('properties', () => {
  it('a generated configuration validates with zero errors', () => {
    fc.assert(
      fc.property(sizes, (opts) => {
        const r = validateSources([{ file: 'gen.yaml', text: toYaml(generateEnvironment(opts) as never) }]);
        expect(r.errors).toEqual([]);
        expect(r.desired?.users.size).toBe(opts.users);
        expect(r.desired?.groups.size).toBe(opts.groups);
      }),
      { numRuns: 40 },
    );
  });

  it('normalisation does not depend on how entries are split over files, nor on their order', () => {
    fc.assert(
      fc.property(
        sizes,
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.nat(10), { minLength: 1 }),
        (opts, parts, choices) => {
          const config = generateEnvironment(opts);
          const whole = validateSources([{ file: 'all.yaml', text: toYaml(config as never) }]);
          const pieces = split(config, parts, (i) => choices[i % choices.length])
            .map((body, i) => ({ file: `part-${i}.yaml`, text: toYaml(body) }))
            .reverse();
          const merged = validateSources(pieces);
          expect(merged.errors).toEqual([]);
          const d = merged.desired!;
          const w = whole.desired!;
          // Only sections with entries are present in a split; compare everything else exactly.
          expect({ ...d, sections: undefined }).toEqual({ ...w, sections: undefined });
          expect([...d.users.keys()]).toEqual([...w.users.keys()]);
        },
      ),
      { numRuns: 30 },
    );
  });
});
