import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseDocument } from 'yaml';
import { commentsOf, editUserRoles, type RoleAddition } from '../../src/config/edit-user-roles.js';
import { InternalError } from '../../src/errors.js';

/**
 * Adding roles to users as text: every form a user can be written in, the exact text that results
 * (nothing else in the file moves), and the round trip (same document plus the roles, every comment
 * kept).
 */
const onWebApp: RoleAddition = {
  role: 'maintainer',
  tenant: 'acme',
  on: 'repo:web-app',
  comment: 'adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob',
};
const tenantWide: RoleAddition = { role: 'admin', tenant: 'acme', comment: 'adopted: request r2' };
const edit = (text: string, user: string, ...roles: RoleAddition[]) => editUserRoles(text, new Map([[user, roles]]));

describe('editUserRoles: each way a user is written', () => {
  it.each<[string, string, string]>([
    [
      'a block list of roles: after its last item, at its indentation',
      `users:\n  mindy: # web app\n    tenants: [acme]   # hers\n    roles:\n      - { role: reader, on: repo:web-app } # first\n  bob: {}\n`,
      `users:\n  mindy: # web app\n    tenants: [acme]   # hers\n    roles:\n      - { role: reader, on: repo:web-app } # first\n      # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n      - { role: maintainer, on: repo:web-app }\n  bob: {}\n`,
    ],
    [
      'a block list indented like its key',
      `users:\n  mindy:\n    roles:\n    - reader\n`,
      `users:\n  mindy:\n    roles:\n    - reader\n    # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n    - { role: maintainer, on: repo:web-app }\n`,
    ],
    [
      'no roles: a new block list after the last entry',
      `users:\n  mindy:\n    email: m@x.test\n    tenants: [acme]\n# end\n`,
      `users:\n  mindy:\n    email: m@x.test\n    tenants: [acme]\n    roles:\n      # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n      - { role: maintainer, on: repo:web-app }\n# end\n`,
    ],
    [
      'a flow list of roles: the item goes in it, the comment above the key',
      `users:\n  mindy:\n    roles: [reader]\n`,
      `users:\n  mindy:\n    # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n    roles: [reader, { role: maintainer, on: repo:web-app }]\n`,
    ],
    [
      'a flow mapping with roles',
      `users:\n  bob: { tenants: [acme], roles: [{ role: admin, tenant: acme }] } # the boss\n`,
      `users:\n  # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n  bob: { tenants: [acme], roles: [{ role: admin, tenant: acme }, { role: maintainer, on: repo:web-app }] } # the boss\n`,
    ],
    [
      'a flow mapping without roles',
      `users:\n  carol: { tenants: [acme] }\n`,
      `users:\n  # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n  carol: { tenants: [acme], roles: [{ role: maintainer, on: repo:web-app }] }\n`,
    ],
    [
      'an empty flow mapping',
      `users:\n  erin: {}\n`,
      `users:\n  # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n  erin: { roles: [{ role: maintainer, on: repo:web-app }] }\n`,
    ],
    [
      'no value at all',
      `users:\n  dave: # new\n  erin: {}\n`,
      `users:\n  dave: # new\n    roles:\n      # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n      - { role: maintainer, on: repo:web-app }\n  erin: {}\n`,
    ],
    [
      'an explicit null, at the end of a file without a final newline',
      `users:\n  dave: ~`,
      `users:\n  dave:\n    roles:\n      # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n      - { role: maintainer, on: repo:web-app }`,
    ],
    [
      'an empty roles key',
      `users:\n  frank:\n    roles:\n    tenants: [acme]\n`,
      `users:\n  frank:\n    roles:\n      # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n      - { role: maintainer, on: repo:web-app }\n    tenants: [acme]\n`,
    ],
    [
      'an empty flow list',
      `users:\n  gina:\n    roles: []\n`,
      `users:\n  gina:\n    # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n    roles: [{ role: maintainer, on: repo:web-app }]\n`,
    ],
  ])('%s', (_, before, after) => {
    const user = Object.keys((parseDocument(before).toJS() as { users: object }).users)[0];
    expect(edit(before, user, onWebApp)).toBe(after);
  });

  it('a tenant-wide role is written { role, tenant }; several roles of several users in one pass', () => {
    const before = `users:\n  a:\n    roles:\n      - reader\n  b: { tenants: [acme] }\n`;
    const after = editUserRoles(
      before,
      new Map([
        ['a', [onWebApp, tenantWide]],
        ['b', [tenantWide]],
      ]),
    );
    expect(after).toBe(
      `users:\n  a:\n    roles:\n      - reader\n      # adopted: request r1, approved 2030-01-01T00:00:00.000Z by bob\n      - { role: maintainer, on: repo:web-app }\n      # adopted: request r2\n      - { role: admin, tenant: acme }\n` +
        `  # adopted: request r2\n  b: { tenants: [acme], roles: [{ role: admin, tenant: acme }] }\n`,
    );
  });

  it('refuses a user the file does not declare, and a file that does not parse', () => {
    expect(() => edit('users:\n  a: {}\n', 'zed', onWebApp)).toThrow(InternalError);
    expect(() => edit('users: [\n', 'a', onWebApp)).toThrow(InternalError);
  });
});

describe('the round trip', () => {
  const FILE = [
    '# yaml-language-server: $schema=../schemas/roster.schema.json',
    '# The web team',
    'users:',
    '  # people first',
    '  mindy: # Mindy works on the web app',
    '    tenants: [acme]   # spaced comment',
    '    roles:',
    '      - { role: reader, on: repo:web-app } # hers',
    '      # trailing note',
    '',
    '  bob: { tenants: [acme] } # reviewer',
    '  carol:',
    '    roles: [reader]',
    '  dave:',
    '',
    '# after users',
    'roles:',
    '  reader: [repo:read] # read only',
    '',
  ].join('\n');

  it('keeps every comment and every line of the file, in order', () => {
    const out = editUserRoles(
      FILE,
      new Map([
        ['mindy', [onWebApp]],
        ['bob', [onWebApp]],
        ['carol', [tenantWide]],
        ['dave', [onWebApp]],
      ]),
    );
    expect(commentsOf(parseDocument(out))).toEqual(expect.arrayContaining(commentsOf(parseDocument(FILE))));
    // The original lines are a subsequence of the new ones: nothing was rewritten, only added.
    const lines = out.split('\n');
    let i = 0;
    for (const l of FILE.split('\n')) {
      while (i < lines.length && lines[i] !== l && !lines[i].startsWith(l.replace(/[\]}].*$/, ''))) i++;
      expect(i, `line "${l}" kept`).toBeLessThan(lines.length);
      i++;
    }
  });

  it('property: any set of additions to any of the users gives the same document plus exactly those roles', () => {
    const users = ['mindy', 'bob', 'carol', 'dave'];
    const addition = fc.record({
      role: fc.constantFrom('maintainer', 'reader', 'admin'),
      tenant: fc.constant('acme'),
      on: fc.option(fc.constantFrom('repo:web-app', 'repo:api'), { nil: undefined }),
      comment: fc.constantFrom('adopted: request r1', 'adopted from access request 7 # with a hash'),
    });
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...users), fc.array(addition, { minLength: 1, maxLength: 3 })),
        (adds) => {
          const clean = (a: RoleAddition) =>
            a.on === undefined ? { role: a.role, tenant: a.tenant, comment: a.comment } : a;
          const map = new Map(Object.entries(adds).map(([u, rs]) => [u, rs.map(clean)]));
          // editUserRoles checks the parsed result itself; here: no throw, and the comments kept.
          const out = editUserRoles(FILE, map);
          expect(commentsOf(parseDocument(out))).toEqual(expect.arrayContaining(commentsOf(parseDocument(FILE))));
        },
      ),
      { numRuns: 200 },
    );
  });
});
