import type { Queryable } from '../store/db.js';
import { envKeys } from './env-keys.js';
import { versionMemo } from './version-memo.js';

/** A role assignment as a user read shows it: role and tenant keys, and whether it is tenant-wide. */
export interface HeldRole {
  role: string;
  tenant: string;
  tenantWide: boolean;
}

/** Per user of an environment: its role assignments, and the tenants it was added to (by key). */
export interface Memberships {
  assigned: Map<string, HeldRole[]>;
  added: Map<string, string[]>;
}

/**
 * An environment's memberships, remembered per store while its data version holds (version-memo.ts).
 * Walking the users list page by page asked, for each page of 100 users, for their assignments and
 * tenants (two indexed reads with joins, ~80 ms for 10,000 users); one pass over the covering indexes of
 * role_assignments and tenant_users answers every page (~35 ms), with the role and tenant keys of
 * env-keys.ts. Undefined where the store has no data version (or no `values`).
 */
export async function envMemberships(q: Queryable, envId: string): Promise<Memberships | undefined> {
  if (!q.values) return undefined;
  const values = q.values.bind(q);
  const entry = await remembered(q, envId, async () => {
    const { roles, tenants } = (await envKeys(q, envId))!.keys;
    // By tenant: role_assignments_tenant_cover and tenant_users' key cover these columns (no row lookups).
    // As arrays of values (30,000 rows for 10,000 users): ~30% less than a row object each.
    const assignments = (await values(
      `SELECT user_id, role_id, tenant_id, CASE WHEN resource_instance_id IS NULL THEN 1 ELSE 0 END AS tenant_wide FROM role_assignments
       WHERE tenant_id IN (SELECT id FROM tenants WHERE env_id = ?)`,
      [envId],
    )) as [string, string, string, number][];
    const additions = (await values(
      `SELECT user_id, tenant_id FROM tenant_users WHERE tenant_id IN (SELECT id FROM tenants WHERE env_id = ?)`,
      [envId],
    )) as [string, string][];
    const memberships: Memberships = { assigned: new Map(), added: new Map() };
    for (const [user, roleId, tenantId, tenantWide] of assignments) {
      const role = roles.get(roleId);
      const tenant = tenants.get(tenantId);
      // As the joins of the per-page reads: a row naming no role or tenant of the environment is not shown.
      if (role === undefined || tenant === undefined) continue;
      const list = memberships.assigned.get(user);
      const held = { role, tenant, tenantWide: tenantWide === 1 };
      if (list) list.push(held);
      else memberships.assigned.set(user, [held]);
    }
    for (const [user, tenantId] of additions) {
      const tenant = tenants.get(tenantId);
      if (tenant === undefined) continue;
      const list = memberships.added.get(user);
      if (list) list.push(tenant);
      else memberships.added.set(user, [tenant]);
    }
    return memberships;
  });
  return entry?.value;
}

const remembered = versionMemo<Memberships>(16);
