import type { Queryable } from '../store/db.js';
import { parseJson } from './common.js';
import { decide, heldRoles } from './allowed.js';
import { abacAllows } from './abac-allowed.js';
import type { Actions } from './resources.js';

/** The PDP's `/user-permissions` body ([PDP] `schemas.py`). */
export interface UserPermissionsQuery {
  user: string | { key: string; attributes?: unknown };
  tenants?: string[];
  resources?: string[];
  resource_types?: string[];
  context?: Record<string, unknown>;
}

type Entry = {
  tenant: { key: string; attributes: unknown };
  resource?: { key: string; type: string; attributes: unknown };
  permissions: string[];
  roles: string[];
};

/** The built-in role every tenant member holds on the public service: not listed among a tenant's roles. */
const TENANT_ASSOCIATION = 'tenant-association';

/**
 * What a user may do, by tenant (`__tenant:<t>`) and instance (`<type>:<key>`), decided by the same code
 * as /allowed (docs/server.md "Attribute-based access"):
 * - tenants: those where the user has a role assignment (narrowed by `tenants`); a tenant's entry lists
 *   every `resource:action` /allowed grants on the type in that tenant (no instance), and is left out when
 *   `resource_types` is given without `__tenant` (as the public PDP does);
 * - instances: those of the user's tenants (narrowed by `resources` and `resource_types`), and with ABAC
 *   every stored instance of the listed `resource_types`; an instance's entry lists what /allowed grants
 *   on it beyond what roles grant in its tenant (its tenant's entry without ABAC), and is left out when
 *   that is nothing;
 * - ABAC joins only when `context.enable_abac_user_permissions` is true, and only for `resource_types`
 *   (type-level on tenants, with stored attributes on instances).
 */
export async function userPermissions(
  q: Queryable & { dialect?: 'sqlite' | 'postgres' },
  envId: string,
  body: UserPermissionsQuery,
): Promise<Record<string, Entry>> {
  const user = typeof body.user === 'string' ? { key: body.user } : body.user;
  const abacTypes =
    body.context?.enable_abac_user_permissions === true
      ? new Set((body.resource_types ?? []).filter((t) => t !== '__tenant'))
      : new Set<string>();
  const resources = await q.all<{ id: string; key: string; actions: string }>(
    `SELECT id, key, actions FROM resources WHERE env_id = ? ORDER BY key`,
    [envId],
  );
  const actionsOf = new Map(resources.map((r) => [r.key, Object.keys(parseJson<Actions>(r.actions, {}))]));
  const userRow = await q.get<{ id: string }>(`SELECT id FROM users WHERE env_id = ? AND key = ?`, [envId, user.key]);
  const tenantRows = userRow
    ? await q.all<{ key: string; attributes: string }>(
        `SELECT DISTINCT t.key, t.attributes FROM role_assignments ra JOIN tenants t ON t.id = ra.tenant_id WHERE ra.user_id = ? ORDER BY t.key`,
        [userRow.id],
      )
    : [];
  const tenants = tenantRows.filter((t) => !body.tenants || body.tenants.includes(t.key));
  const check = { user: body.user, context: body.context };
  const allows = async (action: string, resource: { type: string; key?: string; tenant: string }, abac: boolean) =>
    (await decide(q, envId, {
      user: user.key,
      action,
      type: resource.type,
      key: resource.key,
      tenant: resource.tenant,
    })) ||
    (abac && (await abacAllows(q, envId, { ...check, action, resource } as never)));

  const out: Record<string, Entry> = {};
  const tenantPermissions = new Map<string, Set<string>>();
  for (const t of tenants) {
    const granted = new Set<string>();
    // Only what roles grant tenant-wide holds on every instance of the tenant (repo/allowed.ts): an
    // instance's entry leaves those out. A type-level ABAC grant may not hold on a given instance (its
    // stored attributes decide), so the instance's entry decides those again.
    const everywhere = new Set<string>();
    for (const [type, actions] of actionsOf)
      for (const a of actions) {
        const byRoles = await allows(a, { type, tenant: t.key }, false);
        if (byRoles) everywhere.add(`${type}:${a}`);
        if (byRoles || (abacTypes.has(type) && (await allows(a, { type, tenant: t.key }, true))))
          granted.add(`${type}:${a}`);
      }
    tenantPermissions.set(t.key, everywhere);
    if (!body.resource_types || body.resource_types.includes('__tenant')) {
      out[`__tenant:${t.key}`] = {
        tenant: { key: t.key, attributes: parseJson(t.attributes, {}) },
        permissions: [...granted],
        roles: await tenantRoles(q, userRow!.id, t.key, envId),
      };
    }
  }

  const instances = await q.all<{
    key: string;
    type: string;
    tenant: string;
    attributes: string;
    tenant_attributes: string;
  }>(
    `SELECT ri.key, r.key AS type, t.key AS tenant, ri.attributes, t.attributes AS tenant_attributes
     FROM resource_instances ri JOIN resources r ON r.id = ri.resource_id JOIN tenants t ON t.id = ri.tenant_id WHERE ri.env_id = ? ORDER BY r.key, ri.key`,
    [envId],
  );
  const userTenants = new Set(tenants.map((t) => t.key));
  for (const i of instances) {
    const ref = `${i.type}:${i.key}`;
    if (body.resources && !body.resources.includes(ref) && !body.resources.includes(i.type)) continue;
    if (body.resource_types && !body.resource_types.includes(i.type)) continue;
    const abac = abacTypes.has(i.type);
    if (!userTenants.has(i.tenant) && !abac) continue;
    const already = tenantPermissions.get(i.tenant) ?? new Set<string>();
    const granted: string[] = [];
    for (const a of actionsOf.get(i.type) ?? []) {
      if (already.has(`${i.type}:${a}`)) continue;
      if (await allows(a, { type: i.type, key: i.key, tenant: i.tenant }, abac)) granted.push(`${i.type}:${a}`);
    }
    if (granted.length > 0) {
      out[ref] = {
        tenant: { key: i.tenant, attributes: parseJson(i.tenant_attributes, {}) },
        resource: { key: i.key, type: i.type, attributes: parseJson(i.attributes, {}) },
        permissions: granted,
        roles: await instanceRoles(q, envId, { user: user.key, type: i.type, key: i.key }),
      };
    }
  }
  return out;
}

/** The top-level roles the user holds tenant-wide in the tenant, by key. */
async function tenantRoles(q: Queryable, userId: string, tenant: string, envId: string): Promise<string[]> {
  const rows = await q.all<{ key: string }>(
    `SELECT DISTINCT r.key FROM role_assignments ra JOIN roles r ON r.id = ra.role_id JOIN tenants t ON t.id = ra.tenant_id
     WHERE ra.user_id = ? AND t.env_id = ? AND t.key = ? AND ra.resource_instance_id IS NULL AND r.resource_id IS NULL ORDER BY r.key`,
    [userId, envId, tenant],
  );
  return rows.map((r) => r.key).filter((k) => k !== TENANT_ASSOCIATION);
}

/** The instance's own roles the user holds there (directly, through groups, derived: what /allowed counts), without `type#`. */
async function instanceRoles(
  q: Queryable & { dialect?: 'sqlite' | 'postgres' },
  envId: string,
  c: { user: string; type: string; key: string },
): Promise<string[]> {
  const held = await heldRoles(q, envId, { ...c, action: '' });
  if (!held || held.roleIds.length === 0) return [];
  const rows = await q.all<{ key: string }>(
    `SELECT key FROM roles WHERE resource_id = ? AND id IN (${held.roleIds.map(() => '?').join(', ')}) ORDER BY key`,
    [held.resource, ...held.roleIds],
  );
  return rows.map((r) => r.key);
}
