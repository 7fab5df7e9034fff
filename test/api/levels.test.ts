import { describe, expect, it } from 'vitest';
import { levelsToWrite, reviewerRolesOf, type LevelsRead } from '../../src/api/levels.js';

const role = (key: string) => ({ id: `id-${key}`, key, name: key, resource_id: 'r' });

describe('reviewer roles from roles_to_levels', () => {
  it.each<[string, LevelsRead | undefined, string[]]>([
    ['none', undefined, []],
    ['LEVEL_1 only', { LEVEL_1: [role('admin')] }, ['admin']],
    ['LEVEL_2 only', { LEVEL_2: [role('manager')] }, ['manager']],
    [
      'both, read as objects or keys, each once',
      { LEVEL_1: [role('b'), 'a'], LEVEL_2: ['a', role('c')] },
      ['a', 'b', 'c'],
    ],
    ['LEVEL_3 and LEVEL_4 do not review', { LEVEL_3: [role('auditor')], LEVEL_4: ['viewer'], LEVEL_1: [] }, []],
    ['a null level', { LEVEL_1: null, LEVEL_2: ['m'] }, ['m']],
  ])('%s', (_, levels, roles) => {
    expect(reviewerRolesOf(levels)).toEqual(roles);
  });
});

describe('levels to write for a set of reviewer roles', () => {
  it.each<[string, LevelsRead | undefined, string[], Record<string, string[]>]>([
    ['nothing live: LEVEL_1', undefined, ['b', 'a'], { LEVEL_1: ['a', 'b'], LEVEL_2: [] }],
    [
      'a LEVEL_2 reviewer kept stays at LEVEL_2',
      { LEVEL_1: [role('admin')], LEVEL_2: [role('manager')] },
      ['admin', 'manager'],
      { LEVEL_1: ['admin'], LEVEL_2: ['manager'] },
    ],
    [
      'a LEVEL_2 reviewer not named leaves',
      { LEVEL_1: [role('admin')], LEVEL_2: [role('manager')] },
      ['admin'],
      { LEVEL_1: ['admin'], LEVEL_2: [] },
    ],
    [
      'LEVEL_3 and LEVEL_4 written back as read',
      { LEVEL_1: ['x'], LEVEL_3: [role('auditor')], LEVEL_4: [] },
      ['y'],
      { LEVEL_1: ['y'], LEVEL_2: [], LEVEL_3: ['auditor'], LEVEL_4: [] },
    ],
    [
      'a role at both reviewer levels stays at both',
      { LEVEL_1: ['a'], LEVEL_2: ['a'] },
      ['a'],
      { LEVEL_1: ['a'], LEVEL_2: ['a'] },
    ],
  ])('%s', (_, live, roles, written) => {
    expect(levelsToWrite(live, roles)).toEqual(written);
    // What is written reads back as exactly the roles asked for.
    expect(reviewerRolesOf(written)).toEqual([...new Set(roles)].sort());
  });
});
