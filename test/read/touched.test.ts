import { describe, expect, it } from 'vitest';
import { touchedBy, type HistoryCall } from '../../src/read/touched.js';

const SCOPE = { project: 'p', environment: 'e' };
const call = (method: string, path: string, over: Partial<HistoryCall> = {}): HistoryCall => ({
  method,
  path,
  status: 200,
  ...over,
});

describe('touchedBy: what a write in the change history may have changed', () => {
  it.each([
    [
      'a membership moved',
      call('POST', '/v2/facts/p/e/role_assignments/bulk'),
      ['groups', 'role_assignments', 'users'],
    ],
    [
      'a user patched',
      call('PATCH', '/v2/facts/p/e/users/alice'),
      ['access_requests', 'groups', 'role_assignments', 'users'],
    ],
    [
      'users in bulk (bulk first)',
      call('PUT', '/v2/facts/p/e/bulk/users'),
      ['access_requests', 'groups', 'role_assignments', 'users'],
    ],
    ['a tuple', call('POST', '/v2/facts/p/e/relationship_tuples'), ['groups', 'relationship_tuples']],
    ['a set rule', call('DELETE', '/v2/facts/p/e/set_rules'), ['set_rules']],
    ['a condition set', call('PATCH', '/v2/schema/p/e/condition_sets/us'), ['condition_sets', 'set_rules']],
    [
      'a user attribute',
      call('POST', '/v2/schema/p/e/users/attributes'),
      ['condition_sets', 'set_rules', 'user_attributes'],
    ],
    [
      'an element configuration',
      call('PATCH', '/v2/elements/p/e/config/c'),
      ['access_requests', 'elements', 'role_assignments', 'users'],
    ],
    [
      'a group link',
      call('PUT', '/v2/schema/p/e/groups/team:a/assign_group'),
      ['groups', 'relationship_tuples', 'resource_instances', 'resources', 'role_assignments', 'users'],
    ],
    [
      'a 5xx may have written part',
      call('POST', '/v2/facts/p/e/tenants', { status: 500 }),
      [
        'access_requests',
        'groups',
        'relationship_tuples',
        'resource_instances',
        'role_assignments',
        'tenants',
        'users',
      ],
    ],
    ['in flight (written ahead, status 0)', call('DELETE', '/v2/facts/p/e/set_rules', { status: 0 }), ['set_rules']],
  ])('%s', (_name, c, families) => {
    expect(touchedBy(c, SCOPE)).toEqual(families);
  });

  it.each([
    ['a read', call('GET', '/v2/facts/p/e/users')],
    ['a refused write', call('POST', '/v2/facts/p/e/users', { status: 422 })],
    ['a decision', call('POST', '/v2/allowed/bulk')],
    ['another environment (keys in the item)', call('POST', '/v2/facts/p/x/users', { project: 'p', environment: 'x' })],
    ['another environment of the project (path)', call('POST', '/v2/facts/p/other/users')],
    ['another project (keys in the item)', call('POST', '/v2/facts/q/e/users', { project: 'q', environment: 'e' })],
  ])('nothing for %s', (_name, c) => {
    expect(touchedBy(c, SCOPE)).toEqual([]);
  });

  it.each([
    ['an unknown collection', call('POST', '/v2/facts/p/e/something_new')],
    ['a project-level write', call('POST', '/v2/projects/p/envs')],
    ['an unknown area', call('DELETE', '/v2/policy/p/e/x')],
  ])('everything for %s', (_name, c) => {
    expect(touchedBy(c, SCOPE)).toBe('every');
  });

  it('counts a path naming the environment by id as ours (an id cannot be told from a key)', () => {
    expect(touchedBy(call('POST', '/v2/facts/7f1c/9a2b/set_rules'), SCOPE)).toEqual(['set_rules']);
  });
});
