import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import { duplicate, notFound } from '../errors.js';
import { envFields, findKeyed, parseJson, stableUuid } from './common.js';
import { newId } from '../new-id.js';
import { pruneRolePermissions, type ResourceRow } from './resources.js';
import { pruneSetRules } from './set-rules.js';
import { bumpAbacStamp } from './abac-stamp.js';

/**
 * A resource's actions one by one (`/resources/{id}/actions[/{action_id}]`): the same actions the
 * resource's `actions` map holds (one column, so that both views always agree), read in the public
 * `ResourceActionRead`. An action is found by key or id.
 */
export interface ActionBody {
  key?: string;
  name?: string;
  description?: string | null;
  attributes?: Record<string, unknown>;
}
type StoredAction = { id?: string; name?: string; description?: string | null; attributes?: Record<string, unknown> };

export function actionRead(row: ResourceRow, key: string, a: StoredAction, env: EnvContext) {
  return {
    key,
    name: a.name ?? key,
    ...(a.description ? { description: a.description } : {}),
    attributes: a.attributes ?? {},
    id: a.id ?? stableUuid(`${row.id}:action:${key}`),
    permission_name: `${row.key}:${key}`,
    ...envFields(env),
    resource_id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function readActions(q: Queryable, envId: string, resource: string) {
  const row = await findKeyed<ResourceRow>(q, 'resources', envId, resource, 'resource');
  return { row, actions: parseJson<Record<string, StoredAction>>(row.actions, {}) };
}

/** The action's key, by key or id, or 404. */
export function actionKeyOf(row: ResourceRow, actions: Record<string, StoredAction>, keyOrId: string): string {
  if (Object.hasOwn(actions, keyOrId)) return keyOrId;
  const found = Object.entries(actions).find(([k, a]) => (a.id ?? stableUuid(`${row.id}:action:${k}`)) === keyOrId);
  if (!found) throw notFound('action', keyOrId);
  return found[0];
}

async function save(q: Queryable, row: ResourceRow, actions: Record<string, StoredAction>, at: string) {
  await q.run(`UPDATE resources SET actions = ?, updated_at = ? WHERE id = ?`, [JSON.stringify(actions), at, row.id]);
  return { ...row, actions: JSON.stringify(actions), updated_at: at };
}

export async function createAction(q: Queryable, envId: string, resource: string, body: ActionBody, at: string) {
  const { row, actions } = await readActions(q, envId, resource);
  const key = body.key!;
  if (Object.hasOwn(actions, key)) throw duplicate('action', key);
  const action: StoredAction = {
    id: newId(),
    name: body.name,
    description: body.description,
    attributes: body.attributes,
  };
  const saved = await save(q, row, { ...actions, [key]: action }, at);
  return { row: saved, key, action };
}

export async function updateAction(
  q: Queryable,
  envId: string,
  resource: string,
  keyOrId: string,
  body: ActionBody,
  at: string,
) {
  const { row, actions } = await readActions(q, envId, resource);
  const key = actionKeyOf(row, actions, keyOrId);
  const before = actions[key];
  const action: StoredAction = {
    ...before,
    id: before.id ?? stableUuid(`${row.id}:action:${key}`),
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.attributes !== undefined ? { attributes: body.attributes } : {}),
  };
  const saved = await save(q, row, { ...actions, [key]: action }, at);
  return { row: saved, key, action };
}

/** Deleting an action takes its permissions out of roles and its set rules, as a resource update does. */
export async function deleteAction(q: Queryable, envId: string, resource: string, keyOrId: string, at: string) {
  const { row, actions } = await readActions(q, envId, resource);
  const key = actionKeyOf(row, actions, keyOrId);
  const rest = Object.fromEntries(Object.entries(actions).filter(([k]) => k !== key));
  await save(q, row, rest, at);
  await pruneRolePermissions(q, envId, row.key, (a) => Object.hasOwn(rest, a), at);
  await pruneSetRules(q, row.id, Object.keys(rest));
  await bumpAbacStamp(q, envId);
}
