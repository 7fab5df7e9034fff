import type { Queryable } from '../store/db.js';
import { duplicate, httpError, notFound } from '../errors.js';
import { isUniqueViolation } from '../store/db.js';
import { findKeyedOrNull } from './common.js';
import type { ResourceRow } from './resources.js';
import { checkConditions, checkParent, findStoredSet, type ConditionSetRow } from './condition-sets.js';

/** The public `ConditionSetCreate`, as the route's schema types it. */
export interface SetCreate {
  key: string;
  name: string;
  description?: string;
  type?: 'userset' | 'resourceset';
  resource_id?: string;
  conditions?: { [k: string]: unknown };
  parent_id?: string;
}
/** The public `ConditionSetUpdate`: each field given is overwritten. */
export interface SetUpdate {
  name?: string;
  description?: string;
  conditions?: { [k: string]: unknown };
  parent_id?: string;
}

/** Parent checks read then write: the writes of an environment's sets are serialised across processes (PostgreSQL). */
const lockSets = (tx: Queryable, envId: string) => tx.lock?.(`condition-sets:${envId}`);

/**
 * Creates a set: a resource set's resource (404), its conditions and parent checked; a key taken: 409.
 * Answers the stored row.
 */
export async function createSet(
  tx: Queryable,
  envId: string,
  b: SetCreate,
  made: { id: string; at: string },
): Promise<ConditionSetRow> {
  await lockSets(tx, envId);
  const type = b.type ?? 'userset';
  let resource: ResourceRow | undefined;
  if (type === 'resourceset') {
    if (b.resource_id === undefined)
      throw httpError('INVALID_INPUT', 'a resource set needs resource_id: the resource whose instances it holds');
    resource = await findKeyedOrNull<ResourceRow>(tx, 'resources', envId, b.resource_id);
    if (!resource) throw notFound('resource', b.resource_id);
  } else if (b.resource_id !== undefined) {
    throw httpError('INVALID_INPUT', 'a user set has no resource_id (only resource sets are bound to a resource)');
  }
  await checkConditions(tx, envId, b.conditions ?? {}, { type, resourceKey: resource?.key });
  const parent =
    b.parent_id !== undefined
      ? await checkParent(tx, envId, b.parent_id, { type, resource_id: resource?.id ?? null })
      : null;
  try {
    await tx.run(
      `INSERT INTO condition_sets (id, env_id, key, name, description, type, resource_id, parent_id, conditions, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        made.id,
        envId,
        b.key,
        b.name,
        b.description ?? null,
        type,
        resource?.id ?? null,
        parent,
        JSON.stringify(b.conditions ?? {}),
        made.at,
        made.at,
      ],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate('condition set', b.key);
    throw err;
  }
  return (await tx.get<ConditionSetRow>(`SELECT * FROM condition_sets WHERE id = ?`, [made.id]))!;
}

/** Overwrites the fields given of a stored set (key, type, resource never change); answers the stored row. */
export async function updateSet(
  tx: Queryable,
  envId: string,
  keyOrId: string,
  b: SetUpdate,
  at: string,
): Promise<ConditionSetRow> {
  await lockSets(tx, envId);
  const row = await findStoredSet(tx, envId, keyOrId);
  const resource = row.resource_id
    ? await tx.get<{ key: string }>(`SELECT key FROM resources WHERE id = ?`, [row.resource_id])
    : undefined;
  if (b.conditions !== undefined)
    await checkConditions(tx, envId, b.conditions, { type: row.type, resourceKey: resource?.key });
  const parent = b.parent_id === undefined ? row.parent_id : await checkParent(tx, envId, b.parent_id, row);
  await tx.run(
    `UPDATE condition_sets SET name = ?, description = ?, conditions = ?, parent_id = ?, updated_at = ? WHERE id = ?`,
    [
      b.name ?? row.name,
      b.description !== undefined ? b.description : row.description,
      b.conditions !== undefined ? JSON.stringify(b.conditions) : row.conditions,
      parent,
      at,
      row.id,
    ],
  );
  return (await tx.get<ConditionSetRow>(`SELECT * FROM condition_sets WHERE id = ?`, [row.id]))!;
}

/** Deletes a stored set and its rules; a set that is some set's parent: 409 (delete or re-parent the children first). */
export async function deleteSet(tx: Queryable, envId: string, keyOrId: string): Promise<void> {
  await lockSets(tx, envId);
  const row = await findStoredSet(tx, envId, keyOrId);
  const children = await tx.all<{ key: string }>(`SELECT key FROM condition_sets WHERE parent_id = ? ORDER BY key`, [
    row.id,
  ]);
  if (children.length > 0)
    throw httpError(
      'CONFLICT',
      `condition set '${row.key}' is the parent of ${children.map((c) => `'${c.key}'`).join(', ')}: delete or re-parent them first`,
    );
  await tx.run(`DELETE FROM condition_sets WHERE id = ?`, [row.id]);
}
