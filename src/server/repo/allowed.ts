import type { Queryable } from '../store/db.js';
import { parseJson, splitRef } from './common.js';
import { DEFAULT_TENANT } from '../../rules/names.js';
import {
  extendsOf,
  roleAllows,
  runWalk,
  runWalkAsync,
  walkExtends,
  type RoleNode,
  type Wanted,
} from '../../rules/roles.js';
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

/** The roles a check's user holds where the check looks (ids), and the instance's resource id; undefined: none. */
export interface HeldRoles {
  roleIds: string[];
  /** The named instance's resource id; null when no instance is named. */
  resource: string | null;
}

export async function decide(
  q: Queryable & { dialect?: 'sqlite' | 'postgres' },
  envId: string,
  c: CheckInput,
): Promise<boolean> {
  const held = await heldRoles(q, envId, c);
  if (!held || held.roleIds.length === 0) return false;
  return grantsAny(q, envId, held.roleIds, { resource: held.resource, type: c.type, action: c.action });
}

/**
 * What the user holds where the check looks: on a named instance, the roles there (directly, through
 * groups, derived over tuples) and the tenant-wide roles of the instance's tenant; without an instance,
 * the tenant-wide roles of the tenant named (or the default tenant). Undefined when the user or the named
 * instance does not exist. /allowed and the list queries (repo/user-permissions.ts) read it.
 */
export async function heldRoles(
  q: Queryable & { dialect?: 'sqlite' | 'postgres' },
  envId: string,
  c: CheckInput,
): Promise<HeldRoles | undefined> {
  // One round trip for the lookups: each statement costs a round trip on PostgreSQL and a few
  // microseconds of bookkeeping on SQLite, and /allowed is the hottest path (bench: server CPU a check).
  const found = await q.get<{
    user_id: string | null;
    instance_id: string | null;
    tenant_id: string | null;
    resource_id: string | null;
    derivable: number | null;
  }>(LOOKUP, [envId, c.user, envId, c.key ?? '', envId, c.type]);
  if (!found?.user_id) return undefined;
  const user = found.user_id;
  let roleIds: { role_id: string }[];
  const instance = c.key && found.instance_id ? { id: found.instance_id, tenant_id: found.tenant_id! } : undefined;
  // A named instance that does not exist is no instance of any tenant: nothing applies to it (rather
  // than the tenant-wide roles of whatever tenant the caller named, which would allow on a typo).
  if (c.key && !instance) return undefined;
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
      c.tenant ?? DEFAULT_TENANT,
    ]);
    if (!tenant) return undefined;
    roleIds = await q.all(TENANT_ROLES, [user, tenant.id]);
  }
  return { roleIds: [...new Set(roleIds.map((r) => r.role_id))], resource: c.key ? found.resource_id : null };
}

type RoleRow = { key: string; resource_id: string | null; permissions: string; extends: string };

/**
 * A stored role as the rulebook's node (rules/roles.ts): its id is its resource id and key, and its
 * `extends` scoped by the rule (a resource role extends its own resource's roles, a top-level role
 * top-level roles). `permissions` stay as stored: `roleAllows` reads them by the role's scope.
 */
interface StoredRole extends RoleNode {
  resource: string | null;
}
const roleId = (resource: string | null, key: string) => `${resource ?? ''}\u0000${key}`;
const asNode = (r: RoleRow): StoredRole => ({
  id: roleId(r.resource_id, r.key),
  resource: r.resource_id,
  permissions: parseJson(r.permissions, []),
  extends: extendsOf({ resource: r.resource_id, extends: parseJson<string[]>(r.extends, []) }, roleId),
});
/** Node ids back to (resource, keys), to read a level in one statement a scope. */
function byScope(ids: string[]): Map<string | null, string[]> {
  const out = new Map<string | null, string[]>();
  for (const id of ids) {
    const at = id.indexOf('\u0000');
    const resource = at === 0 ? null : id.slice(0, at);
    (out.get(resource) ?? out.set(resource, []).get(resource)!).push(id.slice(at + 1));
  }
  return out;
}
const allows = (wanted: Wanted) => (r: RoleNode) => roleAllows(r as StoredRole, wanted);

/** Whether some of the roles `ids` (or a role they extend) allows `wanted`: the rulebook's walk over the store. */
export async function grantsAny(q: Queryable, envId: string, ids: string[], wanted: Wanted): Promise<boolean> {
  const load = async (sql: string, params: string[]) => (await q.all<RoleRow>(sql, params)).map(asNode);
  const held = await load(
    `SELECT key, resource_id, permissions, extends FROM roles WHERE id IN (${marks(ids.length)})`,
    ids,
  );
  // Each level of extended roles: one statement a scope (a resource's roles, or the top-level roles).
  const read = async (next: string[]) =>
    (
      await Promise.all(
        [...byScope(next)].map(([resource, keys]) =>
          resource === null
            ? load(
                `SELECT key, resource_id, permissions, extends FROM roles WHERE env_id = ? AND resource_id IS NULL AND key IN (${marks(keys.length)})`,
                [envId, ...keys],
              )
            : load(
                `SELECT key, resource_id, permissions, extends FROM roles WHERE resource_id = ? AND key IN (${marks(keys.length)})`,
                [resource, ...keys],
              ),
        ),
      )
    ).flat();
  return runWalkAsync(walkExtends(held, allows(wanted)), read);
}

/**
 * The environment's roles by id, and which of them allow `wanted` (themselves or through the roles they
 * extend), decided by the same walk as /allowed (rules/roles.ts) over roles held in memory: the reverse
 * lookups (repo/authorized-users.ts) ask it once for every role instead of once a user.
 */
export async function rolesAllowing(
  q: Queryable,
  envId: string,
  wanted: Wanted,
): Promise<{ allowing: Set<string>; byId: Map<string, RoleRow & { id: string }> }> {
  const rows = await q.all<RoleRow & { id: string }>(
    `SELECT id, key, resource_id, permissions, extends FROM roles WHERE env_id = ?`,
    [envId],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const nodes = new Map(rows.map((r) => [roleId(r.resource_id, r.key), asNode(r)]));
  const read = (ids: string[]) => ids.flatMap((id) => nodes.get(id) ?? []);
  const allowing = new Set<string>();
  for (const r of rows)
    if (runWalk(walkExtends([nodes.get(roleId(r.resource_id, r.key))!], allows(wanted)), read)) allowing.add(r.id);
  return { allowing, byId };
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
