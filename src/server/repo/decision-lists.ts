import type { Queryable } from '../store/db.js';
import type { Paging } from '../paging.js';
import { parseJson } from './common.js';
import { decide, toCheckInput } from './allowed.js';
import { abacAllows, type CheckBody } from './abac-allowed.js';
import { listAssignments, type AssignmentFilters } from './assignment-lists.js';

type Dialected = Queryable & { dialect?: 'sqlite' | 'postgres' };

/** /allowed's decision on one check body: RBAC/ReBAC, then ABAC when they deny (routes/allowed.ts). */
export async function checkAllows(q: Dialected, envId: string, body: CheckBody): Promise<boolean> {
  return (await decide(q, envId, toCheckInput(body as never))) || (await abacAllows(q, envId, body));
}

export interface TenantRead {
  key: string;
  attributes: Record<string, unknown>;
}

/** The environment's tenants, in key order. */
export async function tenantsOf(q: Queryable, envId: string): Promise<TenantRead[]> {
  const rows = await q.all<{ key: string; attributes: string }>(
    `SELECT key, attributes FROM tenants WHERE env_id = ? ORDER BY key`,
    [envId],
  );
  return rows.map((t) => ({ key: t.key, attributes: parseJson(t.attributes, {}) }));
}

/** `POST /allowed/all-tenants`: the check in every tenant of the environment (its own tenant ignored), the allowed ones. */
export async function allTenantsAllowed(q: Dialected, envId: string, body: CheckBody) {
  const resource = typeof body.resource === 'string' ? body.resource : { ...body.resource };
  const allowed = [];
  for (const tenant of await tenantsOf(q, envId)) {
    const check = {
      ...body,
      resource: typeof resource === 'string' ? withTenant(resource, tenant.key) : { ...resource, tenant: tenant.key },
    };
    if (await checkAllows(q, envId, check)) allowed.push({ allow: true, result: true, tenant });
  }
  return allowed;
}

/** A `type:key` check names no tenant: the object form carries it. */
function withTenant(ref: string, tenant: string) {
  const i = ref.indexOf(':');
  return i < 0 ? { type: ref, tenant } : { type: ref.slice(0, i), key: ref.slice(i + 1), tenant };
}

/** `POST /user-tenants`: the tenants where the user holds some role (tenant-wide or on an instance), in key order. */
export async function userTenants(q: Queryable, envId: string, user: string): Promise<TenantRead[]> {
  const rows = await q.all<{ key: string; attributes: string }>(
    `SELECT DISTINCT t.key, t.attributes FROM role_assignments ra JOIN tenants t ON t.id = ra.tenant_id
       JOIN users u ON u.id = ra.user_id
     WHERE u.env_id = ? AND u.key = ? ORDER BY t.key`,
    [envId, user],
  );
  return rows.map((t) => ({ key: t.key, attributes: parseJson(t.attributes, {}) }));
}

/**
 * `GET /local/role_assignments`: one page of the environment's role assignments (the /v2 list's filters
 * and order, repo/assignment-lists.ts), in the PDP's shape `{user, role, tenant, resource_instance?}`.
 */
export async function localRoleAssignments(q: Queryable, envId: string, f: AssignmentFilters, paging: Paging) {
  const { rows } = await listAssignments(q, envId, f, paging);
  return rows.map((r) =>
    r.instance_key === null
      ? { user: r.user_key, role: r.role_key, tenant: r.tenant_key }
      : {
          user: r.user_key,
          role: r.role_key,
          tenant: r.tenant_key,
          resource_instance: `${r.resource_key}:${r.instance_key}`,
        },
  );
}
