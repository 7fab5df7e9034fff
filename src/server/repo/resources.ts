import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { envFields, parseJson, stableUuid } from './common.js';

export interface ResourceRow {
  id: string;
  key: string;
  urn?: string | null;
  type_attributes?: string | null;
  name: string;
  description: string | null;
  actions: string;
  attributes: string;
  created_at: string;
  updated_at: string;
}

/** Stored actions and attributes carry the ids the public read model gives them (stable across updates). */
export type Actions = Record<string, { id?: string; name?: string; description?: string | null }>;
export type Attributes = Record<string, { id?: string; type: string; description?: string }>;

/** The public `ResourceRead`: no `null`s (a missing description is absent), actions and attributes with ids. */
export function resourceRead(row: ResourceRow, env: EnvContext) {
  const actions = parseJson<Actions>(row.actions, {});
  const attributes = parseJson<Attributes>(row.attributes, {});
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.urn ? { urn: row.urn } : {}),
    ...(row.type_attributes ? { type_attributes: parseJson<Record<string, unknown>>(row.type_attributes, {}) } : {}),
    actions: Object.fromEntries(
      // Actions written before they had ids (an older server) get one derived from the resource and key.
      Object.entries(actions).map(([k, v]) => [
        k,
        {
          id: v.id ?? stableUuid(`${row.id}:action:${k}`),
          key: k,
          name: v.name ?? k,
          ...(v.description ? { description: v.description } : {}),
        },
      ]),
    ),
    attributes: Object.fromEntries(
      Object.entries(attributes)
        // Attributes an older server accepted free-form (not `{type}` blocks) are not part of the read model.
        .filter(([, v]) => typeof v?.type === 'string')
        .map(([k, v]) => [
          k,
          {
            id: v.id ?? stableUuid(`${row.id}:attribute:${k}`),
            key: k,
            type: v.type,
            ...(v.description ? { description: v.description } : {}),
          },
        ]),
    ),
    ...envFields(env),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Gives each action (or attribute) an id, keeping the id an entry of the same key already had: ids name
 * an action for as long as it exists.
 */
export function withIds<T extends { id?: string }>(
  given: Record<string, Omit<T, 'id'>>,
  before: Record<string, T> = {},
): Record<string, T> {
  return Object.fromEntries(Object.entries(given).map(([k, v]) => [k, { ...v, id: before[k]?.id ?? newId() } as T]));
}

/**
 * Removes permissions that no longer point anywhere (a deleted resource, or actions removed from one),
 * so that nothing dangles. `keep(action)` says which of the resource's actions still exist.
 */
export async function pruneRolePermissions(
  q: Queryable,
  envId: string,
  resourceKey: string,
  keep: (action: string) => boolean,
  at: string,
) {
  // Top-level roles name `resource:action`; the resource's own roles name bare actions (repo/role-scope.ts).
  const roles = await q.all<{ id: string; own: number; permissions: string }>(
    `SELECT r.id, CASE WHEN r.resource_id IS NULL THEN 0 ELSE 1 END AS own, r.permissions FROM roles r
     WHERE r.env_id = ? AND (r.resource_id IS NULL OR r.resource_id IN (SELECT id FROM resources WHERE env_id = ? AND key = ?))`,
    [envId, envId, resourceKey],
  );
  for (const r of roles) {
    const perms = parseJson<string[]>(r.permissions, []);
    const kept = perms.filter((p) => {
      if (Number(r.own)) return keep(p);
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
    [newId(), envId, key, key, at, at],
  );
  return (await q.get<{ id: string }>(`SELECT id FROM resources WHERE env_id = ? AND key = ?`, [envId, key]))!.id;
}
