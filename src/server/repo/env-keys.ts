import type { Db, Queryable } from '../store/db.js';
import { versionMemo } from './version-memo.js';

/** An environment's keys by id: what a role assignment's read names its user, role, tenant and instance by. */
export interface EnvKeys {
  users: Map<string, string>;
  roles: Map<string, string>;
  tenants: Map<string, string>;
  /** An instance's key and its resource's key. */
  instances: Map<string, { key: string; resource: string }>;
}

/**
 * Keys remembered per store and environment while its data version holds (version-memo.ts). A page of
 * 1,000 role assignments joined users, roles, tenants, instances and resources for their keys (~2.6 ms a
 * page on 10,000 users); with the keys in memory it reads role_assignments alone. Loading them is one
 * pass over each table (~10 ms for 10,000 users), once per data version.
 */
const remembered = versionMemo<EnvKeys>(16);

/** The version the keys hold under, and the keys; undefined where the store has no data version (or no `values`). */
export async function envKeys(q: Queryable, envId: string): Promise<{ version: string; keys: EnvKeys } | undefined> {
  if (!q.values) return undefined;
  const values = q.values.bind(q);
  const entry = await remembered(q, envId, async () => {
    // As arrays of values (13,000 rows for 10,000 users): ~30% less than a row object each.
    const pairs = async (table: string) =>
      new Map((await values(`SELECT id, key FROM ${table} WHERE env_id = ?`, [envId])) as [string, string][]);
    const instances = new Map(
      (
        (await values(
          `SELECT ri.id, ri.key, res.key AS resource FROM resource_instances ri JOIN resources res ON res.id = ri.resource_id WHERE ri.env_id = ?`,
          [envId],
        )) as [string, string, string][]
      ).map(([id, key, resource]) => [id, { key, resource }]),
    );
    return { users: await pairs('users'), roles: await pairs('roles'), tenants: await pairs('tenants'), instances };
  });
  return entry && { version: entry.version, keys: entry.value };
}

/** Whether the store's data version is still `version`: what was read since then agrees with the keys. */
export function stillAt(q: Queryable, version: string): boolean {
  return (q as Partial<Db>).dataVersion?.() === version;
}
