import { describe, expect, it } from 'vitest';
import { isCreated, normalizeStatus, pickId } from '../../src/api/tolerance.js';

describe('normalizeStatus', () => {
  it.each([
    [null, 'pending'],
    [undefined, 'pending'],
    ['pending', 'pending'],
    ['approved', 'approved'],
    ['deny', 'denied'],
    ['denied', 'denied'],
    ['cancel', 'canceled'],
    ['canceled', 'canceled'],
    ['cancelled', 'canceled'],
    ['Approved ', 'approved'],
    ['exploded', undefined],
  ] as const)('%j → %j', (input, expected) => {
    expect(normalizeStatus(input)).toBe(expected);
  });
});

describe('pickId', () => {
  it('reads either spelling, preferring the one asked for', () => {
    expect(pickId({ org_id: 'o1' }, 'organization_id')).toBe('o1');
    expect(pickId({ organization_id: 'o2' }, 'org_id')).toBe('o2');
    expect(pickId({ env_id: 'e1', environment_id: 'e2' }, 'environment_id')).toBe('e2');
    expect(pickId({ env_id: 'e1', environment_id: 'e2' }, 'env_id')).toBe('e1');
    expect(pickId({ project_id: 'p1' }, 'project_id')).toBe('p1');
    expect(pickId({ proj_id: 'p2' }, 'project_id')).toBe('p2');
  });

  it('gives undefined when neither is there', () => {
    expect(pickId({}, 'org_id')).toBeUndefined();
    expect(pickId(null, 'org_id')).toBeUndefined();
    expect(pickId({ org_id: '' }, 'org_id')).toBeUndefined();
  });
});

describe('isCreated', () => {
  it('accepts 200 and 201 only', () => {
    expect([200, 201, 202, 204, 409].map(isCreated)).toEqual([true, true, false, false, false]);
  });
});
