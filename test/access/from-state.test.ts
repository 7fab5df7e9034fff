import { describe, expect, it } from 'vitest';
import { factsFromState } from '../../src/access/from-state.js';
import { emptyLiveState } from '../../src/types/live.js';
import { validateSources } from '../../src/config/index.js';

function desired(text: string) {
  const r = validateSources([{ file: 'roster.yaml', text }]);
  if (!r.desired) throw new Error(r.errors.map((e) => e.message).join('\n'));
  return r.desired;
}

const CONFIG = `
resources:
  document: [read, write]
  team: [manage]
roles:
  viewer: [document:read]
  lead: [team:manage]
tenants: { acme: {}, globex: {} }
users:
  alice: { roles: [{ role: viewer, tenant: acme }] }
  bob: { roles: [{ role: lead, on: team:eng }] }
  carol: { tenants: [globex] }
resource_instances:
  document:readme: acme
  document:plans: globex
groups:
  team:eng: { tenant: acme, members: [alice, bob], roles: [{ role: viewer, on: document:readme }] }
  team:web: { tenant: acme, members: [carol], member_of: [team:eng] }
`;

describe('factsFromState', () => {
  it('maps a desired state: roles, instances with groups, tenant and instance roles, memberships, links, grants', () => {
    expect(factsFromState(desired(CONFIG))).toEqual({
      roles: [
        { key: 'lead', permissions: ['team:manage'] },
        { key: 'viewer', permissions: ['document:read'] },
      ],
      instances: [
        { id: 'document:plans', tenant: 'globex' },
        { id: 'document:readme', tenant: 'acme' },
        { id: 'team:eng', tenant: 'acme' },
        { id: 'team:web', tenant: 'acme' },
      ],
      tenantRoles: [{ user: 'alice', role: 'viewer', tenant: 'acme' }],
      instanceRoles: [{ user: 'bob', role: 'lead', instance: 'team:eng' }],
      memberships: [
        { user: 'alice', group: 'team:eng' },
        { user: 'bob', group: 'team:eng' },
        { user: 'carol', group: 'team:web' },
      ],
      links: [{ child: 'team:web', parent: 'team:eng' }],
      groupGrants: [{ group: 'team:eng', role: 'viewer', instance: 'document:readme' }],
    });
  });

  it('gives direct members the member role on the group only when that role has permissions (as /allowed decides)', () => {
    const live = emptyLiveState();
    live.groups.set('team:eng', {
      type: 'team',
      key: 'eng',
      tenant: 'acme',
      members: ['alice'],
      roles: [],
      memberOf: [],
    });
    live.roles.set('member', { key: 'member', name: 'Member', permissions: [] });
    expect(factsFromState(live).instanceRoles).toEqual([]);
    live.roles.set('member', { key: 'member', name: 'Member', permissions: ['team:read'] });
    expect(factsFromState(live).instanceRoles).toEqual([{ user: 'alice', role: 'member', instance: 'team:eng' }]);
  });

  it('is pure: the state is not changed and the facts share no lists with it', () => {
    const d = desired(CONFIG);
    const before = JSON.stringify([...d.roles.values()]);
    const f = factsFromState(d);
    f.roles[0].permissions.push('x:y');
    expect(JSON.stringify([...d.roles.values()])).toBe(before);
  });
});
