import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { HistoryEvent } from '../../src/api/read-history.js';
import { createChange, deleteChange, updateChange, type Change } from '../../src/plan/change.js';
import { buildDriftReport, callsNeedingBodies, namesOf } from '../../src/plan/drift.js';
import { renderDriftMarkdown, renderDriftText } from '../../src/plan/render-drift.js';
import type { Plan } from '../../src/plan/types.js';

/** The drift report's attribution (src/plan/drift.ts): which call of the history names which drifted object. */

const SINCE = new Date('2026-05-01T00:00:00.000Z');
let n = 0;
const call = (method: string, path: string, more: Partial<HistoryEvent> = {}): HistoryEvent => ({
  id: `c${++n}`,
  timestamp: `2026-05-0${Math.min(9, n)}T00:00:00.000Z`,
  method,
  path,
  status: 200,
  success: true,
  actor: { type: 'api_key', id: 'a1', name: 'ops key' },
  ...more,
});
const planOf = (changes: Change[]): Plan =>
  ({ project: 'p', environment: 'e', changes, summary: { create: 0, update: 0, delete: 0 } }) as unknown as Plan;

const F = '/v2/facts/p/e';
const S = '/v2/schema/p/e';
const alice = deleteChange('user', 'user:alice', { key: 'alice' });
const viewer = updateChange(
  'role',
  'role:viewer',
  { key: 'viewer', name: 'viewer', permissions: ['doc:read'] },
  { key: 'viewer', name: 'viewer', permissions: ['doc:read', 'doc:write'] },
  [{ field: 'permissions', before: ['doc:read'], after: ['doc:read', 'doc:write'] }],
);
const assignment = createChange('assignment', 'assignment:bob:editor@acme', {
  user: 'bob',
  role: 'editor',
  tenant: 'acme',
});
const d1 = createChange('instance', 'instance:doc:d1', { resource: 'doc', key: 'd1', tenant: 'acme' });

describe('namesOf: the values that name a drifted object', () => {
  it.each([
    [alice, ['alice']],
    [viewer, ['viewer']],
    [assignment, ['bob', 'editor']],
    [d1, ['doc:d1']],
    [
      createChange('tuple', 't', { subject: 'folder:f', relation: 'parent', object: 'doc:d1', tenant: 'acme' }),
      ['folder:f', 'parent', 'doc:d1'],
    ],
    [createChange('member', 'm', { user: 'bob', group: 'team:eng', tenant: 'acme' }), ['bob', 'team:eng']],
  ] as [Change, string[]][])('%#', (change, names) => expect(namesOf(change)).toEqual(names));
});

describe('buildDriftReport', () => {
  const events = [
    call('POST', `${F}/users`, { id: 'create-alice' }),
    call('PATCH', `${S}/roles/viewer`, { id: 'patch-viewer' }),
    call('PATCH', `${S}/roles/viewer`, { id: 'refused', status: 422, success: false }),
    call('POST', `${F}/role_assignments/bulk`, { id: 'bulk' }),
    call('DELETE', `${F}/resource_instances/doc:d1`, { id: 'del-d1', status: 0, success: false }),
    call('GET', `${F}/users/alice`, { id: 'read' }),
  ];
  const bodies = new Map<string, unknown>([
    ['create-alice', { key: 'alice', email: 'a@example.com' }],
    ['bulk', [{ user: 'bob', role: 'editor', tenant: 'acme' }]],
  ]);
  const report = buildDriftReport(planOf([alice, viewer, assignment, d1]), { read: true, events, bodies }, SINCE);
  const causes = Object.fromEntries(report.objects.map((o) => [o.id, [o.state, o.cause?.method, o.calls]]));

  it('names the newest call that may have changed each object: by path, or by the body read', () => {
    expect(causes).toEqual({
      'user:alice': ['added', 'POST', 1],
      // The refused PATCH (422) changed nothing.
      'role:viewer': ['changed', 'PATCH', 1],
      'assignment:bob:editor@acme': ['missing', 'POST', 1],
      // A call whose outcome is unknown (status 0) may have changed it.
      'instance:doc:d1': ['missing', 'DELETE', 1],
    });
    expect(report.objects.find((o) => o.id === 'role:viewer')?.fields).toEqual(['permissions']);
    expect(report.history).toEqual({ read: true, calls: 6, bodies: 2 });
  });

  it('says "not in the history" and "unknown" apart', () => {
    const none = buildDriftReport(planOf([alice]), { read: true, events: [], bodies: new Map() }, SINCE);
    expect(renderDriftText(none)).toContain(
      `user:alice  added out of band; by no write since ${SINCE.toISOString()} names it`,
    );
    const unread = buildDriftReport(planOf([alice]), { read: false, reason: 'the service keeps none (404)' }, SINCE);
    expect(renderDriftText(unread)).toContain('The change history was not read: the service keeps none (404).');
    expect(renderDriftMarkdown(unread)).toContain('| + | `user:alice` | added out of band | unknown |');
  });

  it('a call whose path names another object of the same collection never counts', () =>
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{1,8}$/), (a, b) => {
        fc.pre(a !== b);
        const r = buildDriftReport(
          planOf([deleteChange('user', `user:${a}`, { key: a })]),
          { read: true, events: [call('PATCH', `${F}/users/${b}`)], bodies: new Map() },
          SINCE,
        );
        return r.objects[0].calls === 0;
      }),
    ));
});

describe('callsNeedingBodies', () => {
  it('asks for the bodies of collection and bulk writes only, newest first, within the bound', () => {
    const events = [
      call('POST', `${F}/users`, { id: 'u1' }),
      call('PATCH', `${F}/users/alice`, { id: 'named' }),
      call('POST', `${F}/role_assignments`, { id: 'ra' }),
      call('POST', `${F}/tenants`, { id: 'other-kind' }),
      call('POST', `${F}/users`, { id: 'failed', status: 409, success: false }),
      call('PUT', `${F}/bulk/users`, { id: 'bulk' }),
    ];
    expect(callsNeedingBodies([alice, assignment], events, 10)).toEqual(['bulk', 'ra', 'u1']);
    expect(callsNeedingBodies([alice, assignment], events, 2)).toEqual(['bulk', 'ra']);
  });
});
