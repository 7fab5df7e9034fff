import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { isUniqueViolation } from '../store/db.js';
import { duplicate } from '../errors.js';
import type { Paging } from '../paging.js';
import { pageOf } from './common.js';
import { findElementsConfig, resolveLevels, type ElementsConfigRow, type Levels } from './elements.js';

/** The element configurations' list and writes (`/v2/elements/{p}/{e}/config[/{key}]`, `DELETE /{key}`). */

export interface ElementsConfigInput {
  name?: string;
  elements_type?: string;
  roles_to_levels?: Levels;
  settings?: object;
}

/** One page of the environment's configurations, oldest first. */
export function listElementsConfigs(q: Queryable, envId: string, paging: Paging) {
  return pageOf<ElementsConfigRow>(q, 'elements_configs', 'env_id = ?', [envId], paging);
}

/** A configuration by id (one the caller just wrote). */
export async function readElementsConfig(q: Queryable, id: string): Promise<ElementsConfigRow> {
  return (await q.get<ElementsConfigRow>(`SELECT * FROM elements_configs WHERE id = ?`, [id]))!;
}

/** A new configuration (409 when the key is taken); its levels name existing roles. Returns its id. */
export async function createElementsConfig(
  tx: Queryable,
  envId: string,
  b: ElementsConfigInput & { key: string; name: string },
  at: string,
): Promise<string> {
  const id = newId();
  const levels = await resolveLevels(tx, envId, b.roles_to_levels ?? {});
  try {
    await tx.run(
      `INSERT INTO elements_configs (id, env_id, key, name, elements_type, roles_to_levels, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        envId,
        b.key,
        b.name,
        b.elements_type ?? 'user_management',
        JSON.stringify(levels),
        JSON.stringify(b.settings ?? {}),
        at,
        at,
      ],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('element configuration', b.key);
    throw err;
  }
  return id;
}

/** The configuration `key` with the fields given replaced (the others stay). Returns its id. */
export async function updateElementsConfig(
  tx: Queryable,
  envId: string,
  key: string,
  b: ElementsConfigInput,
  at: string,
): Promise<string> {
  const row = await findElementsConfig(tx, envId, key);
  const levels = b.roles_to_levels
    ? JSON.stringify(await resolveLevels(tx, envId, b.roles_to_levels))
    : row.roles_to_levels;
  await tx.run(
    `UPDATE elements_configs SET name = ?, elements_type = ?, roles_to_levels = ?, settings = ?, updated_at = ? WHERE id = ?`,
    [
      b.name ?? row.name,
      b.elements_type ?? row.elements_type,
      levels,
      b.settings ? JSON.stringify(b.settings) : row.settings,
      at,
      row.id,
    ],
  );
  return row.id;
}

/** Deletes the configuration `key`: its access requests go with it (cascade). */
export async function deleteElementsConfig(q: Queryable, envId: string, key: string): Promise<void> {
  const row = await findElementsConfig(q, envId, key);
  await q.run(`DELETE FROM elements_configs WHERE id = ?`, [row.id]);
}
