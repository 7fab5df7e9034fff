import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/server/store/migrations.js';
import { freshSchema, startTestServer, TEST_DATABASE_URL, TEST_STORE, type TestServer } from '../helpers/server.js';
import { allowed, ok } from './builders.js';

/**
 * Migration 6 (resource roles) over a data directory written by the schema before it (migrations 1-5):
 * every role, assignment and group grant survives, with the same ids, and answers the same decisions.
 * On SQLite the roles table is rebuilt with foreign keys off; a cascade there would have emptied
 * role_assignments and group_grants, which this test would see.
 */

const dirs: string[] = [];
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const AT = '2026-01-01T00:00:00.000Z';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The rows an environment of the old schema held: a resource, roles with extends, a tenant, users, an instance, a group. */
const ROWS: [string, (string | null)[]][] = [
  [`INSERT INTO projects (id, key, created_at) VALUES (?, ?, ?)`, [id(1), 'p', AT]],
  [`INSERT INTO environments (id, project_id, key, created_at) VALUES (?, ?, ?, ?)`, [id(2), id(1), 'e', AT]],
  ...[
    [id(3), 'doc', '{"read":{"id":"' + id(30) + '"},"write":{"id":"' + id(31) + '"}}'],
    [id(4), 'team', '{}'],
  ].map(([rid, key, actions]): [string, (string | null)[]] => [
    `INSERT INTO resources (id, env_id, key, name, description, actions, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, '{}', ?, ?)`,
    [rid, id(2), key, key, actions, AT, AT],
  ]),
  ...[
    [id(5), 'viewer', '["doc:read"]', '[]'],
    [id(6), 'editor', '["doc:write"]', '["viewer"]'],
    [id(7), 'member', '[]', '[]'],
  ].map(([rid, key, perms, ext]): [string, (string | null)[]] => [
    `INSERT INTO roles (id, env_id, key, name, description, permissions, extends, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)`,
    [rid, id(2), key, key, perms, ext, AT, AT],
  ]),
  [
    `INSERT INTO tenants (id, env_id, key, name, description, attributes, created_at, updated_at) VALUES (?, ?, 'acme', 'Acme', NULL, '{}', ?, ?)`,
    [id(8), id(2), AT, AT],
  ],
  ...[
    [id(9), 'alice'],
    [id(10), 'bob'],
  ].map(([uid, key]): [string, (string | null)[]] => [
    `INSERT INTO users (id, env_id, key, email, first_name, last_name, attributes, created_at, updated_at) VALUES (?, ?, ?, NULL, NULL, NULL, '{}', ?, ?)`,
    [uid, id(2), key, AT, AT],
  ]),
  ...[
    [id(11), id(3), 'd1'],
    [id(12), id(4), 'eng'],
  ].map(([iid, rid, key]): [string, (string | null)[]] => [
    `INSERT INTO resource_instances (id, env_id, resource_id, key, tenant_id, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?)`,
    [iid, id(2), rid, key, id(8), AT, AT],
  ]),
  [`INSERT INTO access_groups (id, env_id, instance_id, created_at) VALUES (?, ?, ?, ?)`, [id(13), id(2), id(12), AT]],
  ...[
    [id(14), id(9), id(6), id(11)],
    [id(15), id(10), id(7), id(12)],
    [id(16), id(10), id(5), null],
  ].map(([aid, uid, rid, iid]): [string, (string | null)[]] => [
    `INSERT INTO role_assignments (id, env_id, user_id, role_id, tenant_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [aid, id(2), uid, rid, id(8), iid, AT],
  ]),
  [
    `INSERT INTO group_grants (id, env_id, group_id, role_id, resource_instance_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    [id(17), id(2), id(13), id(6), id(11), AT],
  ],
];

const OLD = migrations.filter((m) => m.id <= 5);
const statementsOf = (m: (typeof migrations)[number]) => (Array.isArray(m.sql) ? m.sql : m.sql.sqlite);
const BOOKKEEPING = [
  `CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
];

/** A data directory as the server before migration 6 left it. */
async function oldDataDir(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roster-migrate-'));
  dirs.push(dir);
  const all = [...BOOKKEEPING, ...OLD.flatMap(statementsOf)];
  const marks = OLD.map((m): [string, (string | null)[]] => [
    `INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)`,
    [String(m.id), m.name, AT],
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

describe('migration 6 over data of the schema before it', () => {
  it('keeps every role, assignment and group grant, and their decisions; then resource roles work', async () => {
    server = await startTestServer({ dataDir: await oldDataDir() });
    const s = server;
    const roles = ok(await s.schema('GET', '/roles')) as {
      id: string;
      key: string;
      permissions: string[];
      extends: string[];
    }[];
    expect(roles.map((r) => [r.id, r.key, r.permissions, r.extends])).toEqual([
      [id(5), 'viewer', ['doc:read'], []],
      [id(6), 'editor', ['doc:write'], ['viewer']],
      [id(7), 'member', [], []],
    ]);
    const assignments = (
      ok(await s.facts('GET', '/role_assignments')) as {
        id: string;
        user: string;
        role: string;
        resource_instance?: string;
      }[]
    ).map((a) => [a.id, a.user, a.role, a.resource_instance]);
    expect(assignments).toEqual([
      [id(14), 'alice', 'editor', 'doc:d1'],
      [id(15), 'bob', 'member', 'team:eng'],
      [id(16), 'bob', 'viewer', undefined],
    ]);
    expect(ok(await s.schema('GET', '/groups/team:eng/roles')).data).toEqual([
      expect.objectContaining({ key: 'editor' }),
    ]);
    expect(await allowed(s, 'alice', 'read', { type: 'doc', key: 'd1' })).toBe(true);
    expect(await allowed(s, 'bob', 'write', { type: 'doc', key: 'd1' })).toBe(true);
    expect(await allowed(s, 'bob', 'read', { type: 'doc', tenant: 'acme' })).toBe(true);
    expect(await allowed(s, 'bob', 'write', { type: 'doc', tenant: 'acme' })).toBe(false);

    // The new keys: a resource role may share a top-level role's key; top-level keys stay unique.
    ok(await s.schema('POST', '/resources/doc/roles', { key: 'viewer', name: 'Doc viewer', permissions: ['read'] }));
    expect(ok(await s.schema('GET', '/resources/doc')).urn).toBeUndefined();
    expect((await s.schema('POST', '/roles', { key: 'viewer', name: 'again' })).status).toBe(409);
    // An environment that existed before keeps its tenants: no `default` appears.
    expect((ok(await s.facts('GET', '/tenants')) as { key: string }[]).map((t) => t.key)).toEqual(['acme']);
  });
});
