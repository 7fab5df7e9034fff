/** The warning for a user whose listed tenants leave out the tenant of a group they are still in. */
import { describe, expect, it } from 'vitest';
import { brief, validateTexts } from './helpers.js';

const config = (dennis: string) => `tenants: { vela-hq: {}, vela-us: {} }
roles: { viewer: [] }
users:
  dennis: ${dennis}
groups:
  team:hq: { tenant: vela-hq, members: [dennis] }
`;

describe('memberOutsideTenants', () => {
  it.each([
    [
      'tenants moved to vela-us only',
      '{ tenants: [vela-us] }',
      [
        '4:3 users.dennis: user "dennis" is a member of group "team:hq" in tenant "vela-hq", which the user\'s tenants do not list: the membership keeps the user in "vela-hq" [warning]',
      ],
    ],
    ['tenants still list vela-hq', '{ tenants: [vela-us, vela-hq] }', []],
    [
      'a role in vela-hq places the user there',
      '{ tenants: [vela-us], roles: [{ role: viewer, tenant: vela-hq }] }',
      [],
    ],
    ['no tenants listed (placed by memberships alone)', '{}', []],
  ])('%s', (_, dennis, expected) => {
    const r = validateTexts(config(dennis));
    expect(r.errors).toEqual([]);
    expect(r.warnings.filter((w) => w.message.includes('is a member of group')).map(brief)).toEqual(expected);
  });
});
