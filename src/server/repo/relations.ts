import type { Queryable } from '../store/db.js';

/**
 * Relations, role derivations (implicit grants) and relationship tuples: the records the specification
 * says group operations create. They are stored and readable; access through groups is decided from the
 * group records themselves (see domain/allowed.ts), never by evaluating these type-level derivations.
 */
export async function ensureRelation(q: Queryable, envId: string, objectResourceId: string, key: string, subjectResourceId: string, at: string): Promise<string> {
  await q.run(
    `INSERT INTO relations (id, env_id, object_resource_id, key, name, description, subject_resource_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?) ON CONFLICT (object_resource_id, key) DO NOTHING`,
    [crypto.randomUUID(), envId, objectResourceId, key, key, subjectResourceId, at, at],
  );
  return (await q.get<{ id: string }>(`SELECT id FROM relations WHERE object_resource_id = ? AND key = ?`, [objectResourceId, key]))!.id;
}

/** "A user with `linkedRole` on an `onResource` instance related by `relation` gets `role` on the `resource` instance." */
export async function ensureImplicitGrant(
  q: Queryable,
  envId: string,
  g: { resourceId: string; roleId: string; onResourceId: string; linkedRoleId: string; relationId: string },
  at: string,
): Promise<void> {
  await q.run(
    `INSERT INTO implicit_grants (id, env_id, resource_id, role_id, on_resource_id, linked_role_id, relation_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (resource_id, role_id, on_resource_id, linked_role_id, relation_id) DO NOTHING`,
    [crypto.randomUUID(), envId, g.resourceId, g.roleId, g.onResourceId, g.linkedRoleId, g.relationId, at],
  );
}

export async function ensureTuple(q: Queryable, envId: string, subjectId: string, relation: string, objectId: string, tenantId: string, at: string) {
  await q.run(
    `INSERT INTO relationship_tuples (id, env_id, subject_id, relation, object_id, tenant_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (subject_id, relation, object_id) DO NOTHING`,
    [crypto.randomUUID(), envId, subjectId, relation, objectId, tenantId, at],
  );
}

/** Removes a tuple if it is there; says whether it was. */
export async function removeTuple(q: Queryable, subjectId: string, relation: string, objectId: string): Promise<boolean> {
  const { changes } = await q.run(`DELETE FROM relationship_tuples WHERE subject_id = ? AND relation = ? AND object_id = ?`, [subjectId, relation, objectId]);
  return changes > 0;
}
