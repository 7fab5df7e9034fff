/**
 * Schema migrations, in order, in SQL that SQLite and PostgreSQL both accept. Never edit a released
 * migration: add a new one. Ids are TEXT (uuid), timestamps TEXT (ISO 8601 UTC), JSON TEXT.
 * Foreign keys cascade so that nothing dangles: deleting a user removes their memberships and role
 * assignments, deleting an instance its assignments, tuples and group grants, and so on.
 */
import type { Queryable } from './db.js';
import { migrateMembership } from './migration-membership.js';

/** Migration 6's keys: unique among top-level roles, and among each resource's roles; a resource's roles listed in order. */
const ROLE_KEYS = [
  `CREATE UNIQUE INDEX roles_top_key ON roles (env_id, key) WHERE resource_id IS NULL`,
  `CREATE UNIQUE INDEX roles_resource_key ON roles (resource_id, key) WHERE resource_id IS NOT NULL`,
  `CREATE INDEX roles_resource ON roles (resource_id, created_at, id)`,
];

/** Migration 6's public `ResourceCreate` fields: the resource's URN and its free-form `type_attributes` (JSON). */
const RESOURCE_FIELDS = [
  `ALTER TABLE resources ADD COLUMN urn TEXT`,
  `ALTER TABLE resources ADD COLUMN type_attributes TEXT`,
];

export interface Migration {
  id: number;
  name: string;
  /** Statements for both stores, or per dialect where they cannot share SQL (see migration 6). */
  sql: string[] | { sqlite: string[]; postgres: string[] };
  /**
   * SQLite only: run with foreign-key enforcement off (`Db.withoutForeignKeys`), as SQLite's own recipe
   * for changing a table's constraints requires: create the new table, copy, drop the old one, rename.
   * With enforcement on, dropping `roles` would cascade into every assignment and grant. The runner checks
   * `PRAGMA foreign_key_check` before committing.
   */
  foreignKeysOff?: boolean;
  /** Data moved by code after the statements, in the same transaction (rows that need new ids, per group type). */
  run?: (tx: Queryable, dialect: 'sqlite' | 'postgres') => Promise<void>;
}

export const migrations: Migration[] = [
  {
    id: 1,
    name: 'facts, schema objects and groups',
    sql: [
      `CREATE TABLE projects (id TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL)`,
      `CREATE TABLE environments (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        key TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE (project_id, key))`,
      `CREATE TABLE resources (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        key TEXT NOT NULL, name TEXT NOT NULL, description TEXT, actions TEXT NOT NULL, attributes TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, key))`,
      `CREATE TABLE roles (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        key TEXT NOT NULL, name TEXT NOT NULL, description TEXT, permissions TEXT NOT NULL, extends TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, key))`,
      `CREATE TABLE tenants (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        key TEXT NOT NULL, name TEXT NOT NULL, description TEXT, attributes TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, key))`,
      `CREATE TABLE users (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        key TEXT NOT NULL, email TEXT, first_name TEXT, last_name TEXT, attributes TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, key))`,
      `CREATE TABLE tenant_users (tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, created_at TEXT NOT NULL, PRIMARY KEY (tenant_id, user_id))`,
      `CREATE INDEX tenant_users_user ON tenant_users (user_id)`,
      `CREATE TABLE resource_instances (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE, key TEXT NOT NULL,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE, attributes TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (resource_id, key))`,
      `CREATE INDEX resource_instances_env ON resource_instances (env_id, created_at, id)`,
      `CREATE INDEX resource_instances_tenant ON resource_instances (tenant_id)`,
      `CREATE TABLE role_assignments (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        resource_instance_id TEXT REFERENCES resource_instances(id) ON DELETE CASCADE, created_at TEXT NOT NULL)`,
      // NULLs are distinct in a UNIQUE constraint, so tenant-wide assignments are made unique through COALESCE.
      `CREATE UNIQUE INDEX role_assignments_unique ON role_assignments (user_id, role_id, tenant_id, COALESCE(resource_instance_id, ''))`,
      `CREATE INDEX role_assignments_env ON role_assignments (env_id, created_at, id)`,
      `CREATE INDEX role_assignments_instance ON role_assignments (resource_instance_id, role_id, user_id)`,
      `CREATE INDEX role_assignments_tenant ON role_assignments (tenant_id, user_id)`,
      `CREATE INDEX role_assignments_role ON role_assignments (role_id)`,
      `CREATE TABLE relations (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        object_resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE, key TEXT NOT NULL, name TEXT NOT NULL,
        description TEXT, subject_resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (object_resource_id, key))`,
      `CREATE TABLE implicit_grants (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE, role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
        on_resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
        linked_role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
        relation_id TEXT NOT NULL REFERENCES relations(id) ON DELETE CASCADE, created_at TEXT NOT NULL,
        UNIQUE (resource_id, role_id, on_resource_id, linked_role_id, relation_id))`,
      `CREATE TABLE relationship_tuples (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        subject_id TEXT NOT NULL REFERENCES resource_instances(id) ON DELETE CASCADE, relation TEXT NOT NULL,
        object_id TEXT NOT NULL REFERENCES resource_instances(id) ON DELETE CASCADE,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE, created_at TEXT NOT NULL,
        UNIQUE (subject_id, relation, object_id))`,
      `CREATE INDEX relationship_tuples_env ON relationship_tuples (env_id, created_at, id)`,
      `CREATE INDEX relationship_tuples_object ON relationship_tuples (object_id)`,
      `CREATE TABLE access_groups (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        instance_id TEXT NOT NULL UNIQUE REFERENCES resource_instances(id) ON DELETE CASCADE, created_at TEXT NOT NULL)`,
      `CREATE INDEX access_groups_env ON access_groups (env_id, created_at, id)`,
      `CREATE TABLE group_links (child_id TEXT NOT NULL REFERENCES access_groups(id) ON DELETE CASCADE,
        parent_id TEXT NOT NULL REFERENCES access_groups(id) ON DELETE CASCADE, created_at TEXT NOT NULL,
        PRIMARY KEY (child_id, parent_id))`,
      `CREATE INDEX group_links_parent ON group_links (parent_id)`,
      `CREATE TABLE group_grants (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        group_id TEXT NOT NULL REFERENCES access_groups(id) ON DELETE CASCADE, role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
        resource_instance_id TEXT NOT NULL REFERENCES resource_instances(id) ON DELETE CASCADE, created_at TEXT NOT NULL,
        UNIQUE (group_id, role_id, resource_instance_id))`,
      `CREATE INDEX group_grants_instance ON group_grants (resource_instance_id, group_id)`,
    ],
  },
  {
    id: 2,
    name: 'element configurations and access requests',
    sql: [
      `CREATE TABLE elements_configs (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        key TEXT NOT NULL, name TEXT NOT NULL, elements_type TEXT NOT NULL, roles_to_levels TEXT NOT NULL, settings TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, key))`,
      // Details are kept as keys: a request is a record of what was asked, and stays readable after the
      // role or instance it names is deleted (approving it then answers 404).
      `CREATE TABLE access_requests (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        elements_config_id TEXT NOT NULL REFERENCES elements_configs(id) ON DELETE CASCADE,
        requesting_user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        role_key TEXT NOT NULL, resource_key TEXT, instance_key TEXT, reason TEXT, cancel_reason TEXT,
        status TEXT, reviewer_user_id TEXT, reviewed_at TEXT, reviewer_comment TEXT,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      `CREATE INDEX access_requests_list ON access_requests (env_id, created_at, id)`,
      `CREATE INDEX access_requests_requester ON access_requests (requesting_user_id)`,
      `CREATE TABLE access_request_moderators (request_id TEXT NOT NULL REFERENCES access_requests(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (request_id, user_id))`,
      `CREATE INDEX access_request_moderators_user ON access_request_moderators (user_id, request_id)`,
    ],
  },
  {
    id: 3,
    name: 'indexes for instance and group lookups by key, and tenant-wide roles',
    sql: [
      // Instances and groups are looked up by `type:key` with the env on the instance (/allowed, role
      // assignments, grants) or on the group (findGroup). Without this index SQLite walks every instance
      // of the environment (resource_instances_env): ~0.6-2 ms a lookup at 3,000 instances, instead of
      // ~30 us. Key first, so that a lookup constrained only by key (the group's) can use it too.
      `CREATE INDEX resource_instances_key ON resource_instances (key, env_id)`,
      // role_assignments_tenant widened to cover the tenant-wide tests (resource_instance_id IS NULL)
      // and the role: finding a tenant's reviewers (each access request) no longer reads every
      // assignment row of the tenant.
      `CREATE INDEX role_assignments_tenant_cover ON role_assignments (tenant_id, user_id, resource_instance_id, role_id)`,
      `DROP INDEX role_assignments_tenant`,
    ],
  },
  {
    id: 4,
    name: 'list order indexes',
    sql: [
      // Lists page in creation order (created_at, id). Without these SQLite sorts the whole environment
      // for every page: a page of 100 users out of 10,000 took ~39 ms, ~1 ms with the index.
      `CREATE INDEX users_env ON users (env_id, created_at, id)`,
      `CREATE INDEX tenants_env ON tenants (env_id, created_at, id)`,
      `CREATE INDEX roles_env ON roles (env_id, created_at, id)`,
      `CREATE INDEX resources_env ON resources (env_id, created_at, id)`,
    ],
  },
  {
    id: 5,
    name: 'access-request list indexes',
    sql: [
      // A reviewer's list: by configuration, newest first, often filtered by status and role.
      `CREATE INDEX access_requests_config_order ON access_requests (elements_config_id, created_at, id)`,
      `CREATE INDEX access_requests_config_status_role ON access_requests (elements_config_id, status, role_key, created_at, id)`,
    ],
  },
  {
    id: 6,
    name: 'resource roles; resource urn and type_attributes',
    // A role may belong to a resource (`document#editor`): `resource_id`, NULL for the environment's
    // top-level roles. Keys are unique among the top-level roles and among each resource's roles, so the
    // table-level UNIQUE (env_id, key) of migration 1 gives way to two partial unique indexes. SQLite
    // cannot drop a table constraint: the table is rebuilt (foreign keys off, ids kept, so assignments,
    // grants and derivations keep pointing at their roles). PostgreSQL alters it in place.
    foreignKeysOff: true,
    sql: {
      sqlite: [
        `CREATE TABLE roles_v6 (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
          resource_id TEXT REFERENCES resources(id) ON DELETE CASCADE,
          key TEXT NOT NULL, name TEXT NOT NULL, description TEXT, permissions TEXT NOT NULL, extends TEXT NOT NULL,
          created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
        `INSERT INTO roles_v6 (id, env_id, resource_id, key, name, description, permissions, extends, created_at, updated_at)
          SELECT id, env_id, NULL, key, name, description, permissions, extends, created_at, updated_at FROM roles`,
        `DROP TABLE roles`,
        `ALTER TABLE roles_v6 RENAME TO roles`,
        `CREATE INDEX roles_env ON roles (env_id, created_at, id)`,
        ...ROLE_KEYS,
        ...RESOURCE_FIELDS,
      ],
      postgres: [
        `ALTER TABLE roles ADD COLUMN resource_id TEXT REFERENCES resources(id) ON DELETE CASCADE`,
        // The constraint's name is PostgreSQL's choice (normally roles_env_id_key_key): find it.
        `DO $$ DECLARE c text; BEGIN
           SELECT conname INTO c FROM pg_constraint WHERE conrelid = 'roles'::regclass AND contype = 'u';
           IF c IS NOT NULL THEN EXECUTE 'ALTER TABLE roles DROP CONSTRAINT ' || quote_ident(c); END IF;
         END $$`,
        ...ROLE_KEYS,
        ...RESOURCE_FIELDS,
      ],
    },
  },
  {
    id: 7,
    name: 'names of projects and environments',
    sql: [
      // The public read models of projects and environments (GET /v2/projects...) carry a name, an
      // optional description and updated_at. Rows made before this migration read their key as name.
      `ALTER TABLE projects ADD COLUMN name TEXT`,
      `ALTER TABLE projects ADD COLUMN description TEXT`,
      `ALTER TABLE projects ADD COLUMN updated_at TEXT`,
      `ALTER TABLE environments ADD COLUMN name TEXT`,
      `ALTER TABLE environments ADD COLUMN description TEXT`,
      `ALTER TABLE environments ADD COLUMN updated_at TEXT`,
    ],
  },
  {
    id: 8,
    name: 'derivation settings (`when.no_direct_roles_on_object`) and the tuple walk',
    sql: [
      // The public `DerivedRoleRuleCreate.when`, per rule (0/1).
      `ALTER TABLE implicit_grants ADD COLUMN no_direct_roles INTEGER NOT NULL DEFAULT 0`,
      // The public `DerivedRoleBlock.when` (PUT .../implicit_grants/conditions), per derived role (0/1).
      `ALTER TABLE roles ADD COLUMN derivation_no_direct_roles INTEGER NOT NULL DEFAULT 0`,
      // /allowed walks tuples from an object to its subjects (relationship_tuples_object) and reads each
      // instance's own grants; derivations are looked up by the derived role's resource.
      `CREATE INDEX implicit_grants_resource ON implicit_grants (resource_id, role_id)`,
    ],
  },
  {
    id: 9,
    name: "membership as the group type's resource role `member`; derivation conditions per (resource, role)",
    sql: [
      // The public `DerivedRoleBlock.when` belongs to a role's derivations on one resource: a top-level
      // role derived onto two resources has a block on each. Migration 8 kept it on the role row.
      `CREATE TABLE derivation_conditions (resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
        role_id TEXT NOT NULL REFERENCES roles(id) ON DELETE CASCADE, no_direct_roles INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (resource_id, role_id))`,
    ],
    run: migrateMembership,
  },
  {
    id: 10,
    name: 'attribute-based access: attribute definitions of the built-in resources, condition sets, set rules',
    sql: [
      // Attribute definitions of the built-in resources `__user` and `__tenant` (a resource's own live in
      // resources.attributes, as ResourceCreate.attributes always did).
      `CREATE TABLE builtin_attributes (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        resource_key TEXT NOT NULL, key TEXT NOT NULL, type TEXT NOT NULL, description TEXT,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, resource_key, key))`,
      // User sets and resource sets. A resource set belongs to its base resource (deleted with it); a
      // parent with children cannot be deleted (the route answers 409), the cascade only serves the
      // resource's deletion, which takes a whole family of resource sets at once.
      `CREATE TABLE condition_sets (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        key TEXT NOT NULL, name TEXT NOT NULL, description TEXT, type TEXT NOT NULL,
        resource_id TEXT REFERENCES resources(id) ON DELETE CASCADE, parent_id TEXT REFERENCES condition_sets(id) ON DELETE CASCADE,
        conditions TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (env_id, key))`,
      `CREATE INDEX condition_sets_env ON condition_sets (env_id, created_at, id)`,
      `CREATE INDEX condition_sets_parent ON condition_sets (parent_id)`,
      // A rule's user side is a user set or a role (its autogenerated set), its resource side a resource
      // set or a resource (its autogenerated set): each a foreign key, so deleting the set, role or
      // resource deletes the rules that need it. NULLs are distinct in a UNIQUE constraint: COALESCE.
      `CREATE TABLE set_rules (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        user_set_id TEXT REFERENCES condition_sets(id) ON DELETE CASCADE, user_role_id TEXT REFERENCES roles(id) ON DELETE CASCADE,
        resource_set_id TEXT REFERENCES condition_sets(id) ON DELETE CASCADE, set_resource_id TEXT REFERENCES resources(id) ON DELETE CASCADE,
        resource_id TEXT NOT NULL REFERENCES resources(id) ON DELETE CASCADE, action TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
      `CREATE UNIQUE INDEX set_rules_unique ON set_rules (env_id, COALESCE(user_set_id, user_role_id), COALESCE(resource_set_id, set_resource_id), resource_id, action)`,
      `CREATE INDEX set_rules_env ON set_rules (env_id, created_at, id)`,
      `CREATE INDEX set_rules_user_set ON set_rules (user_set_id)`,
      `CREATE INDEX set_rules_resource_set ON set_rules (resource_set_id)`,
      `CREATE INDEX set_rules_role ON set_rules (user_role_id)`,
      `CREATE INDEX set_rules_resource ON set_rules (resource_id)`,
      `CREATE INDEX set_rules_set_resource ON set_rules (set_resource_id)`,
      // Bumped by every write that changes what /allowed's remembered ABAC model holds (repo/abac-model.ts).
      `CREATE TABLE abac_stamps (env_id TEXT PRIMARY KEY REFERENCES environments(id) ON DELETE CASCADE, stamp INTEGER NOT NULL)`,
      // The public RoleCreate.attributes, seen by conditions as `role.<attribute>`.
      `ALTER TABLE roles ADD COLUMN attributes TEXT`,
    ],
  },
  {
    id: 11,
    name: 'decision log (every /allowed decision, served as the public audit logs)',
    sql: [
      // One row per decision (src/server/decision-log.ts). `ts` is ISO 8601 UTC with milliseconds, so
      // text order is time order; (ts, id) orders rows totally, for paging and the count bound.
      // `input` is the check as the caller sent it (JSON), `decision` 0/1.
      `CREATE TABLE decision_log (id TEXT PRIMARY KEY, env_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
        ts TEXT NOT NULL, query TEXT NOT NULL, user_key TEXT NOT NULL, action TEXT NOT NULL, resource_type TEXT NOT NULL,
        resource_key TEXT, tenant TEXT, decision INTEGER NOT NULL, input TEXT NOT NULL)`,
      `CREATE INDEX decision_log_env_ts ON decision_log (env_id, ts, id)`,
      // The retention's count bound walks the whole log newest first.
      `CREATE INDEX decision_log_ts ON decision_log (ts, id)`,
    ],
  },
  {
    id: 12,
    name: 'change history (every write through /v2, served as the public API log: GET /v2/history)',
    sql: [
      // One row per write (src/server/api-history.ts), written when the call arrives (status 0) and given
      // its answer before the answer is sent. No foreign key: a call naming an unknown environment is kept
      // too. `ts` as in the decision log: ISO 8601 UTC with milliseconds; (ts, id) orders rows totally.
      `CREATE TABLE api_history (id TEXT PRIMARY KEY, ts TEXT NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
        status INTEGER NOT NULL, client_ip TEXT NOT NULL, actor_type TEXT NOT NULL, actor_id TEXT NOT NULL,
        actor_name TEXT NOT NULL, project_id TEXT, project_key TEXT, env_id TEXT, env_key TEXT,
        request_id TEXT NOT NULL, request_body TEXT, response_body TEXT)`,
      `CREATE INDEX api_history_ts ON api_history (ts, id)`,
      `CREATE INDEX api_history_env_ts ON api_history (env_id, ts, id)`,
    ],
  },
];
