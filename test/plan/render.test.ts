import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import {
  MARKDOWN_MARKER,
  planTextPieces,
  renderPlanJson,
  renderPlanMarkdown,
  renderPlanText,
} from '../../src/plan/index.js';
import { aGroup, aRole, aTenant, aUser, anInstance, desired, live, OPTIONS } from './builders.js';

/** One create, one replace, two updates (a scalar and a list) and one delete. */
const plan = planChanges(
  desired({
    roles: [aRole('viewer', ['document:read', 'document:write'], { name: 'Viewer' })],
    tenants: [aTenant('acme', { name: 'Acme | Inc.' })],
    users: [],
    instances: [anInstance('document:readme', 'globex')],
    groups: [aGroup('team:eng')],
  }),
  live({
    roles: [aRole('viewer', ['document:read', 'document:share'])],
    tenants: [aTenant('acme')],
    users: [aUser('bob')],
    instances: [anInstance('document:readme', 'acme')],
  }),
  { ...OPTIONS, prune: true },
);

const placeholders = (s: string) => s.replace(/[0-9a-f]{64}/g, '<sha256>');

describe('plan renderers', () => {
  it('text in pieces: whole lines, joined the same text (a large plan is written as it is made)', () => {
    const big = planChanges(
      desired({
        tenants: [aTenant('acme')],
        users: Array.from({ length: 4500 }, (_, i) => aUser(`u${i}`, { tenants: ['acme'] })),
      }),
      live(),
      OPTIONS,
    );
    const pieces = [...planTextPieces(big)];
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) expect(piece.endsWith('\n')).toBe(true);
    expect(pieces.join('')).toBe(renderPlanText(big));
    expect(
      pieces
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('  + user:')),
    ).toHaveLength(4500);
  });
  it('text: one line a change, field changes under updates, summary and checksum', () => {
    expect(placeholders(renderPlanText(plan))).toMatchInlineSnapshot(`
      "Plan for p/e (with --prune)

        ~ role:viewer
            name: "viewer" → "Viewer"
            permissions: +document:write -document:share
        ~ tenant:acme
            name: "acme" → "Acme | Inc."
        + instance:document:readme (replaces: tenant: "acme" → "globex")
        + group:team:eng
        - user:bob

      Applying this plan deletes 1 object.

      Live, not in the configuration: 1 object; 1 deleted by this plan
        x user:bob (deleted)
            grants no access

      2 to create, 2 to update, 1 to delete.
      checksum <sha256>
      "
    `);
  });

  it('text: colour only when asked', () => {
    expect(renderPlanText(plan)).not.toContain('\u001b[');
    expect(renderPlanText(plan, { color: true })).toContain('\u001b[31m  - user:bob\u001b[39m');
  });

  it('markdown: starts with the marker, one table row a change, pipes escaped, checksum last', () => {
    const md = renderPlanMarkdown(plan);
    expect(md.split('\n')[0]).toBe(MARKDOWN_MARKER);
    expect(placeholders(md)).toMatchInlineSnapshot(`
      "<!-- roster-plan -->
      ### Roster plan for \`p/e\` (with --prune)

      **2 to create, 2 to update, 1 to delete.**

      > ⚠️ Applying this plan deletes 1 object.

      | | change | detail |
      |---|---|---|
      | ~ | \`role:viewer\` | name: "viewer" → "Viewer"; permissions: +document:write -document:share |
      | ~ | \`tenant:acme\` | name: "acme" → "Acme \\| Inc." |
      | + | \`instance:document:readme\` | replaces: tenant: "acme" → "globex" |
      | + | \`group:team:eng\` |  |
      | - | \`user:bob\` |  |

      #### Live, not in the configuration

      1 object; 1 deleted by this plan.

      | | object | | access it grants now |
      |---|---|---|---|
      | x | \`user:bob\` | deleted | grants no access |

      <sub>checksum \`<sha256>\`</sub>
      "
    `);
  });

  it('markdown: a long plan folds into a details block', () => {
    const big = planChanges(
      desired({ tenants: Array.from({ length: 60 }, (_, i) => aTenant(`t${String(i).padStart(2, '0')}`)) }),
      live(),
      OPTIONS,
    );
    const md = renderPlanMarkdown(big);
    expect(md.split('\n')[0]).toBe(MARKDOWN_MARKER);
    expect(md).toContain('<details><summary>All changes</summary>');
    expect(md).toContain(big.checksum);
  });

  it('no changes reads as such in every format', () => {
    const empty = planChanges(desired({ roles: [] }), live(), OPTIONS);
    expect(renderPlanText(empty)).toContain('No changes. The live environment matches the configuration.');
    expect(renderPlanMarkdown(empty)).toContain('No changes.');
    expect(JSON.parse(renderPlanJson(empty)).changes).toEqual([]);
  });

  it('json: the plan value itself, with its checksum and live fingerprint', () => {
    const json = JSON.parse(renderPlanJson(plan));
    expect(json).toEqual(JSON.parse(JSON.stringify(plan)));
    expect(json).toMatchObject({
      formatVersion: 1,
      project: 'p',
      environment: 'e',
      prune: true,
      summary: { create: 2, update: 2, delete: 1 },
    });
    expect(json.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(json.liveFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(json.changes.map((c: { id: string }) => c.id)).toEqual([
      'role:viewer',
      'tenant:acme',
      'instance:document:readme',
      'group:team:eng',
      'user:bob',
    ]);
    expect(json.changes[0].fields).toEqual([
      { field: 'name', before: 'viewer', after: 'Viewer' },
      { field: 'permissions', before: ['document:read', 'document:share'], after: ['document:read', 'document:write'] },
    ]);
  });

  it('the checksum is printed in every format', () => {
    for (const out of [renderPlanText(plan), renderPlanMarkdown(plan), renderPlanJson(plan)])
      expect(out).toContain(plan.checksum);
  });
});
