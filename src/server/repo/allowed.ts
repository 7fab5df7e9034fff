import type { Queryable } from '../store/db.js';
import { parseJson, splitRef } from './common.js';
import { rolesGrant, type RoleDef } from '../domain/allowed.js';
import { GROUP_RELATION_SQL, derivedRolesOn } from './derivations.js';
import { rolesOnInstancesSql } from './held-roles.js';

export interface CheckInput {
  user: string;
  action: string;
  type: string;
  key?: string;
  tenant?: string;
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

const ON_ONE_INSTANCE = {
  sqlite: rolesOnInstancesSql('sqlite', 1, true),
  postgres: rolesOnInstancesSql('postgres', 1, true),
};

const TENANT_ROLES = `SELECT role_id FROM role_assignments WHERE user_id = ? AND tenant_id = ? AND resource_instance_id IS NULL`;

/**
 * The user, the instance (with its tenant), and whether some derivation over tuples can give a role on
 * the instance's type (repo/derivations.ts), in one statement: the one place /allowed asks "derivable?".
 */
const LOOKUP = `SELECT
  (SELECT id FROM users WHERE env_id = ? AND key = ?) AS user_id,
  ri.id AS instance_id, ri.tenant_id AS tenant_id, ri.resource_id AS resource_id,
  CASE WHEN EXISTS (SELECT 1 FROM implicit_grants ig JOIN relations rel ON rel.id = ig.relation_id JOIN resources s ON s.id = rel.subject_resource_id
    WHERE ig.resource_id = ri.resource_id AND NOT ${GROUP_RELATION_SQL}) THEN 1 ELSE 0 END AS derivable
  FROM (SELECT 1 AS one) x LEFT JOIN resource_instances ri ON ri.env_id = ? AND ri.key = ?
    AND ri.resource_id IN (SELECT id FROM resources WHERE env_id = ? AND key = ?)`;

export async function decide(
  q: Queryable & { dialect?: 'sqlite' | 'postgres' },
  envId: string,
  c: CheckInput,
): Promise<boolean> {
  // One round trip for the lookups: each statement costs a round trip on PostgreSQL and a few
  // microseconds of bookkeeping on SQLite, and /allowed is the hottest path (bench: server CPU a check).
  const found = await q.get<{
    user_id: string | null;
    instance_id: string | null;
    tenant_id: string | null;
    resource_id: string | null;
    derivable: number | null;
  }>(LOOKUP, [envId, c.user, envId, c.key ?? '', envId, c.type]);
  if (!found?.user_id) return false;
  const user = found.user_id;
  let roleIds: { role_id: string }[];
  const instance = c.key && found.instance_id ? { id: found.instance_id, tenant_id: found.tenant_id! } : undefined;
  // A named instance that does not exist is no instance of any tenant: nothing applies to it (rather
  // than the tenant-wide roles of whatever tenant the caller named, which would allow on a typo).
  if (c.key && !instance) return false;
  if (instance) {
    const dialect = q.dialect ?? 'sqlite';
    // Derivations over tuples (repo/derivations.ts) when some derivation gives a role on this type;
    // otherwise the one statement below.
    roleIds =
      Number(found.derivable) > 0
        ? [
            ...(
              await derivedRolesOn(q, envId, dialect, {
                user,
                instance: { id: instance.id, resource: found.resource_id! },
              })
            ).map((role_id) => ({ role_id })),
            ...(await q.all<{ role_id: string }>(TENANT_ROLES, [user, instance.tenant_id])),
          ]
        : await q.all(ON_ONE_INSTANCE[dialect], [
            envId,
            user,
            instance.id,
            instance.id,
            user,
            instance.id,
            user,
            instance.tenant_id,
          ]);
  } else {
    // No instance named: what the user holds tenant-wide in the tenant named, or 'default'.
    const tenant = await q.get<{ id: string }>(`SELECT id FROM tenants WHERE env_id = ? AND key = ?`, [
      envId,
      c.tenant ?? 'default',
    ]);
    if (!tenant) return false;
    roleIds = await q.all(TENANT_ROLES, [user, tenant.id]);
  }
  if (roleIds.length === 0) return false;
  const load = async (sql: string, params: string[]) =>
    (await q.all<{ key: string; resource_id: string | null; permissions: string; extends: string }>(sql, params)).map(
      (r): RoleDef => ({
        key: r.key,
        resource: r.resource_id,
        permissions: parseJson(r.permissions, []),
        extends: parseJson(r.extends, []),
      }),
    );
  const ids = [...new Set(roleIds.map((r) => r.role_id))];
  const held = await load(
    `SELECT key, resource_id, permissions, extends FROM roles WHERE id IN (${marks(ids.length)})`,
    ids,
  );
  // Extended roles: a resource role's are its resource's roles, a top-level role's top-level roles.
  return rolesGrant(held, { resource: found.resource_id, type: c.type, action: c.action }, (resource, keys) =>
    resource === null
      ? load(
          `SELECT key, resource_id, permissions, extends FROM roles WHERE env_id = ? AND resource_id IS NULL AND key IN (${marks(keys.length)})`,
          [envId, ...keys],
        )
      : load(
          `SELECT key, resource_id, permissions, extends FROM roles WHERE resource_id = ? AND key IN (${marks(keys.length)})`,
          [resource, ...keys],
        ),
  );
}

/** The SDKs' check body: `{user: {key} | "key", action, resource: {type, key?, tenant?} | "type:key"}`. */
export function toCheckInput(body: { user: unknown; action: string; resource: unknown }): CheckInput {
  const user = typeof body.user === 'string' ? body.user : String((body.user as { key: string }).key);
  if (typeof body.resource === 'string') {
    const [type, key] = splitRef(body.resource) ?? [body.resource, undefined];
    return { user, action: body.action, type, key };
  }
  const r = body.resource as { type: string; key?: string | null; tenant?: string | null };
  return { user, action: body.action, type: r.type, key: r.key ?? undefined, tenant: r.tenant ?? undefined };
}
