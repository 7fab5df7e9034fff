import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { envFields, parseJson } from './common.js';

export interface ResourceRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  actions: string;
  attributes: string;
  created_at: string;
  updated_at: string;
}

export type Actions = Record<string, { name?: string; description?: string }>;

export function resourceRead(row: ResourceRow, env: EnvContext) {
  const actions = parseJson<Actions>(row.actions, {});
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    actions: Object.fromEntries(Object.entries(actions).map(([k, v]) => [k, { key: k, name: v.name ?? k, description: v.description ?? null }])),
    attributes: parseJson(row.attributes, {}),
    ...envFields(env),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Removes permissions that no longer point anywhere (a deleted resource, or actions removed from one),
 * so that nothing dangles. `keep(action)` says which of the resource's actions still exist.
 */
export async function pruneRolePermissions(q: Queryable, envId: string, resourceKey: string, keep: (action: string) => boolean, at: string) {
  const roles = await q.all<{ id: string; permissions: string }>(`SELECT id, permissions FROM roles WHERE env_id = ?`, [envId]);
  for (const r of roles) {
    const perms = parseJson<string[]>(r.permissions, []);
    const kept = perms.filter((p) => {
      const [res, action] = p.split(':');
      return res !== resourceKey || keep(action);
    });
    if (kept.length !== perms.length) {
      await q.run(`UPDATE roles SET permissions = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(kept), at, r.id]);
    }
  }
}

/** The group type's resource, created when a group of a new type is created. */
export async function ensureResource(q: Queryable, envId: string, key: string, at: string): Promise<string> {
  await q.run(
    `INSERT INTO resources (id, env_id, key, name, description, actions, attributes, created_at, updated_at)
     VALUES (?, ?, ?, ?, NULL, '{}', '{}', ?, ?) ON CONFLICT (env_id, key) DO NOTHING`,
    [crypto.randomUUID(), envId, key, key, at, at],
  );
  return (await q.get<{ id: string }>(`SELECT id FROM resources WHERE env_id = ? AND key = ?`, [envId, key]))!.id;
}
