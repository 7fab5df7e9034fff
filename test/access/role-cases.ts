/**
 * The worked cases of the role model: one table, each case a small environment and questions with the
 * answers written by hand (never computed by either engine). test/access/role-cases.test.ts asks the
 * access graph; test/server/role-cases.test.ts writes the environment through the public API and asks
 * `roster serve` (/allowed/bulk), on SQLite and PostgreSQL. Both call the rulebook (src/rules); this
 * table is what it must decide. test/access/role-cases-env.ts turns an environment into either input.
 */

export interface RoleSpec {
  /** A top-level role's are `type:action`; a resource role's are its type's actions. */
  permissions: string[];
  extends?: string[];
}

/** `T#R <- on#role via relation`, written on T's role R. */
export interface DerivationSpec {
  role: string;
  on: string;
  via: string;
  noDirect?: boolean;
}

export interface CaseEnv {
  /** Resource types (group types included): actions, resource roles, relations (key → subject type). */
  types: Record<
    string,
    {
      actions?: string[];
      roles?: Record<string, RoleSpec & { derived?: DerivationSpec[] }>;
      relations?: Record<string, string>;
    }
  >;
  /** Top-level roles. */
  roles?: Record<string, RoleSpec>;
  tenants: string[];
  users: string[];
  /** Instance `type:key` → tenant. */
  instances?: Record<string, string>;
  /** Group `type:key` → tenant. */
  groups?: Record<string, string>;
  tuples?: [subject: string, relation: string, object: string][];
  /** In the group's tenant. */
  members?: [user: string, group: string][];
  links?: [child: string, parent: string][];
  /** In the group's tenant. */
  groupRoles?: [group: string, role: string, on: string][];
  tenantRoles?: [user: string, role: string, tenant: string][];
  /** In the instance's tenant. */
  instanceRoles?: [user: string, role: string, on: string][];
  /** Writes the service refuses (the answer is part of the case); the graph never sees them. */
  refused?: {
    members?: [user: string, group: string, tenant: string][];
    links?: [child: string, parent: string][];
    groupRoles?: [group: string, role: string, on: string][];
    instanceRoles?: [user: string, role: string, on: string, tenant: string][];
  };
}

export interface RoleCase {
  name: string;
  env: CaseEnv;
  /** (user, action, instance) and the answer. */
  ask: [user: string, action: string, instance: string, allowed: boolean][];
}

const DOCS = { actions: ['read', 'write', 'delete'] };
const TEAM = { team: {} };

export const ROLE_CASES: RoleCase[] = [
  {
    name: 'a top-level role on an instance grants its `type:action` permissions there only',
    env: {
      types: { document: DOCS, folder: DOCS },
      roles: { admin: { permissions: ['document:read', 'folder:write'] } },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'document:d1': 't1', 'document:d2': 't1' },
      instanceRoles: [['alice', 'admin', 'document:d1']],
    },
    ask: [
      ['alice', 'read', 'document:d1', true],
      ['alice', 'write', 'document:d1', false], // folder:write says nothing about a document
      ['alice', 'read', 'document:d2', false],
      ['bob', 'read', 'document:d1', false],
      ['alice', 'read', 'document:x9', false], // never created
    ],
  },
  {
    name: 'top-level `extends`, transitively',
    env: {
      types: { document: DOCS },
      roles: {
        reader: { permissions: ['document:read'] },
        writer: { permissions: ['document:write'], extends: ['reader'] },
        owner: { permissions: ['document:delete'], extends: ['writer'] },
      },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'document:d1': 't1' },
      instanceRoles: [
        ['alice', 'owner', 'document:d1'],
        ['bob', 'writer', 'document:d1'],
      ],
    },
    ask: [
      ['alice', 'read', 'document:d1', true],
      ['alice', 'write', 'document:d1', true],
      ['alice', 'delete', 'document:d1', true],
      ['bob', 'read', 'document:d1', true],
      ['bob', 'delete', 'document:d1', false], // extends goes up, never down
    ],
  },
  {
    name: 'resource-role `extends` stays within its resource; a resource role grants on its own type only',
    env: {
      types: {
        document: {
          ...DOCS,
          roles: { viewer: { permissions: ['read'] }, editor: { permissions: ['write'], extends: ['viewer'] } },
        },
        folder: { ...DOCS, roles: { viewer: { permissions: ['read', 'delete'] } } },
      },
      tenants: ['t1'],
      users: ['alice'],
      instances: { 'document:d1': 't1', 'folder:f1': 't1' },
      instanceRoles: [['alice', 'editor', 'document:d1']],
    },
    ask: [
      ['alice', 'write', 'document:d1', true],
      ['alice', 'read', 'document:d1', true],
      ['alice', 'delete', 'document:d1', false], // folder#viewer's delete is not document#viewer's
      ['alice', 'read', 'folder:f1', false],
    ],
  },
  {
    name: 'a key that is both a top-level and a resource role: on an instance it names the resource role',
    env: {
      types: { document: { ...DOCS, roles: { viewer: { permissions: ['read'] } } }, folder: DOCS },
      roles: { viewer: { permissions: ['document:write', 'folder:read'] } },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'document:d1': 't1', 'folder:f1': 't1' },
      instanceRoles: [
        ['alice', 'viewer', 'document:d1'],
        ['bob', 'viewer', 'folder:f1'],
      ],
      tenantRoles: [],
    },
    ask: [
      ['alice', 'read', 'document:d1', true],
      ['alice', 'write', 'document:d1', false], // the top-level viewer's document:write is not held
      ['bob', 'read', 'folder:f1', true], // folder has no resource role viewer: the top-level one
    ],
  },
  {
    name: 'tenant-wide roles: every instance of their tenant, none of another',
    env: {
      types: { document: DOCS },
      roles: { auditor: { permissions: ['document:read'] } },
      tenants: ['t1', 't2'],
      users: ['alice'],
      instances: { 'document:d1': 't1', 'document:d2': 't2' },
      tenantRoles: [['alice', 'auditor', 't1']],
    },
    ask: [
      ['alice', 'read', 'document:d1', true],
      ['alice', 'write', 'document:d1', false],
      ['alice', 'read', 'document:d2', false],
      ['alice', 'read', 'document:x9', false], // a missing instance is in no tenant
    ],
  },
  {
    name: "groups of groups: a member of a group holds the group's roles and those of every group it is linked into",
    env: {
      types: {
        ...TEAM,
        document: { ...DOCS, roles: { viewer: { permissions: ['read'] }, editor: { permissions: ['write'] } } },
      },
      tenants: ['t1'],
      users: ['alice', 'bob', 'carol'],
      instances: { 'document:d1': 't1', 'document:d2': 't1' },
      groups: { 'team:a': 't1', 'team:b': 't1', 'team:c': 't1' },
      links: [
        ['team:a', 'team:b'],
        ['team:b', 'team:c'],
      ],
      members: [
        ['alice', 'team:a'],
        ['bob', 'team:c'],
      ],
      groupRoles: [
        ['team:c', 'viewer', 'document:d1'],
        ['team:b', 'editor', 'document:d2'],
      ],
    },
    ask: [
      ['alice', 'read', 'document:d1', true], // a → b → c
      ['alice', 'write', 'document:d2', true], // a → b
      ['bob', 'read', 'document:d1', true],
      ['bob', 'write', 'document:d2', false], // c's members are not b's
      ['carol', 'read', 'document:d1', false],
    ],
  },
  {
    name: 'a group given a top-level role on an instance: its members hold it there',
    env: {
      types: { ...TEAM, document: DOCS },
      roles: { editor: { permissions: ['document:write', 'document:read'] } },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'document:d1': 't1', 'document:d2': 't1' },
      groups: { 'team:a': 't1', 'team:b': 't1' },
      links: [['team:b', 'team:a']],
      members: [['alice', 'team:b']],
      groupRoles: [['team:a', 'editor', 'document:d1']],
    },
    ask: [
      ['alice', 'write', 'document:d1', true],
      ['alice', 'read', 'document:d1', true],
      ['alice', 'write', 'document:d2', false],
      ['bob', 'write', 'document:d1', false],
    ],
  },
  {
    name: 'a link that would close a cycle is refused; the links before it hold',
    env: {
      types: { ...TEAM, document: { ...DOCS, roles: { viewer: { permissions: ['read'] } } } },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'document:d1': 't1', 'document:d2': 't1' },
      groups: { 'team:a': 't1', 'team:b': 't1' },
      links: [['team:a', 'team:b']],
      members: [
        ['alice', 'team:a'],
        ['bob', 'team:b'],
      ],
      groupRoles: [
        ['team:a', 'viewer', 'document:d1'],
        ['team:b', 'viewer', 'document:d2'],
      ],
      refused: { links: [['team:b', 'team:a']] },
    },
    ask: [
      ['alice', 'read', 'document:d2', true],
      ['alice', 'read', 'document:d1', true],
      ['bob', 'read', 'document:d1', false],
      ['bob', 'read', 'document:d2', true],
    ],
  },
  {
    name: '`member` given on a group makes members of it, cycles included (the service takes a `member` cycle)',
    env: {
      types: {
        ...TEAM,
        document: { ...DOCS, roles: { viewer: { permissions: ['read'] }, editor: { permissions: ['write'] } } },
      },
      tenants: ['t1'],
      users: ['alice', 'bob', 'carol'],
      instances: { 'document:d1': 't1', 'document:d2': 't1' },
      groups: { 'team:a': 't1', 'team:b': 't1', 'team:c': 't1' },
      members: [
        ['alice', 'team:a'],
        ['bob', 'team:b'],
        ['carol', 'team:c'],
      ],
      groupRoles: [
        ['team:a', 'member', 'team:b'],
        ['team:b', 'member', 'team:a'],
        ['team:b', 'viewer', 'document:d1'],
        ['team:a', 'editor', 'document:d2'],
        ['team:c', 'viewer', 'document:d2'],
      ],
    },
    ask: [
      ['alice', 'read', 'document:d1', true], // a is a member of b
      ['alice', 'write', 'document:d2', true],
      ['bob', 'write', 'document:d2', true], // b is a member of a
      ['bob', 'read', 'document:d1', true],
      ['bob', 'read', 'document:d2', false], // nobody made c's members anyone else's, nor the reverse
      ['carol', 'read', 'document:d1', false],
      ['carol', 'read', 'document:d2', true],
    ],
  },
  {
    name: 'a derivation from `team#member`: members directly, through a link and through `member` given on the team',
    env: {
      types: {
        ...TEAM,
        folder: {
          actions: ['read'],
          relations: { owner_team: 'team' },
          roles: { viewer: { permissions: ['read'], derived: [{ role: 'member', on: 'team', via: 'owner_team' }] } },
        },
      },
      tenants: ['t1'],
      users: ['u0', 'u1', 'u2', 'u3'],
      instances: { 'folder:f0': 't1', 'folder:f1': 't1' },
      groups: { 'team:a': 't1', 'team:b': 't1', 'team:c': 't1' },
      tuples: [['team:b', 'owner_team', 'folder:f0']],
      links: [['team:a', 'team:b']],
      groupRoles: [['team:c', 'member', 'team:b']],
      members: [
        ['u0', 'team:a'],
        ['u1', 'team:b'],
        ['u2', 'team:c'],
      ],
    },
    ask: [
      ['u0', 'read', 'folder:f0', true],
      ['u1', 'read', 'folder:f0', true],
      ['u2', 'read', 'folder:f0', true],
      ['u3', 'read', 'folder:f0', false],
      ['u1', 'read', 'folder:f1', false], // no tuple to f1
    ],
  },
  {
    name: '`member` with permissions: held on the group by its members, those of groups linked or given `member` into it included',
    env: {
      types: { team: { actions: ['read'], roles: { member: { permissions: ['read'] } } } },
      tenants: ['t1'],
      users: ['u0', 'u1', 'u2', 'u3'],
      groups: { 'team:a': 't1', 'team:b': 't1', 'team:c': 't1' },
      links: [['team:a', 'team:b']],
      groupRoles: [['team:c', 'member', 'team:b']],
      members: [
        ['u0', 'team:a'],
        ['u1', 'team:b'],
        ['u2', 'team:c'],
      ],
    },
    ask: [
      ['u1', 'read', 'team:b', true],
      ['u0', 'read', 'team:b', true], // a member of b through the link, for every purpose
      ['u2', 'read', 'team:b', true], // c was given member on b
      ['u0', 'read', 'team:a', true],
      ['u1', 'read', 'team:a', false],
      ['u3', 'read', 'team:b', false],
    ],
  },
  {
    name: '`member` granting through `extends` only',
    env: {
      types: {
        team: {
          actions: ['read'],
          roles: { reader: { permissions: ['read'] }, member: { permissions: [], extends: ['reader'] } },
        },
      },
      tenants: ['t1'],
      users: ['u0', 'u1'],
      groups: { 'team:a': 't1', 'team:b': 't1' },
      links: [['team:a', 'team:b']],
      members: [['u0', 'team:a']],
    },
    ask: [
      ['u0', 'read', 'team:a', true],
      ['u0', 'read', 'team:b', true],
      ['u1', 'read', 'team:a', false],
    ],
  },
  {
    name: 'derivations over tuples chain through folders in folders, downwards only',
    env: {
      types: {
        folder: {
          ...DOCS,
          relations: { parent: 'folder' },
          roles: { editor: { permissions: ['write'], derived: [{ role: 'editor', on: 'folder', via: 'parent' }] } },
        },
        document: {
          ...DOCS,
          relations: { parent: 'folder' },
          roles: { editor: { permissions: ['write'], derived: [{ role: 'editor', on: 'folder', via: 'parent' }] } },
        },
      },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'folder:f1': 't1', 'folder:f2': 't1', 'document:d1': 't1' },
      tuples: [
        ['folder:f1', 'parent', 'folder:f2'],
        ['folder:f2', 'parent', 'document:d1'],
      ],
      instanceRoles: [
        ['alice', 'editor', 'folder:f1'],
        ['bob', 'editor', 'folder:f2'],
      ],
    },
    ask: [
      ['alice', 'write', 'folder:f2', true],
      ['alice', 'write', 'document:d1', true], // f1 → f2 → d1
      ['alice', 'read', 'document:d1', false], // document#editor writes only
      ['bob', 'write', 'document:d1', true],
      ['bob', 'write', 'folder:f1', false], // tuples carry roles to their object, not back
    ],
  },
  {
    name: '`no_direct_roles_on_object`: a direct role on the object stops the rule; group and tenant-wide roles do not',
    env: {
      types: {
        ...TEAM,
        folder: { ...DOCS, roles: { editor: { permissions: ['write'] } } },
        document: {
          ...DOCS,
          relations: { parent: 'folder' },
          roles: {
            viewer: { permissions: ['read'] },
            editor: {
              permissions: ['write'],
              derived: [{ role: 'editor', on: 'folder', via: 'parent', noDirect: true }],
            },
          },
        },
      },
      roles: { auditor: { permissions: ['document:read'] } },
      tenants: ['t1'],
      users: ['alice', 'bob', 'carol', 'dave'],
      instances: { 'folder:f1': 't1', 'document:d1': 't1', 'document:d2': 't1' },
      groups: { 'team:a': 't1' },
      tuples: [
        ['folder:f1', 'parent', 'document:d1'],
        ['folder:f1', 'parent', 'document:d2'],
      ],
      members: [['carol', 'team:a']],
      groupRoles: [
        ['team:a', 'viewer', 'document:d1'],
        ['team:a', 'editor', 'folder:f1'],
      ],
      tenantRoles: [['dave', 'auditor', 't1']],
      instanceRoles: [
        ['alice', 'editor', 'folder:f1'],
        ['alice', 'viewer', 'document:d1'],
        ['bob', 'editor', 'folder:f1'],
        ['dave', 'editor', 'folder:f1'],
      ],
    },
    ask: [
      ['alice', 'write', 'document:d1', false], // her viewer on d1 is direct
      ['alice', 'read', 'document:d1', true],
      ['alice', 'write', 'document:d2', true],
      ['bob', 'write', 'document:d1', true],
      ['carol', 'write', 'document:d1', true], // her viewer on d1 is through a group
      ['dave', 'write', 'document:d1', true], // his auditor is tenant-wide
      ['dave', 'read', 'document:d2', true],
    ],
  },
  {
    name: 'a role a group holds on a folder derives onto its documents for the members',
    env: {
      types: {
        ...TEAM,
        folder: { ...DOCS, roles: { editor: { permissions: ['write'] } } },
        document: {
          ...DOCS,
          relations: { parent: 'folder' },
          roles: { editor: { permissions: ['write'], derived: [{ role: 'editor', on: 'folder', via: 'parent' }] } },
        },
      },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'folder:f1': 't1', 'document:d1': 't1' },
      groups: { 'team:a': 't1', 'team:b': 't1' },
      tuples: [['folder:f1', 'parent', 'document:d1']],
      links: [['team:b', 'team:a']],
      members: [['alice', 'team:b']],
      groupRoles: [['team:a', 'editor', 'folder:f1']],
    },
    ask: [
      ['alice', 'write', 'folder:f1', true],
      ['alice', 'write', 'document:d1', true],
      ['bob', 'write', 'document:d1', false],
    ],
  },
  {
    name: 'a role held tenant-wide feeds no derivation; the same role assigned on the subject does',
    env: {
      types: {
        folder: { ...DOCS, relations: { parent: 'folder' } },
        document: {
          ...DOCS,
          relations: { parent: 'folder' },
          roles: { reader: { permissions: ['read'], derived: [{ role: 'auditor', on: 'folder', via: 'parent' }] } },
        },
      },
      // A top-level role at the deriving end: the service takes one when the type has no resource role of the key.
      roles: { auditor: { permissions: ['folder:write'] } },
      tenants: ['t1'],
      users: ['alice', 'bob'],
      instances: { 'folder:f1': 't1', 'document:d1': 't1' },
      tuples: [['folder:f1', 'parent', 'document:d1']],
      tenantRoles: [['alice', 'auditor', 't1']],
      instanceRoles: [['bob', 'auditor', 'folder:f1']],
    },
    ask: [
      ['alice', 'write', 'folder:f1', true],
      ['alice', 'read', 'document:d1', false], // held on no instance: nothing to derive from
      ['bob', 'write', 'folder:f1', true],
      ['bob', 'read', 'document:d1', true],
    ],
  },
  {
    name: 'cross-tenant attempts are refused and grant nothing',
    env: {
      types: { ...TEAM, document: { ...DOCS, roles: { viewer: { permissions: ['read'] } } } },
      roles: { auditor: { permissions: ['document:read'] } },
      tenants: ['t1', 't2'],
      users: ['alice', 'bob', 'carol'],
      instances: { 'document:d1': 't1', 'document:d2': 't2' },
      groups: { 'team:a': 't1', 'team:x': 't2' },
      members: [['carol', 'team:x']],
      groupRoles: [
        ['team:a', 'viewer', 'document:d1'],
        ['team:x', 'viewer', 'document:d2'],
      ],
      tenantRoles: [['bob', 'auditor', 't1']],
      refused: {
        members: [['alice', 'team:a', 't2']],
        links: [['team:x', 'team:a']],
        groupRoles: [['team:a', 'viewer', 'document:d2']],
        instanceRoles: [['alice', 'viewer', 'document:d2', 't1']],
      },
    },
    ask: [
      ['alice', 'read', 'document:d1', false],
      ['alice', 'read', 'document:d2', false],
      ['carol', 'read', 'document:d1', false],
      ['carol', 'read', 'document:d2', true],
      ['bob', 'read', 'document:d1', true],
      ['bob', 'read', 'document:d2', false], // tenant-wide in t1 only
    ],
  },
];
