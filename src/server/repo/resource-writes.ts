import { newId } from '../new-id.js';
import type { Queryable } from '../store/db.js';
import { duplicate } from '../errors.js';
import type { Paging } from '../paging.js';
import { findKeyed, pageOf, parseJson, searchClause } from './common.js';
import { writeResourceRelations } from './relations.js';
import { replaceResourceRoles, writeResourceRoles, type ResourceRoleBody } from './resource-role-writes.js';
import { pruneSetRules } from './set-rules.js';
import { bumpAbacStamp } from './abac-stamp.js';
import { pruneRolePermissions, withIds, type Actions, type Attributes, type ResourceRow } from './resources.js';

/**
 * The resources' list and writes (`/resources[/{key}]`), each inside the caller's transaction. With
 * `roles` or `relations`, the resource and those are written in that one transaction: all or nothing.
 */

/** The public `ResourceCreate` / `ResourceReplace` / `ResourceUpdate` fields. */
export interface ResourceInput {
  name?: string;
  urn?: string | null;
  description?: string | null;
  actions?: Actions;
  type_attributes?: Record<string, unknown>;
  attributes?: Attributes;
  roles?: Record<string, ResourceRoleBody>;
  relations?: Record<string, string>;
}

/** One page of the environment's resources, `search` matching key or name. */
export function listResources(q: Queryable, envId: string, search: unknown, paging: Paging) {
  const s = searchClause(search);
  return pageOf<ResourceRow>(q, 'resources', `env_id = ?${s.where}`, [envId, ...s.params], paging);
}

const readResource = async (q: Queryable, id: string) =>
  (await q.get<ResourceRow>(`SELECT * FROM resources WHERE id = ?`, [id]))!;

const typeAttributes = (t: Record<string, unknown> | undefined) =>
  t && Object.keys(t).length > 0 ? JSON.stringify(t) : null;

/** A new resource (409 when the key is taken), with its roles and relations. */
export async function createResource(
  tx: Queryable,
  envId: string,
  b: ResourceInput & { key: string; name: string },
  at: string,
): Promise<ResourceRow> {
  const id = newId();
  const { changes } = await tx.run(
    `INSERT INTO resources (id, env_id, key, name, urn, description, actions, type_attributes, attributes, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    [
      id,
      envId,
      b.key,
      b.name,
      b.urn ?? null,
      b.description ?? null,
      JSON.stringify(withIds(b.actions ?? {})),
      typeAttributes(b.type_attributes),
      JSON.stringify(withIds(b.attributes ?? {})),
      at,
      at,
    ],
  );
  if (changes === 0) throw duplicate('resource', b.key);
  const row = await readResource(tx, id);
  if (b.roles) await writeResourceRoles(tx, envId, row, b.roles, { at, create: true });
  if (b.relations) await writeResourceRelations(tx, envId, row, b.relations, { at, replace: false });
  return row;
}

/**
 * Updates the resource `key` (`replace`: a field left out is reset, except `roles` and `relations`).
 * Role permissions and set rules on removed actions go; the ABAC model's stamp moves.
 */
export async function updateResource(
  tx: Queryable,
  envId: string,
  key: string,
  b: ResourceInput,
  at: string,
  replace: boolean,
): Promise<ResourceRow> {
  const row = await findKeyed<ResourceRow>(tx, 'resources', envId, key, 'resource');
  const before = {
    actions: parseJson<Actions>(row.actions, {}),
    attributes: parseJson<Attributes>(row.attributes, {}),
  };
  const actions = b.actions ? withIds(b.actions, before.actions) : replace ? {} : before.actions;
  const attributes = b.attributes ? withIds(b.attributes, before.attributes) : replace ? {} : before.attributes;
  await tx.run(
    `UPDATE resources SET name = ?, urn = ?, description = ?, actions = ?, type_attributes = ?, attributes = ?, updated_at = ? WHERE id = ?`,
    [
      b.name ?? row.name,
      b.urn !== undefined ? b.urn : replace ? null : (row.urn ?? null),
      b.description !== undefined ? b.description : replace ? null : row.description,
      JSON.stringify(actions),
      b.type_attributes !== undefined
        ? typeAttributes(b.type_attributes)
        : replace
          ? null
          : (row.type_attributes ?? null),
      JSON.stringify(attributes),
      at,
      row.id,
    ],
  );
  await pruneRolePermissions(tx, envId, row.key, (a) => Object.hasOwn(actions, a), at);
  // Set rules on removed actions go too; attribute definitions may have changed (/allowed's ABAC model).
  await pruneSetRules(tx, row.id, Object.keys(actions));
  await bumpAbacStamp(tx, envId);
  const updated = await readResource(tx, row.id);
  // `roles` given: a replace makes them the resource's roles (others deleted), a patch creates or
  // updates those named. Left out, the roles stay as they are, on a replace too: deleting every role
  // (and with them every assignment on the resource) is never the effect of leaving a field out.
  if (b.roles)
    await (replace
      ? replaceResourceRoles(tx, envId, updated, b.roles, at)
      : writeResourceRoles(tx, envId, updated, b.roles, { at }));
  // `relations` likewise: a replace makes them the resource's relations (the group machinery's kept).
  if (b.relations) await writeResourceRelations(tx, envId, updated, b.relations, { at, replace });
  return updated;
}

/** Deletes the resource `key`: its instances go (cascade), its permissions leave every role. */
export async function deleteResource(tx: Queryable, envId: string, key: string, at: string): Promise<void> {
  const row = await findKeyed<ResourceRow>(tx, 'resources', envId, key, 'resource');
  await tx.run(`DELETE FROM resources WHERE id = ?`, [row.id]);
  await pruneRolePermissions(tx, envId, row.key, () => false, at);
  await bumpAbacStamp(tx, envId);
}
