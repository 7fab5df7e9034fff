/** `diffEnvironments` (src/plan/environments.ts): what differs between two states, object by object. Pure. */
import { describe, expect, it } from 'vitest';
import { emptyDesiredState, type DesiredState } from '../../src/types/desired.js';
import { asTheServiceHolds, diffEnvironments } from '../../src/plan/environments.js';

function state(build: (d: DesiredState) => void): DesiredState {
  const d = emptyDesiredState();
  build(d);
  return d;
}
const role = (key: string, extra: object = {}) => ({ key, name: key, permissions: ['doc:read'], ...extra });
const user = (key: string, extra: object = {}) => ({ key, tenants: ['t'], roles: [], ...extra });

describe('diffEnvironments', () => {
  it('lists objects only in a, only in b, and those in both whose fields differ, in plan order', () => {
    const a = state((d) => {
      d.roles.set('viewer', role('viewer', { description: 'staging' }));
      d.roles.set('auditor', role('auditor'));
      d.users.set('ada', user('ada'));
    });
    const b = state((d) => {
      d.roles.set('viewer', role('viewer', { description: 'prod' }));
      d.users.set('ada', user('ada'));
      d.users.set('erin', user('erin'));
      d.tenants.set('t', { key: 't', name: 't' });
    });
    expect(diffEnvironments(a, b)).toEqual([
      { kind: 'only-a', id: 'role:auditor' },
      { kind: 'differs', id: 'role:viewer', fields: [{ field: 'description', a: 'staging', b: 'prod' }] },
      { kind: 'only-b', id: 'tenant:t' },
      { kind: 'only-b', id: 'user:erin' },
    ]);
  });

  it.each([
    ['attributes written in another order', { attributes: { x: 1, y: 2 } }, { attributes: { y: 2, x: 1 } }, []],
    ['an empty mapping and none', { attributes: {} }, {}, []],
    [
      'a field set on one side only',
      { email: 'a@x' },
      {},
      [{ kind: 'differs', id: 'user:u', fields: [{ field: 'email', a: 'a@x' }] }],
    ],
    [
      'a list that differs',
      { tenants: ['t', 'u'] },
      { tenants: ['t'] },
      [{ kind: 'differs', id: 'user:u', fields: [{ field: 'tenants', a: ['t', 'u'], b: ['t'] }] }],
    ],
  ])('%s', (_name, x, y, expected) => {
    const a = state((d) => d.users.set('u', user('u', x)));
    const b = state((d) => d.users.set('u', user('u', y)));
    expect(diffEnvironments(a, b)).toEqual(expected);
  });

  it('compares only the sections asked for', () => {
    const a = state((d) => d.roles.set('r', role('r')));
    const b = state((d) => d.users.set('u', user('u')));
    expect(diffEnvironments(a, b, { sections: new Set(['users'] as const) })).toEqual([
      { kind: 'only-b', id: 'user:u' },
    ]);
  });

  it('names fields as the configuration writes them, not as the code spells them', () => {
    const group = (memberOf: string[]) => ({ type: 'team', key: 'a', tenant: 't', members: [], roles: [], memberOf });
    const a = state(
      (d) => (
        d.groups.set('team:a', group(['team:b'])),
        d.accessRequests.set('default', { key: 'default', name: 'default', reviewerRoles: ['r'], grantFor: '1h' })
      ),
    );
    const b = state(
      (d) => (
        d.groups.set('team:a', group([])),
        d.accessRequests.set('default', { key: 'default', name: 'default', reviewerRoles: ['s'] })
      ),
    );
    expect(
      diffEnvironments(a, b).flatMap((x) => (x.kind === 'differs' ? x.fields.map((f) => `${x.id} ${f.field}`) : [])),
    ).toEqual(['group:team:a member_of', 'access_request:default grant_for', 'access_request:default reviewer_roles']);
    // Against a live state, grant_for (the planner's, never sent to the service) is not a difference.
    expect(
      diffEnvironments(asTheServiceHolds(a), b).flatMap((x) =>
        x.kind === 'differs' ? x.fields.map((f) => f.field) : [],
      ),
    ).toEqual(['member_of', 'reviewer_roles']);
  });

  it('two equal states have no differences', () => {
    const make = () =>
      state((d) => (d.roles.set('r', role('r')), d.users.set('u', user('u', { roles: [{ role: 'r', tenant: 't' }] }))));
    expect(diffEnvironments(make(), make())).toEqual([]);
  });
});
