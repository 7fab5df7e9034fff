import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/server/store/migrations.js';
import { freshSchema, startTestServer, TEST_DATABASE_URL, TEST_STORE, type TestServer } from '../helpers/server.js';
import { addMember, allPages, allowed, ok } from './builders.js';

/**
 * Migration 9 over a data directory written by the schema before it (migrations 1-8), as the server
 * then wrote it: membership as the top-level role `member` on the group's instance (made by the server
 * with the first group), a link, a group given `member` on another group, a group grant with its
 * derivation from `member`, a derivation from `team#member` over a tuple (`member` resolved to the
 * top-level role, `team` having no resource role then), and a derived role's `when` kept on the role.
 */

const dirs: string[] = [];
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const AT = '2026-01-01T00:00:00.000Z';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
type Row = [string, (string | number | null)[]];

const ENV = id(2);
const [DOC, TEAM, FOLDER] = [id(3), id(4), id(5)];
const [EDITOR, MEMBER, FOLDER_VIEWER] = [id(6), id(7), id(8)];
const TENANT = id(9);
const [ALICE, BOB, CAROL, DAN] = [id(10), id(11), id(12), id(13)];
const [D1, ENG, OPS, CORE, F] = [id(20), id(21), id(22), id(23), id(24)];
const [G_ENG, G_OPS, G_CORE] = [id(31), id(32), id(33)];
const [REL_TEAM_GROUP, REL_GROUP, REL_OWNER] = [id(40), id(41), id(42)];

const ROWS: Row[] = [
  [`INSERT INTO projects (id, key, created_at) VALUES (?, ?, ?)`, [id(1), 'p', AT]],
  [`INSERT INTO environments (id, project_id, key, created_at) VALUES (?, ?, ?, ?)`, [ENV, id(1), 'e', AT]],
  ...(
    [
      [DOC, 'doc', '{"read":{},"write":{}}'],
      [TEAM, 'team', '{"see":{}}'],
      [FOLDER, 'folder', '{"read":{}}'],
    ] as const
  ).map(([rid, key, actions]): Row => [
    `INSERT INTO resources (id, env_id, key, name, description, actions, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, '{}', ?, ?)`,
    [rid, ENV, key, key, actions, AT, AT],
  ]),
  // editor: a top-level role whose derived-role `when` was set on the role row (migration 8's place).
  ...(
    [
      [EDITOR, null, 'editor', null, '["doc:write","doc:read"]', 1],
      [MEMBER, null, 'member', 'Membership of a group', '[]', 0],
      [FOLDER_VIEWER, FOLDER, 'viewer', null, '["read"]', 0],
    ] as const
  ).map(([rid, resource, key, description, perms, noDirect]): Row => [
    `INSERT INTO roles (id, env_id, resource_id, key, name, description, permissions, extends, created_at, updated_at, derivation_no_direct_roles)
     VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?)`,
    [rid, ENV, resource, key, key, description, perms, AT, AT, noDirect],
  ]),
  [
    `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, 'acme', 'Acme', NULL, '{}', ?, ?)`,
    [TENANT, ENV, AT, AT],
  ],
  ...(
    [
      [ALICE, 'alice'],
      [BOB, 'bob'],
      [CAROL, 'carol'],
      [DAN, 'dan'],
    ] as const
  ).map(([uid, key]): Row => [
    `INSERT INTO users (id, env_id, key, email, first_name, last_name, attributes, created_at, updated_at) VALUES (?, ?, ?, NULL, NULL, NULL, '{}', ?, ?)`,
    [uid, ENV, key, AT, AT],
  ]),
  ...(
    [
      [D1, DOC, 'd1'],
      [ENG, TEAM, 'eng'],
      [OPS, TEAM, 'ops'],
      [CORE, TEAM, 'core'],
      [F, FOLDER, 'f'],
    ] as const
  ).map(([iid, rid, key]): Row => [
    `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?)`,
    [iid, ENV, rid, key, TENANT, AT, AT],
  ]),
  ...(
    [
      [G_ENG, ENG],
      [G_OPS, OPS],
      [G_CORE, CORE],
    ] as const
  ).map(([gid, iid]): Row => [
    `INSERT INTO access_groups (id, env_id, instance_id, created_at) VALUES (?, ?, ?, ?)`,
    [gid, ENV, iid, AT],
  ]),
  // Memberships: alice in eng, bob in ops, carol in core (the top-level `member` on the group's instance).
  ...(
    [
      [id(50), ALICE, ENG],
      [id(51), BOB, OPS],
      [id(52), CAROL, CORE],
    ] as const
  ).map(([aid, uid, iid]): Row => [
    `INSERT INTO role_assignments (id, env_id, user_id, role_id, tenant_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [aid, ENV, uid, MEMBER, TENANT, iid, AT],
  ]),
  // ops linked into eng, with its records.
  [`INSERT INTO group_links (child_id, parent_id, created_at) VALUES (?, ?, ?)`, [G_OPS, G_ENG, AT]],
  ...(
    [
      [REL_TEAM_GROUP, DOC, 'team_group', TEAM],
      [REL_GROUP, TEAM, 'group', TEAM],
      [REL_OWNER, FOLDER, 'owner_team', TEAM],
    ] as const
  ).map(([rid, object, key, subject]): Row => [
    `INSERT INTO relations (id, env_id, object_resource_id, key, name, description, subject_resource_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
    [rid, ENV, object, key, key, subject, AT, AT],
  ]),
  // core given `member` on eng; eng given editor on doc:d1.
  [
    `INSERT INTO group_grants (id, env_id, group_id, role_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    [id(60), ENV, G_CORE, MEMBER, ENG, AT],
  ],
  [
    `INSERT INTO group_grants (id, env_id, group_id, role_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    [id(61), ENV, G_ENG, EDITOR, D1, AT],
  ],
  // Derivations: the group machinery's (doc#editor <- team#member via team_group; team#member <- team#member
  // via group; team#member <- team#member via team_group for core's grant) and a user's (folder#viewer <- team#member via owner_team).
  ...(
    [
      [id(70), DOC, EDITOR, TEAM, MEMBER, REL_TEAM_GROUP],
      [id(71), TEAM, MEMBER, TEAM, MEMBER, REL_GROUP],
      [id(72), FOLDER, FOLDER_VIEWER, TEAM, MEMBER, REL_OWNER],
    ] as const
  ).map(([gid, resource, role, on, linked, rel]): Row => [
    `INSERT INTO implicit_grants (id, env_id, resource_id, role_id, on_resource_id, linked_role_id, relation_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [gid, ENV, resource, role, on, linked, rel, AT],
  ]),
  ...(
    [
      [id(80), OPS, 'group', ENG],
      [id(81), ENG, 'team_group', D1],
      [id(82), ENG, 'owner_team', F],
    ] as const
  ).map(([tid, subject, relation, object]): Row => [
    `INSERT INTO relationship_tuples (id, env_id, subject_id, relation, object_id, tenant_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [tid, ENV, subject, relation, object, TENANT, AT],
  ]),
];

const OLD = migrations.filter((m) => m.id <= 8);
const statementsOf = (m: (typeof migrations)[number]) => (Array.isArray(m.sql) ? m.sql : m.sql[TEST_STORE]);
const BOOKKEEPING = [
  `CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
];

/** A data directory (or PostgreSQL schema) as the server before migration 9 left it. */
async function oldDataDir(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-migrate9-'));
  dirs.push(dir);
  const all = [...BOOKKEEPING, ...OLD.flatMap(statementsOf)];
  const marks = OLD.map((m): Row => [
    `INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)`,
    [m.id, m.name, AT],
  ]);
  if (TEST_STORE === 'sqlite') {
    const db = new Database(path.join(dir, 'roster.db'));
    db.pragma('foreign_keys = ON');
    for (const sql of all) db.exec(sql);
    for (const [sql, params] of [...marks, ...ROWS]) db.prepare(sql).run(...params);
    db.close();
    return dir;
  }
  const schema = freshSchema();
  writeFileSync(path.join(dir, 'pg-schema'), schema);
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET search_path = ${schema}`);
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    for (const sql of all) await client.query(sql);
    for (const [sql, params] of [...marks, ...ROWS]) await client.query(numbered(sql), params);
  } finally {
    await client.end();
  }
  return dir;
}

describe('migration 9 over data of the schema before it', () => {
  it('moves memberships to team#member and keeps every decision; then the new scheme works', async () => {
    server = await startTestServer({ dataDir: await oldDataDir() });
    const s = server;
    const member = ok(await s.schema('GET', '/resources/team/roles/member'));
    expect(member).toMatchObject({ key: 'member', resource: 'team', permissions: [] });
    // The server-made top-level `member` is gone: nothing names it any more.
    expect((await s.schema('GET', '/roles/member')).status).toBe(404);

    // Memberships keep their ids and read as the resource role.
    const rows = ok(await s.facts('GET', '/role_assignments?role=member')) as {
      id: string;
      user: string;
      role: string;
      role_id: string;
      resource_instance: string;
    }[];
    expect(rows.map((a) => [a.id, a.user, a.role_id, a.resource_instance]).sort()).toEqual([
      [id(50), 'alice', member.id, 'team:eng'],
      [id(51), 'bob', member.id, 'team:ops'],
      [id(52), 'carol', member.id, 'team:core'],
    ]);
    expect(ok(await s.schema('GET', '/groups/team:core/roles')).data).toEqual([
      expect.objectContaining({
        key: 'member',
        resource: expect.objectContaining({ key: 'team' }),
        resource_instance: expect.objectContaining({ key: 'eng' }),
      }),
    ]);
    expect(ok(await s.schema('GET', '/resources/doc/roles/editor/implicit_grants'))).toEqual([
      expect.objectContaining({ role: 'member', role_id: member.id, on_resource: 'team' }),
    ]);
    expect(ok(await s.schema('GET', '/resources/folder/roles/viewer/implicit_grants'))).toEqual([
      expect.objectContaining({ role: 'member', role_id: member.id, linked_by_relation: 'owner_team' }),
    ]);

    // Decisions: eng's grant reaches alice, bob (ops linked into eng) and carol (core given member on eng);
    // so does the derivation from team#member over the owner_team tuple.
    for (const u of ['alice', 'bob', 'carol']) {
      expect(await allowed(s, u, 'write', { type: 'doc', key: 'd1' }), u).toBe(true);
      expect(await allowed(s, u, 'read', { type: 'folder', key: 'f' }), u).toBe(true);
    }
    expect(await allowed(s, 'dan', 'write', { type: 'doc', key: 'd1' })).toBe(false);
    expect(
      (await allPages<{ key: string }>(s, '/v2/schema/p/e/groups/team:eng/users?nested=true')).map((u) => u.key),
    ).toEqual(['alice', 'bob', 'carol']);
    expect((await allPages<{ key: string }>(s, '/v2/schema/p/e/groups/team:eng/users')).map((u) => u.key)).toEqual([
      'alice',
    ]);

    // The derived role's `when` moved to (doc, editor).
    expect(ok(await s.schema('GET', '/resources/doc')).roles.editor.granted_to.when).toEqual({
      no_direct_roles_on_object: true,
    });

    // New memberships use the resource role.
    await addMember(s, 'team:eng', 'dan', 'acme');
    expect(await allowed(s, 'dan', 'write', { type: 'doc', key: 'd1' })).toBe(true);
    expect(ok(await s.facts('GET', '/role_assignments?user=dan'))).toEqual([
      expect.objectContaining({ role: 'member', role_id: member.id }),
    ]);
  });
});
