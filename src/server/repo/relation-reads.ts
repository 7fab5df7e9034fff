import type { Queryable } from '../store/db.js';
import type { EnvContext } from '../context.js';
import type { Paging } from '../paging.js';
import { envFields, pageOf } from './common.js';
import { deleteRelation } from './relations.js';

/** Relations as the public `RelationRead` reads them: list, by id, by key or id, and deleting one so named. */

export interface RelationRow {
  id: string;
  key: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  object_key: string;
  subject_key: string;
  object_resource_id: string;
  subject_resource_id: string;
}
const SELECT = `rel.id, rel.key, rel.name, rel.description, rel.created_at, rel.updated_at, rel.object_resource_id, rel.subject_resource_id, o.key AS object_key, s.key AS subject_key`;
const FROM = `relations rel JOIN resources o ON o.id = rel.object_resource_id JOIN resources s ON s.id = rel.subject_resource_id`;

export const relationRead = (r: RelationRow, env: EnvContext) => ({
  id: r.id,
  key: r.key,
  name: r.name,
  ...(r.description !== null ? { description: r.description } : {}),
  object_resource: r.object_key,
  object_resource_id: r.object_resource_id,
  subject_resource: r.subject_key,
  subject_resource_id: r.subject_resource_id,
  ...envFields(env),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** One page of the relations of the resource `objectId` (its object side), oldest first. */
export function listRelations(q: Queryable, objectId: string, paging: Paging) {
  return pageOf<RelationRow>(
    q,
    FROM,
    'rel.object_resource_id = ?',
    [objectId],
    paging,
    SELECT,
    'rel.created_at, rel.id',
  );
}

/** A relation by id (one the caller just wrote). */
export async function readRelation(q: Queryable, id: string): Promise<RelationRow> {
  return (await q.get<RelationRow>(`SELECT ${SELECT} FROM ${FROM} WHERE rel.id = ?`, [id]))!;
}

// A relation is named by key or id (the public `relation_id`).
const BY_KEY_OR_ID = 'rel.object_resource_id = ? AND (rel.key = ? OR rel.id = ?)';

/** The relation of the resource `objectId` named `keyOrId`, or undefined. */
export function findRelation(q: Queryable, objectId: string, keyOrId: string): Promise<RelationRow | undefined> {
  return q.get<RelationRow>(`SELECT ${SELECT} FROM ${FROM} WHERE ${BY_KEY_OR_ID}`, [objectId, keyOrId, keyOrId]);
}

/** Deletes the relation of `object` named `keyOrId` (deleteRelation, repo/relations.ts); whether there was one. */
export async function deleteRelationNamed(tx: Queryable, object: { id: string }, keyOrId: string): Promise<boolean> {
  const row = await tx.get<{ key: string }>(`SELECT rel.key FROM relations rel WHERE ${BY_KEY_OR_ID}`, [
    object.id,
    keyOrId,
    keyOrId,
  ]);
  return !!row && (await deleteRelation(tx, object, row.key));
}
