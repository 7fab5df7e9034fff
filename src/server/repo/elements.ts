import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { notFound } from '../errors.js';
import { envFields, parseJson } from './common.js';

export interface ElementsConfigRow {
  id: string; key: string; name: string; elements_type: string; roles_to_levels: string; settings: string; created_at: string; updated_at: string;
}

export const elementsConfigRead = (r: ElementsConfigRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  name: r.name,
  elements_type: r.elements_type,
  roles_to_levels: parseJson(r.roles_to_levels, {}),
  settings: parseJson(r.settings, {}),
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export async function findElementsConfig(q: Queryable, envId: string, keyOrId: string): Promise<ElementsConfigRow> {
  const row =
    (await q.get<ElementsConfigRow>(`SELECT * FROM elements_configs WHERE env_id = ? AND key = ?`, [envId, keyOrId])) ??
    (await q.get<ElementsConfigRow>(`SELECT * FROM elements_configs WHERE env_id = ? AND id = ?`, [envId, keyOrId]));
  if (!row) throw notFound('element configuration', keyOrId);
  return row;
}

/** When a role is deleted, configurations stop naming it (nothing dangles). */
export async function pruneRoleFromConfigs(q: Queryable, envId: string, roleKey: string, at: string): Promise<void> {
  const rows = await q.all<{ id: string; roles_to_levels: string }>(`SELECT id, roles_to_levels FROM elements_configs WHERE env_id = ?`, [envId]);
  for (const r of rows) {
    const levels = parseJson<Record<string, string[]>>(r.roles_to_levels, {});
    if (!Object.values(levels).some((l) => l.includes(roleKey))) continue;
    const kept = Object.fromEntries(Object.entries(levels).map(([l, roles]) => [l, roles.filter((k) => k !== roleKey)]));
    await q.run(`UPDATE elements_configs SET roles_to_levels = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(kept), at, r.id]);
  }
}
