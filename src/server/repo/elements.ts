import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { notFound } from '../errors.js';
import { envFields, findKeyedOrNull, parseJson, stableUuid } from './common.js';

export interface ElementsConfigRow {
  id: string;
  key: string;
  name: string;
  elements_type: string;
  roles_to_levels: string;
  settings: string;
  created_at: string;
  updated_at: string;
}

/** Stored: level → role keys. */
export type Levels = Record<string, string[]>;

/**
 * Roles are tenant-wide here; the public service ties such roles to its built-in tenant resource, which
 * this server keeps no row for. `resource_id` is a stable id for it, one per environment.
 */
export const tenantResourceId = (envId: string) => stableUuid(`${envId}:__tenant`);

/**
 * The public `ElementsConfigRead` of a batch of rows: `roles_to_levels` values are the roles as
 * `{id, key, name, resource_id}` (one query for the batch). A configuration is active from creation.
 */
export async function elementsConfigReads(q: Queryable, env: EnvContext, rows: ElementsConfigRow[]) {
  const keys = [...new Set(rows.flatMap((r) => Object.values(parseJson<Levels>(r.roles_to_levels, {})).flat()))];
  const roles = new Map(
    keys.length === 0
      ? []
      : (
          await q.all<{ id: string; key: string; name: string }>(
            `SELECT id, key, name FROM roles WHERE env_id = ? AND resource_id IS NULL AND key IN (${keys.map(() => '?').join(', ')})`,
            [env.envId, ...keys],
          )
        ).map((r) => [r.key, { ...r, resource_id: tenantResourceId(env.envId) }]),
  );
  return rows.map((r) => ({
    id: r.id,
    key: r.key,
    name: r.name,
    elements_type: r.elements_type,
    is_active: true,
    settings: parseJson(r.settings, {}),
    roles_to_levels: Object.fromEntries(
      Object.entries(parseJson<Levels>(r.roles_to_levels, {})).map(([level, ks]) => [
        level,
        ks.flatMap((k) => (roles.has(k) ? [roles.get(k)!] : [])),
      ]),
    ),
    ...envFields(env),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

export async function findElementsConfig(q: Queryable, envId: string, keyOrId: string): Promise<ElementsConfigRow> {
  const row = await findKeyedOrNull<ElementsConfigRow>(q, 'elements_configs', envId, keyOrId);
  if (!row) throw notFound('element configuration', keyOrId);
  return row;
}

/** Role keys or ids → keys, each role existing (404 naming the first missing one). */
export async function resolveLevels(q: Queryable, envId: string, levels: Levels): Promise<Levels> {
  const out: Levels = {};
  for (const [level, refs] of Object.entries(levels)) {
    out[level] = [];
    for (const ref of refs) {
      const role = await findKeyedOrNull<{ key: string }>(q, 'roles', envId, ref);
      if (!role) throw notFound('role', ref);
      if (!out[level].includes(role.key)) out[level].push(role.key);
    }
  }
  return out;
}

/** When a role is deleted, configurations stop naming it (nothing dangles). */
export async function pruneRoleFromConfigs(q: Queryable, envId: string, roleKey: string, at: string): Promise<void> {
  const rows = await q.all<{ id: string; roles_to_levels: string }>(
    `SELECT id, roles_to_levels FROM elements_configs WHERE env_id = ?`,
    [envId],
  );
  for (const r of rows) {
    const levels = parseJson<Levels>(r.roles_to_levels, {});
    if (!Object.values(levels).some((l) => l.includes(roleKey))) continue;
    const kept = Object.fromEntries(
      Object.entries(levels).map(([l, roles]) => [l, roles.filter((k) => k !== roleKey)]),
    );
    await q.run(`UPDATE elements_configs SET roles_to_levels = ?, updated_at = ? WHERE id = ?`, [
      JSON.stringify(kept),
      at,
      r.id,
    ]);
  }
}
