/**
 * The live state after a plan (after.ts), as the access section and the cascade count read it: a
 * resource updated (its name) keeps its resource roles and its relations, which are changes of their own.
 */
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { liveAfter } from '../../src/plan/after.js';
import { validateSources } from '../../src/config/index.js';
import { asLive, OPTIONS } from './builders.js';

const CONFIG = `
resources:
  folder:
    name: Folder
    actions: [read]
    relations: { parent: folder }
    roles:
      viewer: { permissions: [read], granted_to: [{ role: viewer, on: folder, via: parent }] }
tenants:
  acme: {}
`;

function desiredOf(text: string) {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  expect(r.errors).toEqual([]);
  return r.desired!;
}

describe('liveAfter', () => {
  it('a resource update keeps its roles and relations', () => {
    const live = asLive(desiredOf(CONFIG));
    const plan = planChanges(desiredOf(CONFIG.replace('name: Folder', 'name: Folders')), live, OPTIONS);
    expect(plan.changes.map((c) => `${c.action} ${c.id}`)).toEqual(['update resource:folder']);
    const folder = liveAfter(live, plan.changes).resources.get('folder');
    expect(folder?.name).toBe('Folders');
    expect(folder?.relations).toEqual(live.resources.get('folder')?.relations);
    expect(folder?.roles).toEqual(live.resources.get('folder')?.roles);
  });
});
