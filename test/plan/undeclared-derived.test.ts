/**
 * An undeclared live instance in an environment with resource roles and derivations: its access lines
 * name the resource roles held on it (including those with no top-level namesake, and those held only
 * by derivation), by identity.
 */
import { describe, expect, it } from 'vitest';
import { planChanges } from '../../src/plan/plan.js';
import { validateSources } from '../../src/config/index.js';
import { asLive, OPTIONS } from './builders.js';

const CONFIG = `
resources:
  folder:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      viewer: { permissions: [read], granted_to: [{ role: viewer, on: folder, via: parent }] }
      owner: { permissions: [read, write] }
  document:
    actions: [read, write]
    relations: { parent: folder }
    roles:
      reader: { permissions: [read], granted_to: [{ role: viewer, on: folder, via: parent }] }
tenants:
  acme: {}
resource_instances:
  folder:root: acme
  document:budget: { tenant: acme, relations: { parent: folder:root } }
users:
  alice: { tenants: [acme], roles: [{ role: viewer, on: folder:root }] }
  bob: { tenants: [acme], roles: [{ role: owner, on: folder:root }] }
`;

function desiredOf(text: string) {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  expect(r.errors).toEqual([]);
  return r.desired!;
}

describe('undeclared instances with resource roles and derivations', () => {
  it('lists the resource roles held on it, derived ones included', () => {
    const live = asLive(desiredOf(CONFIG));
    const plan = planChanges(
      desiredOf(CONFIG.replace('  document:budget: { tenant: acme, relations: { parent: folder:root } }\n', '')),
      live,
      OPTIONS,
    );
    const doc = plan.undeclared?.objects.find((o) => o.id === 'instance:document:budget');
    expect(doc?.access).toEqual(['document#reader on it to 1 user (alice)']);
    const root = desiredOf(
      CONFIG.replace('  folder:root: acme\n', '')
        .replace('document:budget: { tenant: acme, relations: { parent: folder:root } }', 'document:budget: acme')
        .replace(/, roles: \[\{ role: \w+, on: folder:root \}\]/g, ''),
    );
    const folder = planChanges(root, live, OPTIONS).undeclared?.objects.find((o) => o.id === 'instance:folder:root');
    expect(folder?.access).toEqual(['folder#owner on it to 1 user (bob)', 'folder#viewer on it to 1 user (alice)']);
  });
});

describe('an undeclared group lists only what is granted on it (issue 28)', () => {
  const WORLD = `
resources: { document: [read], team: [manage] }
roles: { admin: [document:read], lead: [team:manage], viewer: [document:read] }
tenants: { acme: {} }
resource_instances: { document:memo: acme }
users:
  joan: { tenants: [acme], roles: [{ role: admin, tenant: acme }] }
  lena: { tenants: [acme], roles: [{ role: lead, tenant: acme }] }
  ann: { tenants: [acme] }
groups:
  team:x: { tenant: acme, members: [ann], roles: [{ role: viewer, on: document:memo }] }
`;

  it("not a tenant-wide role that grants nothing on the group's type; the one that does, and what the group grants", () => {
    const live = asLive(desiredOf(WORLD));
    const plan = planChanges(desiredOf(WORLD.replace(/groups:\n.*\n$/, 'groups: {}\n')), live, OPTIONS);
    const group = plan.undeclared?.objects.find((o) => o.id === 'group:team:x');
    expect(group?.access).toEqual(['viewer on document:memo to 1 user (ann)', 'lead on it to 1 user (lena)']);
    const joan = planChanges(desiredOf(WORLD.replace(/  joan: .*\n/, '')), live, OPTIONS).undeclared?.objects.find(
      (o) => o.id === 'user:joan',
    );
    expect(joan?.access).toEqual(['admin on document:memo (tenant-wide in acme)']);
  });
});
